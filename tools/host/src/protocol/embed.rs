//! Opening a dispatcher from one JSON object of options, for hosts that embed the engine in
//! their own process (a language binding) instead of running `serve`.
//!
//! The options are the config's fields, camelCase as in a config file, plus `memory: true`
//! for the bounded memory store. The engine is built exactly as `serve` builds it
//! ([`host::start`], then [`Dispatcher::with_startup`]), so a store file that cannot be opened
//! falls back to memory and the startup ledger says so. Requests then go through
//! [`Dispatcher::handle_value`].

use super::dispatch::Dispatcher;
use super::error::RequestError;
use crate::host::{self, StoreChoice};
use docsuggest_schema::config::{FieldProblem, kind_of};
use docsuggest_schema::{Config, ConfigError};
use serde_json::{Map, Value};

/// Where an embedding host's config problems are said to come from.
const SOURCE: &str = "options";

/// The config and store that `options` ask for, or every problem with them
/// ([`RequestError::InvalidConfig`]). `null` means the defaults.
pub fn parse_options(options: &Value) -> Result<(Config, StoreChoice), RequestError> {
    let mut fields = match options {
        Value::Null => Map::new(),
        Value::Object(map) => map.clone(),
        other => {
            return Err(invalid(vec![FieldProblem {
                field: "(root)".into(),
                problem: format!(
                    "expected an object of config fields, found {}",
                    kind_of(other)
                ),
            }]));
        }
    };
    let mut problems = Vec::new();
    let store = match fields.remove("memory") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => StoreChoice::Configured,
        Some(Value::Bool(true)) => StoreChoice::Memory,
        Some(other) => {
            problems.push(FieldProblem {
                field: "memory".into(),
                problem: format!("expected a boolean, found {}", kind_of(&other)),
            });
            StoreChoice::Configured
        }
    };
    match Config::default().patched(&Value::Object(fields), SOURCE) {
        Ok(config) if problems.is_empty() => Ok((config, store)),
        Ok(_) => Err(invalid(problems)),
        Err(e) => {
            // One message for every problem: `memory` is listed with the config's own.
            problems.extend(e.problems);
            Err(invalid(problems))
        }
    }
}

fn invalid(problems: Vec<FieldProblem>) -> RequestError {
    RequestError::InvalidConfig(ConfigError {
        source_name: SOURCE.into(),
        problems,
    })
}

/// A dispatcher over the engine `options` ask for, started as `serve` starts one. It blocks
/// while the store file opens; a file that cannot be opened is not an error (see the module
/// documentation).
pub fn open(options: &Value) -> Result<Dispatcher, RequestError> {
    let (config, store) = parse_options(options)?;
    let host = host::start(config, &store, false);
    Ok(Dispatcher::for_host(host))
}

#[cfg(test)]
mod tests {
    use super::*;
    use docsuggest_schema::StoreKind;
    use serde_json::json;

    fn send<T: Send>(value: T) -> T {
        value
    }

    /// `Ok` renders the store choice and threshold; `Err` renders `code: detail`.
    fn check(options: Value, expect: &str) {
        let got = match parse_options(&options) {
            Ok((config, store)) => format!("{store:?} {}", config.threshold),
            Err(e) => format!("{}: {e}", e.code()),
        };
        assert_eq!(got, expect, "{options}");
    }

    #[test]
    fn options_are_config_fields_plus_memory() {
        check(Value::Null, "Configured 0.75");
        check(json!({"memory": true, "threshold": 0.5}), "Memory 0.5");
        check(json!({"memory": false}), "Configured 0.75");
        check(
            json!({"memory": "yes", "threshold": 2, "bogus": 1}),
            "invalid-config: invalid config in options (3 problems): memory: expected a \
             boolean, found a string; bogus: unknown field; threshold: 2 is outside 0..1",
        );
        check(
            json!([1]),
            "invalid-config: invalid config in options (1 problem): (root): expected an object \
             of config fields, found an array",
        );
    }

    #[test]
    fn an_opened_dispatcher_answers_values_and_moves_between_threads() {
        let dir = tempfile::tempdir().expect("tempdir");
        let options = json!({"memory": true, "log": false});
        let server = open(&options).expect("valid options");
        // A binding opens and closes the store off its event loop, so this must hold.
        let mut server = std::thread::spawn(move || send(server))
            .join()
            .expect("the thread returns");
        assert_eq!(server.startup().len(), 1, "{:?}", server.startup());
        let stats = server
            .handle_value(&json!({"op": "stats"}))
            .expect("stats answers");
        assert_eq!(stats["store"], json!("memory"));
        let judged = server.handle_value(&json!({
            "op": "judge", "agent": "a", "tool": "read", "path": "X.md",
            "cwd": dir.path().display().to_string(),
        }));
        assert_eq!(
            judged.expect("a call outside any workspace is judged"),
            json!({"note": null, "ledger": ["doc-suggester: abstained foreign-workspace 0.00"]})
        );
        let missing = server.handle_value(&json!({"op": "judge", "agent": "a"}));
        assert_eq!(missing.map_err(|e| e.code()), Err("missing-field"));
        let closed = server.handle_value(&json!({"op": "close"}));
        assert_eq!(closed.map_err(|e| e.code()), Ok(json!({"durable": 0})));
        let after = server.handle_value(&json!({"op": "flush"}));
        assert_eq!(after.map_err(|e| e.code()), Err("closed"));
        assert_eq!(server.engine().store().kind(), StoreKind::Memory);
    }
}
