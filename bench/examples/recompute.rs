//! The recompute figures alone, at a chosen redb size, printed as JSON with the two recompute
//! targets: for iterating on the recompute without a whole `figures` run.
//!
//! `cargo run --release -p docsuggest-bench --example recompute -- [DECISIONS] [ROUNDS]`
//! (default 10^6 decisions, 3 rounds; the synthetic part is a token 10^4 decisions).

/// The allocator of every docsuggest binary (see `Cargo.toml`: glibc's arenas make a parallel
/// recompute trim and lock on every page it reads).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use docsuggest_bench::recompute::{self, Plan};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let number = |arg: Option<String>, default: u64| -> Result<u64, String> {
        arg.map_or(Ok(default), |a| {
            a.parse()
                .map_err(|_| format!("not a number: {a:?} (usage: recompute [DECISIONS] [ROUNDS])"))
        })
    };
    let decisions = number(args.next(), 1_000_000)?;
    let rounds = number(args.next(), 3)?;
    let plan = Plan {
        synthetic: &[(10_000, 1)],
        redb: decisions,
        redb_rounds: usize::try_from(rounds)?,
    };
    let figures = recompute::measure_all(plan, &mut |line| eprintln!("{line}"))?;
    let targets = recompute::targets(&figures.redb)?;
    let out = serde_json::json!({
        "load_after": docsuggest_bench::report::load_average(),
        "redb": figures.redb,
        "targets": targets,
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}
