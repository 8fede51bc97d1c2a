//! The engine's config: every field of the PoC plus the durable layer's, validated as a whole.
//!
//! A config is changed by a *patch* (a JSON object naming some fields). Validation collects
//! every problem of the patch at once and names each field; a patch with any problem changes
//! nothing, so the previous config stays in force.

use crate::heuristic::{Heuristic, Table};
pub use crate::rate::RateModel;
use crate::suggest;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

/// How the durable store commits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Durability {
    /// Every commit is fsynced.
    Immediate,
    /// Commits without fsync, plus an fsynced commit at least every `flushIntervalMs`.
    Group,
}

/// How a note's text is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NoteStyle {
    /// `poc` for the built-in pack or with `learn: false` (where the PoC is asked for),
    /// `plain` for a repository's or a mined pack.
    #[default]
    Auto,
    /// The PoC's byte-stable note: a header with the family's name and kappa, one bare path
    /// per companion.
    Poc,
    /// Written for its reader: what the change is, and per companion what to do and why.
    Plain,
}

impl NoteStyle {
    /// The style a note is written in, for a pack that is (or is not) the built-in one.
    pub fn resolve(self, learn: bool, builtin_pack: bool) -> NoteStyle {
        match self {
            NoteStyle::Auto if builtin_pack || !learn => NoteStyle::Poc,
            NoteStyle::Auto => NoteStyle::Plain,
            chosen => chosen,
        }
    }
}

/// The validated config. Field names are camelCase in files and patches.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Config {
    /// Whether the ledger is appended to `logFile`.
    pub log: bool,
    /// The ledger file (`~` is expanded by the host).
    pub log_file: String,
    /// The master switch.
    pub enabled: bool,
    /// The default confidence gate (a family's pack row may override it).
    pub threshold: f64,
    /// The judged tools.
    pub tools: Vec<String>,
    /// At most this many companions in one note.
    pub max_companions: usize,
    /// Hard cap on the note text, in characters.
    pub max_note_chars: usize,
    /// No second note for one family within this many judged calls of an agent.
    pub cooldown_calls: u32,
    /// At most this many notes per turn and agent.
    pub max_notes_per_turn: u32,
    /// Path components that make a call ignored.
    pub exclude: Vec<String>,
    /// The learning layer's master switch.
    pub learn: bool,
    /// The follow-through window, in judged in-workspace calls.
    pub learn_window: u32,
    /// The enabled heuristics.
    pub heuristics: Vec<Heuristic>,
    /// The weight table.
    pub weights: Table,
    /// The bound of the memory fallback (rate rows and decision ring).
    pub store_limit: usize,
    /// The most agents whose per-turn state and open windows are kept; past it the agents
    /// seen longest ago are forgotten, their windows closed as abandoned.
    pub max_agents: usize,
    /// The redb file (`~` is expanded by the host).
    pub store_path: String,
    /// How the durable store commits.
    pub durability: Durability,
    /// In `group` durability, the longest time between fsynced commits.
    pub flush_interval_ms: u64,
    /// The bound of the durable decision history.
    pub ring_capacity: u64,
    /// The rate move of an accept.
    pub accept_bonus: f64,
    /// The rate move of a soft reject (subtracted).
    pub reject_penalty: f64,
    /// How rates are read from rows.
    pub rate_model: RateModel,
    /// Under the evidence model: a companion whose rate is below this is left out.
    pub prune_below: f64,
    /// Under the evidence model: how strongly a companion's rate scales its score.
    pub evidence_exponent: f64,
    /// Under the evidence model, once a family has evidence: the gate on the probability that
    /// its note is followed (`threshold` keeps gating the PoC's kappa until then).
    pub follow_threshold: f64,
    /// The same gate for a note the pack's own gate would not make (the PoC's kappa of the
    /// companions it names under `threshold`).
    pub unprompted_threshold: f64,
    /// The evidence a change boundary's claim (this companion is missing) must clear for the
    /// Stop reminder to hold the agent up on it; a weaker claim only informs.
    pub block_bar: f64,
    /// Zero-config: a call in a git work tree with no pack signature and no pack file uses a
    /// pack mined from the repository's history, when the host plugged in a miner. Off, such
    /// a call is foreign as before.
    pub zero_config: bool,
    /// How a note's text is written.
    pub note_style: NoteStyle,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            log: true,
            log_file: "~/.dsh/playform/hook-dsh-doc-suggester.log".into(),
            enabled: true,
            threshold: 0.75,
            tools: ["read", "grep", "glob", "write", "edit", "raw-write"]
                .map(String::from)
                .to_vec(),
            max_companions: 7,
            max_note_chars: 1200,
            cooldown_calls: 6,
            max_notes_per_turn: 3,
            exclude: ["node_modules", "Target", ".git", "dist"]
                .map(String::from)
                .to_vec(),
            learn: true,
            learn_window: 3,
            heuristics: Heuristic::ALL.to_vec(),
            weights: Table::DEFAULT_WEIGHTS,
            store_limit: 512,
            max_agents: 4096,
            store_path: "~/.dsh/playform/hook-dsh-doc-suggester.redb".into(),
            durability: Durability::Group,
            flush_interval_ms: 1000,
            ring_capacity: 65_536,
            accept_bonus: 0.1,
            reject_penalty: 0.2,
            rate_model: RateModel::Evidence,
            prune_below: 0.15,
            evidence_exponent: 2.0,
            follow_threshold: 0.55,
            unprompted_threshold: 0.75,
            block_bar: 0.7,
            zero_config: true,
            note_style: NoteStyle::Auto,
        }
    }
}

