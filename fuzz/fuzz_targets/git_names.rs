//! `cargo fuzz run git_names`: [`docsuggest_tests::fuzzing::git_names`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| docsuggest_tests::fuzzing::git_names(data));
