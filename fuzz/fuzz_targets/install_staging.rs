//! `cargo fuzz run install_staging`: [`docsuggest_tests::fuzzing::install_staging`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| docsuggest_tests::fuzzing::install_staging(data));