/// The largest `evidenceExponent` accepted: past it one companion's rate swamps every prior.
pub const MAX_EVIDENCE_EXPONENT: f64 = 4.0;

/// The smallest `maxNoteChars` accepted: room for the label and one short companion line.
pub const MIN_NOTE_CHARS: u64 = 80;

/// One problem with one config field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldProblem {
    /// The field as written in the file (`weights.scope`, `tools[2]`).
    pub field: String,
    /// What is wrong, for a person.
    pub problem: String,
}

/// Every problem found in one config file or patch.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ConfigError {
    /// Where the config came from (a file path, `patch`, …).
    pub source_name: String,
    /// Every problem, in field order.
    pub problems: Vec<FieldProblem>,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid config in {} ({} problem{}):",
            self.source_name,
            self.problems.len(),
            if self.problems.len() == 1 { "" } else { "s" }
        )?;
        for (i, p) in self.problems.iter().enumerate() {
            let sep = if i == 0 { "" } else { ";" };
            write!(f, "{sep} {}: {}", p.field, p.problem)?;
        }
        Ok(())
    }
}

impl Config {
    /// The config that results from applying `patch` to `self`, or every problem of the patch.
    pub fn patched(&self, patch: &Value, source_name: &str) -> Result<Config, ConfigError> {
        let mut next = self.clone();
        let mut problems = Vec::new();
        match patch.as_object() {
            Some(map) => next.apply(map, &mut problems),
            None => problems.push(FieldProblem {
                field: "(root)".into(),
                problem: format!("expected a JSON object, found {}", kind_of(patch)),
            }),
        }
        if problems.is_empty() {
            Ok(next)
        } else {
            Err(ConfigError {
                source_name: source_name.into(),
                problems,
            })
        }
    }

    /// Parses a config file's text (a patch over the defaults).
    pub fn from_json_str(text: &str, source_name: &str) -> Result<Config, ConfigError> {
        let value: Value = serde_json::from_str(text).map_err(|e| ConfigError {
            source_name: source_name.into(),
            problems: vec![FieldProblem {
                field: "(file)".into(),
                problem: format!("not valid JSON: {e}"),
            }],
        })?;
        Config::default().patched(&value, source_name)
    }

    /// The effective weight table: disabled heuristics weigh 0.
    pub fn effective_weights(&self) -> Table {
        self.weights.effective(&self.heuristics)
    }

