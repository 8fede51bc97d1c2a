//! End-to-end tests of the `docsuggest` binary: each spawns the real executable with a
//! temporary HOME and store.

mod backtest;
mod backtest_history;
mod bootstrap;
mod boundary_learns;
mod check_change;
mod check_change_hostile;
mod commands;
mod common;
#[cfg(unix)]
mod daemon;
mod damaged;
mod deep;
mod demo;
mod dir_capture;
mod fleet;
mod fleet_copies;
mod fleet_hostile;
mod fleet_scale;
#[cfg(target_os = "linux")]
mod full_disk;
#[cfg(unix)]
mod harnesses;
mod held;
#[cfg(unix)]
mod hooks;
#[cfg(unix)]
mod hostile;
mod identity;
mod init;
#[cfg(unix)]
mod installer;
#[cfg(unix)]
mod installer_hostile;
#[cfg(unix)]
mod mcp;
#[cfg(unix)]
mod plugins;
mod protocol;
mod readonly;
mod replay;
mod report;
#[cfg(unix)]
mod status;
mod transfer;
mod usability;
#[cfg(unix)]
mod zero_config;
