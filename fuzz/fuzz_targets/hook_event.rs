//! `cargo fuzz run hook_event`: [`docsuggest_tests::fuzzing::hook_event`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| docsuggest_tests::fuzzing::hook_event(data));
