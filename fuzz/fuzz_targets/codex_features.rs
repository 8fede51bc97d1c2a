//! `cargo fuzz run codex_features`: [`docsuggest_tests::fuzzing::codex_features`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| docsuggest_tests::fuzzing::codex_features(data));
