//! `cargo fuzz run pack`: [`docsuggest_tests::fuzzing::pack`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| docsuggest_tests::fuzzing::pack(data));