    fn apply(&mut self, map: &Map<String, Value>, out: &mut Vec<FieldProblem>) {
        for (field, value) in map {
            let mut p = Check { field, out };
            match field.as_str() {
                "log" => p.boolean(value, &mut self.log),
                "logFile" => p.text(value, &mut self.log_file),
                "enabled" => p.boolean(value, &mut self.enabled),
                "threshold" => p.unit(value, &mut self.threshold),
                "tools" => p.names(value, &mut self.tools),
                "maxCompanions" => p.count(value, 1, 64, &mut self.max_companions),
                "maxNoteChars" => p.count(value, MIN_NOTE_CHARS, 1 << 20, &mut self.max_note_chars),
                "cooldownCalls" => p.count(value, 0, 1 << 20, &mut self.cooldown_calls),
                "maxNotesPerTurn" => p.count(value, 0, 1 << 20, &mut self.max_notes_per_turn),
                "exclude" => p.names(value, &mut self.exclude),
                "learn" => p.boolean(value, &mut self.learn),
                "learnWindow" => p.count(value, 1, 1 << 20, &mut self.learn_window),
                "heuristics" => p.heuristics(value, &mut self.heuristics),
                "weights" => p.weights(value, &mut self.weights),
                "storeLimit" => p.count(value, 1, 1 << 24, &mut self.store_limit),
                "maxAgents" => p.count(value, 1, 1 << 24, &mut self.max_agents),
                "storePath" => p.text(value, &mut self.store_path),
                "durability" => p.choice(value, &mut self.durability),
                "flushIntervalMs" => p.count(value, 1, 60_000, &mut self.flush_interval_ms),
                "ringCapacity" => p.count(value, 1, 1 << 32, &mut self.ring_capacity),
                "acceptBonus" => p.unit(value, &mut self.accept_bonus),
                "rejectPenalty" => p.unit(value, &mut self.reject_penalty),
                "rateModel" => p.choice(value, &mut self.rate_model),
                "pruneBelow" => p.prune_bound(value, &mut self.prune_below),
                "evidenceExponent" => p.number_in(
                    value,
                    0.0,
                    MAX_EVIDENCE_EXPONENT,
                    &mut self.evidence_exponent,
                ),
                "followThreshold" => p.unit(value, &mut self.follow_threshold),
                "unpromptedThreshold" => p.unit(value, &mut self.unprompted_threshold),
                "blockBar" => p.unit(value, &mut self.block_bar),
                "zeroConfig" => p.boolean(value, &mut self.zero_config),
                "noteStyle" => p.choice(value, &mut self.note_style),
                _ => p.problem(suggest::unknown("unknown field", field, &FIELDS)),
            }
        }
    }
}

/// Every config field, as a file or patch writes it.
pub const FIELDS: [&str; 30] = [
    "log",
    "logFile",
    "enabled",
    "threshold",
    "tools",
    "maxCompanions",
    "maxNoteChars",
    "cooldownCalls",
    "maxNotesPerTurn",
    "exclude",
    "learn",
    "learnWindow",
    "heuristics",
    "weights",
    "storeLimit",
    "maxAgents",
    "storePath",
    "durability",
    "flushIntervalMs",
    "ringCapacity",
    "acceptBonus",
    "rejectPenalty",
    "rateModel",
    "pruneBelow",
    "evidenceExponent",
    "followThreshold",
    "unpromptedThreshold",
    "blockBar",
    "zeroConfig",
    "noteStyle",
];

/// The heuristics' names, as configs write them.
fn heuristic_names() -> [&'static str; 6] {
    Heuristic::ALL.map(Heuristic::name)
}

/// The JSON type of a value, as error messages name it ("a string", "an array", …).
pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Checks one field's value and writes it to its slot only when it is valid.
struct Check<'a> {
    field: &'a str,
    out: &'a mut Vec<FieldProblem>,
}

