//! `cargo fuzz run fleet_moves`: [`docsuggest_tests::fuzzing::fleet_moves`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| docsuggest_tests::fuzzing::fleet_moves(data));
