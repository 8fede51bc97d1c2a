//! The figures printed as Markdown tables on stdout.

use crate::backends::Figures;
use crate::headline::{HeadlineFigure, SustainedHeadline};
use docsuggest_bench::recompute::RecomputeFigures;
use docsuggest_bench::report::{Bound, Ratio};

pub(crate) fn print_recompute(r: &RecomputeFigures) {
    println!("\n| recompute | decisions | moves | threads | median s | decisions/s |");
    println!("|---|---:|---:|---|---:|---:|");
    let redb = r.redb.runs.iter().map(|x| ("redb", x));
    for (source, x) in r.synthetic.iter().map(|x| ("synthetic", x)).chain(redb) {
        println!(
            "| {source} | {} | {} | {} | {:.3} | {:.0} |",
            x.decisions, x.moves, x.threads, x.median_seconds, x.decisions_per_second
        );
    }
    for h in &r.synthetic_history_copy {
        println!(
            "synthetic history() copy of {} decisions: {:.3} s",
            h.decisions, h.median_seconds
        );
    }
    let f = &r.synthetic_fold_all;
    println!(
        "fold_all alone over {} decisions: {:.3} s sequential, {:.3} s all cores",
        f.decisions, f.sequential_median_seconds, f.all_cores_median_seconds
    );
    println!(
        "redb: fill {:.2} s, file {} bytes, history() {:.3} s, rate_rows()+base_rows() {:.4} s",
        r.redb.fill_seconds,
        r.redb.file_bytes,
        r.redb.history_read.median_seconds,
        r.redb.rows_read_median_seconds
    );
    for x in &r.redb.input_read {
        println!(
            "redb recompute_input alone, {}: {:.3} s ({:.0} decisions/s)",
            x.threads, x.median_seconds, x.decisions_per_second
        );
    }
}

pub(crate) fn print_headline(
    headline: &[HeadlineFigure],
    sustained: &SustainedHeadline,
    ratios: &[Ratio],
) {
    println!("| headline | rows | call | probe | p50 µs | p99 µs | samples |");
    println!("|---|---:|---|---|---:|---:|---:|");
    for h in headline {
        println!(
            "| {} | {} | {} | {} | {:.2} | {:.2} | {} |",
            h.backend,
            h.rows,
            h.call,
            h.probe,
            h.summary.p50_us,
            h.summary.p99_us,
            h.summary.samples
        );
    }
    println!(
        "\nsustained learning ({}, {}): {:.0} decisions/s ({} decisions, {} cycles, {:.2} s)",
        sustained.backend,
        sustained.durability,
        sustained.decisions_per_second,
        sustained.decisions,
        sustained.cycles,
        sustained.seconds
    );
    println!("\n| ratio | value | target | pass |");
    println!("|---|---:|---|---|");
    for r in ratios {
        let bound = match r.bound {
            Bound::AtMost => "≤",
            Bound::AtLeast => "≥",
        };
        let pass = if r.pass { "pass" } else { "FAIL" };
        println!(
            "| {} | {:.2} | {bound} {} | {pass} |",
            r.name, r.value, r.target
        );
    }
}

pub(crate) fn print_markdown(f: &Figures) {
    println!();
    println!("| store | rows | call | probe | p50 µs | p99 µs |");
    println!("|---|---:|---|---|---:|---:|");
    for j in &f.judge {
        println!(
            "| {} | {} | {} | {} | {:.2} | {:.2} |",
            j.backend, j.rows, j.call, j.probe, j.summary.p50_us, j.summary.p99_us
        );
    }
    println!("\n| store | rows | keys | p50 µs | p99 µs |");
    println!("|---|---:|---|---:|---:|");
    for r in &f.store_reads {
        println!(
            "| {} | {} | {} | {:.2} | {:.2} |",
            r.backend, r.rows, r.keys, r.summary.p50_us, r.summary.p99_us
        );
    }
    println!("\n| store | call | durability | p50 µs | p99 µs | samples |");
    println!("|---|---|---|---:|---:|---:|");
    for w in &f.write_path {
        println!(
            "| {} | {} | {} | {:.2} | {:.2} | {} |",
            w.backend, w.call, w.durability, w.summary.p50_us, w.summary.p99_us, w.summary.samples
        );
    }
    println!("\n| store | durability | decisions/s | cycles |");
    println!("|---|---|---:|---:|");
    for s in &f.sustained {
        println!(
            "| {} | {} | {:.0} | {} |",
            s.backend, s.durability, s.decisions_per_second, s.cycles
        );
    }
    println!("\n| fill | rows | transactions | seconds | rows/s |");
    println!("|---|---:|---:|---:|---:|");
    for x in &f.fills {
        println!(
            "| {} | {} | {} | {:.2} | {:.0} |",
            x.backend, x.rows, x.transactions, x.seconds, x.rows_per_second
        );
    }
    println!("\n| existence filter | p50 µs | p99 µs |");
    println!("|---|---:|---:|");
    for e in &f.existence_filter {
        println!(
            "| {} | {:.2} | {:.2} |",
            e.probe, e.summary.p50_us, e.summary.p99_us
        );
    }
}
