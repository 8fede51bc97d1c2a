//! `evaluate`: the recorded history replayed under the default and an alternative setting,
//! side by side with what actually happened. It writes nothing.

use docsuggest_engine::evaluate::{self, Evaluation, Setting};
use docsuggest_host::stores::{self, InspectError};
use docsuggest_schema::{Config, StoreContents};
use std::fmt;
use std::path::Path;

/// The evaluations of one store's history.
#[derive(Clone, Debug, serde::Serialize)]
pub struct EvaluateReport {
    /// The store file.
    pub store: String,
    /// `recorded` first, then `defaults`, then the alternative when one was given.
    pub settings: Vec<Evaluation>,
}

/// Replays the history of the store at `store` under the defaults and under `alternative`.
pub fn evaluate(
    store: Option<&Path>,
    alternative: Option<&Config>,
) -> Result<EvaluateReport, InspectError> {
    let (path, history, base) = stores::read(store, |store, view| {
        Ok((
            store.path().display().to_string(),
            view.history()?,
            view.base_rows()?,
        ))
    })?;
    let mut settings = vec![
        evaluate::recorded(&history),
        evaluate::evaluate(
            &history,
            &base,
            &Setting::from_config("defaults", &Config::default()),
        ),
    ];
    if let Some(config) = alternative {
        let setting = Setting::from_config("alternative", config);
        settings.push(evaluate::evaluate(&history, &base, &setting));
    }
    Ok(EvaluateReport {
        store: path,
        settings,
    })
}

fn share(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{v:.3}"))
}

impl fmt::Display for EvaluateReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let decisions = self.settings.first().map_or(0, |e| e.decisions);
        writeln!(f, "store {}: {decisions} decisions replayed", self.store)?;
        writeln!(
            f,
            "  {:<12} {:>8} {:>8} {:>8} {:>10} {:>9} {:>13} {:>14} {:>6}",
            "setting",
            "emitted",
            "accepted",
            "rejected",
            "unresolved",
            "precision",
            "shadow-recall",
            "notes/100 dec",
            "ece"
        )?;
        for e in &self.settings {
            writeln!(
                f,
                "  {:<12} {:>8} {:>8} {:>8} {:>10} {:>9} {:>13} {:>14.1} {:>6}",
                e.setting,
                e.emitted,
                e.accepted,
                e.rejected,
                e.unresolved,
                share(e.precision),
                share(e.shadow_recall),
                e.notes_per_100_decisions,
                share(evaluate::calibration_error(&e.calibration))
            )?;
        }
        Ok(())
    }
}
