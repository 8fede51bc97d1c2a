//! `cargo fuzz run protocol_line`: [`docsuggest_tests::fuzzing::protocol_line`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| docsuggest_tests::fuzzing::protocol_line(data));
