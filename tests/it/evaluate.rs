//! Offline evaluation on a synthetic history with known ground truth; numbers checked by hand
//! (see each case's comment).

use docsuggest_engine::evaluate::{Evaluation, Setting, evaluate, recorded};
use docsuggest_schema::rate::NEUTRAL;
use docsuggest_schema::{
    CompanionRow, Config, Decision, HistoryEntry, Outcome, RateEvent, RateKey, RateModel, RateMove,
    SilenceReason, StoreKind, Table,
};

fn entry(
    priors: &[f64],
    outcome: Outcome,
    silence: Option<SilenceReason>,
    touched: bool,
) -> HistoryEntry {
    let companions = priors
        .iter()
        .enumerate()
        .map(|(i, p)| CompanionRow {
            path: format!("c{i}.md"),
            score: 0.0,
            values: Table([1.0, 0.5, *p, 0.5, NEUTRAL, NEUTRAL]),
        })
        .collect();
    HistoryEntry {
        resolution_seq: 0,
        decision: Decision {
            seq: 0,
            workspace: "ws-00000000".into(),
            agent: "a".into(),
            family: "F".into(),
            kappa: 0.0,
            companions,
            weights: Table::DEFAULT_WEIGHTS,
            enabled: docsuggest_schema::Heuristic::ALL.to_vec(),
            outcome,
            silence,
            accepted: touched.then(|| "c0.md".to_string()),
            store: StoreKind::Memory,
        },
        moves: vec![],
    }
}

/// Note kappa 0.91 (priors 1, .9, .7, .5), silence B kappa 0.71 (1, .8), silence C 0.54 (1).
fn history() -> Vec<HistoryEntry> {
    let a = [1.0, 0.9, 0.7, 0.5];
    let low = Some(SilenceReason::LowConfidence);
    vec![
        entry(&a, Outcome::Accepted, None, true),
        entry(&a, Outcome::Accepted, None, true),
        entry(&a, Outcome::Accepted, None, true),
        entry(&a, Outcome::Rejected, None, false),
        entry(&[1.0, 0.8], Outcome::Silent, low, true),
        entry(&[1.0, 0.8], Outcome::Silent, low, false),
        entry(&[1.0], Outcome::Silent, low, true),
        entry(&[1.0], Outcome::Silent, low, false),
        entry(&[1.0], Outcome::Silent, low, false),
        entry(
            &[1.0, 1.0, 1.0],
            Outcome::Silent,
            Some(SilenceReason::AlreadyTouched),
            true,
        ),
        entry(&a, Outcome::Abandoned, None, false),
    ]
}

fn setting(threshold: f64) -> Setting {
    let config = Config {
        threshold,
        ..Config::default()
    };
    Setting::from_config(&format!("threshold {threshold}"), &config)
}

fn summary(e: &Evaluation) -> (u64, u64, u64, u64, u64, String, String) {
    let pct = |x: Option<f64>| x.map_or("-".into(), |v| format!("{v:.4}"));
    (
        e.decisions,
        e.emitted,
        e.accepted,
        e.rejected,
        e.unresolved,
        pct(e.precision),
        pct(e.shadow_recall),
    )
}

#[test]
fn recorded_settings_match_what_happened() {
    // 5 notes (3 accepted, 1 rejected, 1 abandoned); useful = 3 notes + 3 touched silences.
    let e = recorded(&history());
    assert_eq!(
        summary(&e),
        (11, 5, 3, 1, 1, "0.7500".into(), "0.5000".into())
    );
    assert!((e.notes_per_100_decisions - 500.0 / 11.0).abs() < 1e-9);
}

#[test]
fn alternative_thresholds_trade_precision_for_recall() {
    let h = history();
    // The same gate rescored reproduces the record.
    assert_eq!(
        summary(&evaluate(&h, &[], &setting(0.75))),
        summary(&recorded(&h))
    );
    // 0.70 also speaks for B: +1 accept (touched), +1 reject.
    assert_eq!(
        summary(&evaluate(&h, &[], &setting(0.70))),
        (11, 7, 4, 2, 1, "0.6667".into(), "0.6667".into())
    );
    // 0.50 speaks for B and C, never for the already-touched silence.
    assert_eq!(
        summary(&evaluate(&h, &[], &setting(0.50))),
        (11, 10, 5, 4, 1, "0.5556".into(), "0.8333".into())
    );
    // 0.95 speaks for nothing.
    assert_eq!(
        summary(&evaluate(&h, &[], &setting(0.95))),
        (11, 0, 0, 0, 0, "-".into(), "0.0000".into())
    );
}

#[test]
fn the_beta_model_keeps_speaking_where_the_step_rule_goes_silent() {
    // Three notes over three companions, each soft-rejected: history weight 1, others 0.
    // step: 1/3 → 0.13 → 0: kappa 0.60, 0.45, 0.35; beta: 1/3, 1/4, 1/5: kappa 0.60, 0.54, 0.50.
    let mut h = Vec::new();
    for _ in 0..3 {
        let mut e = entry(&[1.0, 1.0, 1.0], Outcome::Rejected, None, false);
        e.moves = (0..3)
            .map(|i| RateMove {
                key: RateKey::companion("ws-00000000", "F", &format!("c{i}.md")),
                event: RateEvent::Reject,
                step: -0.2,
            })
            .collect();
        h.push(e);
    }
    let mut config = Config {
        threshold: 0.46,
        weights: Table([0.0, 0.0, 0.0, 0.0, 1.0, 0.0]),
        rate_model: RateModel::Step,
        ..Config::default()
    };
    let step = evaluate(&h, &[], &Setting::from_config("step", &config));
    config.rate_model = RateModel::Beta;
    let beta = evaluate(&h, &[], &Setting::from_config("beta", &config));
    assert_eq!((step.emitted, step.rejected), (1, 1));
    assert_eq!((beta.emitted, beta.rejected), (3, 3));
}

#[test]
fn emitted_notes_whose_outcome_is_known_are_binned_by_their_confidence() {
    let h = history();
    // At 0.50 the replay speaks for A (kappa 0.91: 3 accepted, 1 rejected; the abandoned one
    // is unknown and left out), B (0.71: 1 of 2 touched) and C (0.54: 1 of 3).
    let e = evaluate(&h, &[], &setting(0.50));
    let bins: Vec<(usize, u64, f64)> = e
        .calibration
        .iter()
        .map(|b| ((b.confidence * 10.0) as usize, b.notes, b.note_precision))
        .collect();
    assert_eq!(
        bins,
        [(5, 3, 1.0 / 3.0), (7, 2, 0.5), (9, 4, 0.75)],
        "{:?}",
        e.calibration
    );
    assert_eq!(
        e.calibration.iter().map(|b| b.notes).sum::<u64>(),
        e.accepted + e.rejected
    );
    // The record bins by the recorded kappa (0 in this history): the 4 resolved notes.
    let r = recorded(&h);
    assert_eq!(r.calibration.len(), 1);
    assert_eq!(
        (r.calibration[0].notes, r.calibration[0].note_precision),
        (4, 0.75)
    );
    assert_eq!(r.calibration[0].confidence, 0.0);
}
