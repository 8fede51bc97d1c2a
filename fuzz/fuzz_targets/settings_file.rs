//! `cargo fuzz run settings_file`: [`docsuggest_tests::fuzzing::settings_file`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| docsuggest_tests::fuzzing::settings_file(data));