impl Check<'_> {
    fn problem(&mut self, problem: String) {
        self.problem_at(self.field.to_string(), problem);
    }

    fn problem_at(&mut self, field: String, problem: String) {
        self.out.push(FieldProblem { field, problem });
    }

    fn expected(&mut self, what: &str, value: &Value) {
        self.problem(format!("expected {what}, found {}", kind_of(value)));
    }

    fn boolean(&mut self, value: &Value, slot: &mut bool) {
        match value.as_bool() {
            Some(b) => *slot = b,
            None => self.expected("a boolean", value),
        }
    }

    fn text(&mut self, value: &Value, slot: &mut String) {
        match value.as_str() {
            Some(s) if !s.is_empty() && !s.contains('\0') => *slot = s.to_string(),
            Some(_) => self.problem("must be a non-empty string without NUL".into()),
            None => self.expected("a string", value),
        }
    }

    fn unit(&mut self, value: &Value, slot: &mut f64) {
        match value.as_f64() {
            Some(x) if (0.0..=1.0).contains(&x) => *slot = x,
            Some(x) => self.problem(format!("{x} is outside 0..1")),
            None => self.expected("a number in 0..1", value),
        }
    }

    /// `pruneBelow`: above the neutral 1/3 it would leave out companions nobody has seen yet,
    /// and a fresh store's notes would no longer be the PoC's.
    fn prune_bound(&mut self, value: &Value, slot: &mut f64) {
        match value.as_f64() {
            Some(x) if (0.0..=crate::rate::NEUTRAL).contains(&x) => *slot = x,
            Some(x) => self.problem(format!(
                "{x} is outside 0..1/3 (a companion with no evidence is rated 1/3)"
            )),
            None => self.expected("a number in 0..1/3", value),
        }
    }

    fn number_in(&mut self, value: &Value, min: f64, max: f64, slot: &mut f64) {
        match value.as_f64() {
            Some(x) if (min..=max).contains(&x) => *slot = x,
            Some(x) => self.problem(format!("{x} is outside {min}..={max}")),
            None => self.expected(&format!("a number in {min}..={max}"), value),
        }
    }

    fn count<T: TryFrom<u64>>(&mut self, value: &Value, min: u64, max: u64, slot: &mut T) {
        match value.as_u64() {
            Some(n) if (min..=max).contains(&n) => match T::try_from(n) {
                Ok(v) => *slot = v,
                Err(_) => self.problem(format!("{n} does not fit this platform")),
            },
            Some(n) => self.problem(format!("{n} is outside {min}..={max}")),
            None => self.expected(&format!("a whole number in {min}..={max}"), value),
        }
    }

    fn names(&mut self, value: &Value, slot: &mut Vec<String>) {
        let Some(items) = value.as_array() else {
            return self.expected("an array of strings", value);
        };
        let before = self.out.len();
        let mut names = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            match item.as_str() {
                Some(s) if !s.is_empty() && !s.contains(['/', '\0']) => names.push(s.to_string()),
                Some(_) => self.problem_at(
                    format!("{}[{i}]", self.field),
                    "must be a non-empty name without '/' or NUL".into(),
                ),
                None => self.problem_at(
                    format!("{}[{i}]", self.field),
                    format!("expected a string, found {}", kind_of(item)),
                ),
            }
        }
        if self.out.len() == before {
            *slot = names;
        }
    }

    fn heuristics(&mut self, value: &Value, slot: &mut Vec<Heuristic>) {
        let Some(items) = value.as_array() else {
            return self.expected("an array of heuristic names", value);
        };
        let before = self.out.len();
        let mut enabled = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let at = format!("heuristics[{i}]");
            match item.as_str().map(|s| (s, Heuristic::from_name(s))) {
                Some((_, Some(h))) if enabled.contains(&h) => {
                    self.problem_at(at, format!("{h} is listed twice"))
                }
                Some((_, Some(h))) => enabled.push(h),
                Some((s, None)) => self.problem_at(
                    at,
                    suggest::unknown(
                        &format!(
                            "unknown heuristic {s:?} (known: scope, graph, prior, literal, history, accept)"
                        ),
                        s,
                        &heuristic_names(),
                    ),
                ),
                None => self.problem_at(at, format!("expected a string, found {}", kind_of(item))),
            }
        }
        if self.out.len() == before {
            *slot = enabled;
        }
    }

    fn weights(&mut self, value: &Value, slot: &mut Table) {
        let Some(map) = value.as_object() else {
            return self.expected("an object of heuristic weights", value);
        };
        let before = self.out.len();
        // A name missing from the patch falls back to its default weight.
        let mut table = Table::DEFAULT_WEIGHTS;
        for (name, w) in map {
            let at = format!("weights.{name}");
            let Some(h) = Heuristic::from_name(name) else {
                self.problem_at(
                    at,
                    suggest::unknown("unknown heuristic", name, &heuristic_names()),
                );
                continue;
            };
            match w.as_f64() {
                Some(x) if (0.0..=1.0).contains(&x) => table.set(h, x),
                Some(x) => self.problem_at(at, format!("{x} is outside 0..1")),
                None => self.problem_at(at, format!("expected a number, found {}", kind_of(w))),
            }
        }
        if self.out.len() == before {
            *slot = table;
        }
    }

    fn choice<T: for<'de> Deserialize<'de>>(&mut self, value: &Value, slot: &mut T) {
        match T::deserialize(value) {
            Ok(v) => *slot = v,
            Err(e) => self.problem(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn problems(patch: Value) -> Vec<String> {
        match Config::default().patched(&patch, "test") {
            Ok(_) => vec![],
            Err(e) => e
                .problems
                .into_iter()
                .map(|p| format!("{}: {}", p.field, p.problem))
                .collect(),
        }
    }

    #[test]
    fn defaults_match_the_poc() {
        let c = Config::default();
        assert_eq!(c.threshold, 0.75);
        assert_eq!(c.max_companions, 7);
        assert_eq!(c.max_note_chars, 1200);
        assert_eq!(c.cooldown_calls, 6);
        assert_eq!(c.max_notes_per_turn, 3);
        assert_eq!(c.learn_window, 3);
        assert_eq!(c.store_limit, 512);
        assert_eq!(c.tools.join(","), "read,grep,glob,write,edit,raw-write");
        assert_eq!(c.exclude.join(","), "node_modules,Target,.git,dist");
        assert_eq!(c.weights, Table::DEFAULT_WEIGHTS);
        assert!(c.zero_config);
    }

    #[test]
    fn note_style_is_chosen_by_pack_unless_set() {
        let c = Config::default();
        assert_eq!(c.note_style, NoteStyle::Auto);
        assert_eq!(c.note_style.resolve(true, true), NoteStyle::Poc);
        assert_eq!(c.note_style.resolve(false, false), NoteStyle::Poc);
        assert_eq!(c.note_style.resolve(true, false), NoteStyle::Plain);
        let plain = c.patched(&json!({"noteStyle": "plain"}), "t").unwrap();
        assert_eq!(plain.note_style.resolve(false, true), NoteStyle::Plain);
        let poc = c.patched(&json!({"noteStyle": "poc"}), "t").unwrap();
        assert_eq!(poc.note_style.resolve(true, false), NoteStyle::Poc);
        let wrong = problems(json!({"noteStyle": "fancy"}));
        assert_eq!(wrong.len(), 1);
        assert!(
            wrong[0].starts_with("noteStyle: unknown variant `fancy`"),
            "{wrong:?}"
        );
    }

    #[test]
    fn zero_config_is_a_switch() {
        let c = Config::default()
            .patched(&json!({"zeroConfig": false}), "t")
            .expect("valid");
        assert!(!c.zero_config);
        assert_eq!(
            problems(json!({"zeroConfig": "no"})),
            ["zeroConfig: expected a boolean, found a string"]
        );
        let text = serde_json::to_value(&c).expect("serialises");
        assert_eq!(text["zeroConfig"], json!(false));
    }

    #[test]
    fn the_evidence_settings_are_checked() {
        let got = problems(json!({
            "pruneBelow": 0.4,
            "evidenceExponent": 5,
            "rateModel": "magic",
        }));
        assert_eq!(
            got,
            vec![
                "evidenceExponent: 5 is outside 0..=4",
                "pruneBelow: 0.4 is outside 0..1/3 (a companion with no evidence is rated 1/3)",
                "rateModel: unknown variant `magic`, expected one of `step`, `beta`, `evidence`",
            ]
        );
        let c = Config::default()
            .patched(
                &json!({"pruneBelow": 0.2, "evidenceExponent": 1.5, "rateModel": "step"}),
                "t",
            )
            .expect("valid");
        assert_eq!((c.prune_below, c.evidence_exponent), (0.2, 1.5));
        assert_eq!(c.rate_model, RateModel::Step);
        assert_eq!(Config::default().rate_model, RateModel::Evidence);
    }

    #[test]
    fn every_problem_is_listed_at_once() {
        let got = problems(json!({
            "threshold": 1.5,
            "learnWindow": 0,
            "weights": {"scope": 2, "bogus": 0.1},
            "heuristics": ["scope", "magic"],
            "tools": "read",
            "colour": true,
            "durability": "sometimes",
        }));
        assert_eq!(
            got,
            vec![
                "colour: unknown field",
                "durability: unknown variant `sometimes`, expected `immediate` or `group`",
                "heuristics[1]: unknown heuristic \"magic\" (known: scope, graph, prior, literal, history, accept)",
                "learnWindow: 0 is outside 1..=1048576",
                "threshold: 1.5 is outside 0..1",
                "tools: expected an array of strings, found a string",
                "weights.bogus: unknown heuristic",
                "weights.scope: 2 is outside 0..1",
            ]
        );
    }

    #[test]
    fn a_bad_patch_changes_nothing() {
        let before = Config::default();
        let err = before.patched(&json!({"threshold": 0.5, "maxCompanions": "7"}), "patch");
        assert!(err.is_err());
        assert_eq!(before, Config::default());
    }

    #[test]
    fn missing_weight_names_fall_back_to_defaults() {
        let c = Config::default()
            .patched(&json!({"weights": {"graph": 0.5}}), "p")
            .expect("valid patch");
        assert_eq!(c.weights.0, [0.35, 0.5, 0.25, 0.25, 0.15, 0.0]);
    }

    #[test]
    fn every_field_is_listed_for_suggestions() {
        let value = serde_json::to_value(Config::default()).expect("serialises");
        let mut written: Vec<&str> = value
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        let mut listed = FIELDS.to_vec();
        written.sort_unstable();
        listed.sort_unstable();
        assert_eq!(written, listed);
        // Each is a field the patch knows (null is a wrong type, never an unknown field).
        for field in FIELDS {
            let got = problems(json!({ field: null }));
            assert!(
                !got.iter().any(|p| p.contains("unknown field")),
                "{field}: {got:?}"
            );
        }
    }

    #[test]
    fn a_misspelt_name_gets_a_suggestion() {
        let got = problems(json!({
            "durabilty": "group",
            "storepath": "x",
            "weights": {"scop": 0.1},
            "heuristics": ["literl"],
            "colour": 1,
        }));
        assert_eq!(
            got,
            vec![
                "colour: unknown field",
                "durabilty: unknown field (did you mean `durability`?)",
                "heuristics[0]: unknown heuristic \"literl\" (known: scope, graph, prior, literal, history, accept) (did you mean `literal`?)",
                "storepath: unknown field (did you mean `storePath`?)",
                "weights.scop: unknown heuristic (did you mean `scope`?)",
            ]
        );
    }

    #[test]
    fn error_display_names_source_and_fields() {
        let err = Config::from_json_str(r#"{"learn": 1}"#, "cfg.json").expect_err("bad type");
        assert_eq!(
            err.to_string(),
            "invalid config in cfg.json (1 problem): learn: expected a boolean, found a number"
        );
        let err = Config::from_json_str(r#"{"learn": 1, "tools": 2}"#, "cfg.json")
            .expect_err("bad types");
        assert_eq!(
            err.to_string(),
            "invalid config in cfg.json (2 problems): learn: expected a boolean, found a number; \
             tools: expected an array of strings, found a number"
        );
        let err = Config::from_json_str("{", "cfg.json").expect_err("bad json");
        assert!(
            err.to_string()
                .starts_with("invalid config in cfg.json (1 problem): (file): not valid JSON")
        );
    }
}
