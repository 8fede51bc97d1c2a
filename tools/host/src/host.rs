//! Building an engine from command-line options: the config file, the store, the startup
//! ledger.
//!
//! The store is always a [`FailOpenStore`]: an embedded redb file when one is named (or the
//! config's `storePath`), the bounded memory store with `--memory`. A redb file that cannot be
//! opened never stops the host: the engine starts on memory and the startup ledger carries
//! `doc-suggester: store unavailable (<reason>), using memory`.

use crate::home;
use docsuggest_engine::probe_cache::CachingProbe;
use docsuggest_engine::{BoxedStore, Engine};
use docsuggest_schema::{Config, ConfigError};
use docsuggest_store::{FailOpenStore, StoreOptions};
use std::path::{Path, PathBuf};

/// Which store the engine gets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum StoreChoice {
    /// The config's `storePath`.
    #[default]
    Configured,
    /// This redb file (`~` already expanded or not: it is expanded again harmlessly).
    File(PathBuf),
    /// The bounded memory store only; nothing survives the process.
    Memory,
}

/// What a host is built from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostOptions {
    /// The store.
    pub store: StoreChoice,
    /// A JSON config file (a patch over the defaults).
    pub config_file: Option<PathBuf>,
    /// Open the redb file in multi-process mode (every commit fsynced).
    pub multi_process: bool,
}

/// A config file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    /// The file could not be read.
    #[error("cannot read config file {file}: {source}")]
    ReadConfig {
        /// The file.
        file: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file was read but is not a valid config; names the file and every field.
    #[error(transparent)]
    Config(#[from] ConfigError),
}

/// The engine a host runs: the OS file system behind the engine's caching probe, since a
/// host judges many calls over the same few directories.
pub type HostEngine = Engine<CachingProbe>;

/// The engine of a host, with what it said at startup.
pub struct Host {
    /// The engine.
    pub engine: HostEngine,
    /// The startup ledger: `activated …` or `disabled …`, then any store degradation.
    pub startup: Vec<String>,
    /// The redb file in use or attempted (`None` with `--memory`).
    pub store_path: Option<PathBuf>,
    /// The background miner of the zero-config path (hosts built by [`start`]).
    pub miner: Option<crate::mining::BackgroundMiner>,
}

/// Reads a config file (a patch over the defaults), or the defaults without one.
pub fn load_config(file: Option<&Path>) -> Result<Config, HostError> {
    let Some(file) = file else {
        return Ok(Config::default());
    };
    let name = file.display().to_string();
    let text = std::fs::read_to_string(file).map_err(|source| HostError::ReadConfig {
        file: name.clone(),
        source,
    })?;
    Ok(Config::from_json_str(&text, &name)?)
}

/// The redb file a choice names under `config` (`None` for memory).
pub fn store_path(choice: &StoreChoice, config: &Config) -> Option<PathBuf> {
    match choice {
        StoreChoice::Configured => Some(home::expand(&config.store_path)),
        StoreChoice::File(path) => Some(home::expand(&path.to_string_lossy())),
        StoreChoice::Memory => None,
    }
}

/// Builds the engine for `options`: reads the config, opens the store (never failing on
/// it), and answers the startup ledger.
pub fn build(options: &HostOptions) -> Result<Host, HostError> {
    let config = load_config(options.config_file.as_deref())?;
    Ok(start(config, &options.store, options.multi_process))
}

/// Builds the engine for an already validated config.
pub fn start(config: Config, choice: &StoreChoice, multi_process: bool) -> Host {
    let path = store_path(choice, &config);
    let store = match &path {
        Some(path) => {
            let mut options = StoreOptions::from_config(path, &config);
            options.multi_process = multi_process;
            FailOpenStore::open(options, config.store_limit)
        }
        None => FailOpenStore::memory(config.store_limit),
    };
    let mut host = start_on(config, Box::new(store), path);
    // A git work tree without a pack is judged with one mined from its history.
    let miner = crate::mining::BackgroundMiner::new();
    host.engine.set_pack_miner(Box::new(miner.clone()));
    // Workspaces in a git repository are keyed by the repository, whatever its path.
    host.engine
        .set_repo_identifier(Some(crate::mining::repo_identifier()));
    host.miner = Some(miner);
    host
}

/// Builds the engine over a store the caller opened (a backtest's warm start, bootstrap's
/// store opened strictly rather than fail-open); `store_path` is what `hello` reports.
pub fn start_on(config: Config, store: BoxedStore, store_path: Option<PathBuf>) -> Host {
    let mut engine = Engine::new(config, store, CachingProbe::default());
    let startup = engine.startup();
    Host {
        engine,
        startup,
        store_path,
        miner: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use docsuggest_schema::StoreKind;

    #[test]
    fn a_config_file_error_names_the_file_and_every_field() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("cfg.json");
        std::fs::write(&file, r#"{"threshold": 2, "learn": "yes", "bogus": 1}"#).expect("write");
        let err = load_config(Some(&file)).expect_err("invalid");
        let text = err.to_string();
        assert!(text.starts_with(&format!(
            "invalid config in {} (3 problems):",
            file.display()
        )));
        for field in ["threshold:", "learn:", "bogus: unknown field"] {
            assert!(text.contains(field), "{text}");
        }
        let missing = dir.path().join("none.json");
        let err = load_config(Some(&missing)).expect_err("missing");
        assert!(
            err.to_string()
                .starts_with(&format!("cannot read config file {}", missing.display()))
        );
    }

    #[test]
    fn memory_hosts_start_activated_and_expose_contents() {
        let host = start(Config::default(), &StoreChoice::Memory, false);
        assert_eq!(host.store_path, None);
        assert_eq!(host.startup.len(), 1);
        assert!(
            host.startup[0].starts_with("doc-suggester: activated (bundle "),
            "{:?}",
            host.startup
        );
        assert_eq!(host.engine.store().kind(), StoreKind::Memory);
        let rows = host.engine.store().contents().map(|c| c.rate_rows());
        assert!(matches!(rows, Some(Ok(ref r)) if r.is_empty()));
    }

    #[test]
    fn an_unusable_store_file_falls_back_with_a_ledger_line() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("not-a-store.redb");
        std::fs::write(&file, b"this is not a redb file at all, just text").expect("write");
        let host = start(Config::default(), &StoreChoice::File(file.clone()), false);
        assert_eq!(host.engine.store().kind(), StoreKind::Memory);
        assert_eq!(host.startup.len(), 2, "{:?}", host.startup);
        assert!(
            host.startup[1].starts_with("doc-suggester: store unavailable ("),
            "{:?}",
            host.startup
        );
        assert!(host.startup[1].ends_with("), using memory"));
        assert_eq!(host.store_path, Some(file));
    }
}
