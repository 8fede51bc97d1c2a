//! The commands that run an engine: `serve` (stdio or a socket), `replay` and `demo`.

use super::output::{Json, emit};
use anyhow::Result;
use clap::Args;
use docsuggest_cli::demo::{self, DemoOptions};
use docsuggest_cli::replay::{self, ReplayOptions};
use docsuggest_host::host::{self, HostOptions, StoreChoice};
use docsuggest_host::protocol::{self, Dispatcher, socket::DEFAULT_MAX_CONNECTIONS};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args)]
pub struct EngineArgs {
    /// The redb store file [default: the config's storePath,
    /// ~/.dsh/playform/hook-dsh-doc-suggester.redb].
    #[arg(long, value_name = "PATH", conflicts_with = "memory")]
    store: Option<PathBuf>,
    /// Keep learned state in memory only (lost at exit).
    #[arg(long)]
    memory: bool,
    /// A JSON config file (camelCase fields, a patch over the defaults).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

impl EngineArgs {
    fn host_options(&self, multi_process: bool) -> HostOptions {
        let store = match (&self.store, self.memory) {
            (_, true) => StoreChoice::Memory,
            (Some(path), false) => StoreChoice::File(path.clone()),
            (None, false) => StoreChoice::Configured,
        };
        HostOptions {
            store,
            config_file: self.config.clone(),
            multi_process,
        }
    }
}

#[derive(Args)]
pub struct ServeArgs {
    #[command(flatten)]
    engine: EngineArgs,
    /// Share the store file with other processes (every commit fsynced).
    #[arg(long, conflicts_with = "memory")]
    multi_process: bool,
    /// Serve many clients on this Unix socket (created owner-only) instead of stdio.
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// With --socket: connections served at once; one more is refused with an error answer.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CONNECTIONS as u64, requires = "socket",
          value_parser = clap::value_parser!(u64).range(1..=4096))]
    max_connections: u64,
    /// With --socket: stop after this many seconds without a request (0: never).
    #[arg(long, value_name = "SECS", default_value_t = 0, requires = "socket")]
    idle_timeout: u64,
}

#[derive(Args)]
pub struct ReplayArgs {
    /// The trace file: one request per line, as `serve` reads them.
    trace: PathBuf,
    /// The cwd of requests that carry none.
    #[arg(long, value_name = "DIR")]
    workspace: Option<PathBuf>,
    #[command(flatten)]
    engine: EngineArgs,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
    /// Send the trace to the server on this socket instead of starting an engine.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["store", "memory", "config"])]
    socket: Option<PathBuf>,
}

#[derive(Args)]
pub struct DemoArgs {
    /// The redb store file [default: ~/.dsh/playform/demo.redb, the demo's own: the store the
    /// hooks learn in is left alone].
    #[arg(long, value_name = "PATH")]
    store: Option<PathBuf>,
    /// Where to build the sample workspace (recreated on every run).
    #[arg(long, value_name = "DIR", default_value = demo::DEFAULT_DIR)]
    dir: PathBuf,
    /// The seed of the simulated session.
    #[arg(long, value_name = "N", default_value_t = demo::DEFAULT_SEED)]
    seed: u64,
    /// Judge requests in the simulated session.
    #[arg(long, value_name = "N", default_value_t = demo::DEFAULT_CALLS)]
    calls: usize,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// `docsuggest serve`.
pub fn serve(args: &ServeArgs) -> Result<()> {
    // A live server on the socket is refused before the store is opened, which it holds.
    let bound = match &args.socket {
        Some(path) => Some(protocol::socket::bind(path)?),
        None => None,
    };
    let host = host::build(&args.engine.host_options(args.multi_process))?;
    for line in &host.startup {
        tracing::info!("{line}");
    }
    let dispatcher = Dispatcher::for_host(host);
    let ending = match bound {
        Some(bound) => {
            let max = usize::try_from(args.max_connections).unwrap_or(usize::MAX);
            tracing::info!(socket = %bound.path().display(), "serving");
            let idle = (args.idle_timeout > 0).then(|| Duration::from_secs(args.idle_timeout));
            protocol::socket::serve_socket(dispatcher, bound, max, idle)?
        }
        None => {
            let mut dispatcher = dispatcher;
            protocol::serve_stdio(&mut dispatcher)?
        }
    };
    tracing::info!(?ending, "stopped");
    if ending == protocol::Ending::Panicked {
        anyhow::bail!(
            "a request panicked inside the engine; it was answered, what was durable is \
             flushed, and the server stopped so the next start begins clean"
        );
    }
    Ok(())
}

/// `docsuggest replay`.
pub fn replay(args: &ReplayArgs) -> Result<()> {
    let options = ReplayOptions {
        trace: args.trace.clone(),
        workspace: args.workspace.clone(),
        host: args.engine.host_options(false),
    };
    let summary = match &args.socket {
        Some(socket) => replay::replay_socket(socket, &options)?,
        None => replay::replay(&options)?,
    };
    let text = format!("replay of {}\n{summary}\n", args.trace.display());
    emit(args.json.then_some(Json::Pretty), &summary, &text)
}

/// `docsuggest demo`.
pub fn demo(args: &DemoArgs) -> Result<()> {
    let report = demo::run(&DemoOptions {
        store: args.store.clone(),
        dir: Some(args.dir.clone()),
        seed: args.seed,
        calls: args.calls,
    })?;
    emit(
        args.json.then_some(Json::Pretty),
        &report,
        &format!("{report}\n"),
    )
}
