//! Judge latency over `docsuggest serve --socket`, as a harness sees it: the round trip of one
//! request line from a client, with 1 and 8 clients at once, under `group` (the default) and
//! `immediate` durability on redb.
//!
//! `cargo build --release --bin docsuggest && cargo run --release -p docsuggest-bench --bin
//! socket [-- CALLS_PER_CLIENT]`; prints one JSON object per cell. The server binary is
//! `DOCSUGGEST_BIN` or `target/release/docsuggest`.

/// The allocator of every docsuggest binary (see `Cargo.toml`: glibc's arenas make a parallel
/// recompute trim and lock on every page it reads).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use docsuggest_host::client::Client;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const FILES: &[&str] = &[
    "Documentation/ARCHIVE-STYLE.md",
    "Documentation/INDEX.md",
    "Documentation/Plans/X.md",
    "POC-BRIEF.md",
    "CHANGELOG.md",
    "src/main.rs",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let calls: usize = match std::env::args().nth(1) {
        Some(n) => n.parse()?,
        None => 6000,
    };
    let bin = std::env::var_os("DOCSUGGEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/release/docsuggest"));
    if !bin.exists() {
        return Err(format!("no server binary at {}", bin.display()).into());
    }
    for durability in ["group", "immediate"] {
        for clients in [1, 8] {
            let times = cell(&bin, durability, clients, calls)?;
            let (p50, p99) = (percentile(&times, 50.0), percentile(&times, 99.0));
            let row = json!({"durability": durability, "clients": clients,
                "calls": times.len(), "p50_us": p50, "p99_us": p99});
            println!("{row}");
        }
    }
    Ok(())
}

/// One server, `clients` threads, each `calls` judged calls (plan, index, source) with an
/// untimed turn after each cycle; answers every judge's round trip.
fn cell(
    bin: &Path,
    durability: &str,
    clients: usize,
    calls: usize,
) -> Result<Vec<Duration>, Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let ws = dir.path().join("ws");
    for f in FILES {
        let path = ws.join(f);
        std::fs::create_dir_all(path.parent().ok_or("a parent")?)?;
        std::fs::write(path, "")?;
    }
    let config = dir.path().join("config.json");
    std::fs::write(
        &config,
        json!({"durability": durability, "log": false}).to_string(),
    )?;
    let socket = dir.path().join("d.sock");
    let server = Server(
        Command::new(bin)
            .arg("serve")
            .arg("--socket")
            .arg(&socket)
            .arg("--store")
            .arg(dir.path().join("s.redb"))
            .arg("--config")
            .arg(&config)
            .env("HOME", dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()?,
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    while Client::connect(&socket)
        .and_then(|mut c| c.hello())
        .is_err()
    {
        if Instant::now() > deadline {
            return Err("the server never answered".into());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let ws = ws.display().to_string();
    let workers: Vec<_> = (0..clients)
        .map(|i| {
            let socket = socket.clone();
            let ws = ws.clone();
            std::thread::spawn(move || -> Result<Vec<Duration>, String> {
                let mut client = Client::connect(&socket).map_err(|e| e.to_string())?;
                let agent = format!("agent-{i}");
                let cycle = [
                    ("read", "Documentation/Plans/X.md"),
                    ("read", "Documentation/INDEX.md"),
                    ("grep", "src/main.rs"),
                ];
                let warmup = 300;
                let mut times = Vec::with_capacity(calls);
                for n in 0..(calls + warmup) {
                    let (tool, path) = cycle[n % 3];
                    let start = Instant::now();
                    client
                        .judge(&agent, tool, path, Some(&ws))
                        .map_err(|e| e.to_string())?;
                    if n >= warmup {
                        times.push(start.elapsed());
                    }
                    if n % 3 == 2 {
                        client.turn(&agent).map_err(|e| e.to_string())?;
                    }
                }
                Ok(times)
            })
        })
        .collect();
    let mut all = Vec::new();
    for worker in workers {
        all.extend(worker.join().map_err(|_| "a client panicked")??);
    }
    drop(server);
    Ok(all)
}

/// Nearest rank, in microseconds.
fn percentile(times: &[Duration], p: f64) -> f64 {
    let mut micros: Vec<f64> = times.iter().map(|t| t.as_secs_f64() * 1e6).collect();
    micros.sort_by(f64::total_cmp);
    if micros.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * micros.len() as f64).ceil() as usize;
    (micros[rank.clamp(1, micros.len()) - 1] * 100.0).round() / 100.0
}

/// Stops the server when the cell ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
