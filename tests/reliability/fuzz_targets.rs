//! The fuzz targets' checks (`docsuggest_tests::fuzzing`, driven by libFuzzer from `fuzz/`)
//! on every `cargo test`: each over its kept corpus (`fuzz/corpus/<target>/`) and a bounded
//! number of inputs mutated from it, as a fuzzer's first steps would — bytes flipped, cut,
//! repeated, spliced with another seed, or a token of the input's own grammar inserted. A
//! finding panics with the input; the executions are reported for `RELIABILITY.md`.

use crate::scale::{self, Rng};
use docsuggest_tests::fuzzing::TARGETS;
use std::path::{Path, PathBuf};

/// Tokens worth inserting: the grammars' punctuation and the fields the parsers look for.
const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b",",
    b":",
    b"=",
    b"\n",
    b"#",
    b"//",
    b"/*",
    b"*/",
    b"\\",
    b"\"\"\"",
    b"'''",
    b"true",
    b"false",
    b"null",
    b"0",
    b"-1",
    b"1e999",
    b"\"op\":\"judge\"",
    b"\"hooks\":",
    b"\"PostToolUse\"",
    b"[features]",
    b"hooks = true",
    b"codex_hooks",
    b"\"companions\":[]",
    b"{}",
    b"*",
    b"**",
    b"..",
    b"\xff",
    b"\xe2\x80\xae",
    b"\0",
];

fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the corpus {}: {e}", dir.display()))
        .map(|entry| entry.expect("a corpus entry").path())
        .collect();
    files.sort();
    let seeds: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(f).expect("a corpus file"))
        .collect();
    assert!(!seeds.is_empty(), "no seeds in {}", dir.display());
    seeds
}

/// One input mutated from the seeds: one to four mutations of one seed.
fn mutated(seeds: &[Vec<u8>], rng: &mut Rng) -> Vec<u8> {
    let pick = |rng: &mut Rng| &seeds[rng.below(seeds.len() as u64) as usize];
    let mut bytes = pick(rng).clone();
    for _ in 0..=rng.below(4) {
        let at = |rng: &mut Rng, len: usize| rng.below(len as u64 + 1) as usize;
        match rng.below(6) {
            0 if !bytes.is_empty() => {
                let i = at(rng, bytes.len() - 1);
                bytes[i] ^= 1 << rng.below(8);
            }
            1 => {
                let i = at(rng, bytes.len());
                bytes.truncate(i);
            }
            2 => {
                let (i, j) = (at(rng, bytes.len()), at(rng, bytes.len()));
                let (i, j) = (i.min(j), i.max(j));
                let chunk = bytes[i..j].to_vec();
                bytes.splice(j..j, chunk);
            }
            3 => {
                let other = pick(rng);
                let (i, j) = (at(rng, bytes.len()), at(rng, other.len()));
                bytes.truncate(i);
                bytes.extend_from_slice(&other[j..]);
            }
            4 => {
                let (i, j) = (at(rng, bytes.len()), at(rng, bytes.len()));
                bytes.drain(i.min(j)..i.max(j));
            }
            _ => {
                let token = TOKENS[rng.below(TOKENS.len() as u64) as usize];
                let i = at(rng, bytes.len());
                bytes.splice(i..i, token.iter().copied());
            }
        }
    }
    bytes
}

#[test]
fn every_fuzz_target_holds_on_its_corpus_and_mutations_of_it() {
    let runs = scale::pick(3_000, 300_000);
    for (n, (name, check, share)) in TARGETS.iter().enumerate() {
        let seeds = corpus(name);
        let mut rng = Rng::new(0xf022 + n as u64);
        let mut executions = 0u64;
        let mut run = |input: &[u8]| {
            executions += 1;
            let caught = std::panic::catch_unwind(|| check(input));
            if let Err(panic) = caught {
                let why = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_string()))
                    .unwrap_or_default();
                panic!(
                    "fuzz target {name}: {why}\ninput: {:?}",
                    String::from_utf8_lossy(input)
                );
            }
        };
        for seed in &seeds {
            run(seed);
        }
        for _ in 0..runs * share / 1000 {
            run(&mutated(&seeds, &mut rng));
        }
        scale::report(
            &format!("fuzz target {name}"),
            &[("executions", executions.to_string())],
        );
    }
}
