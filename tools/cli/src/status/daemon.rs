//! The daemon on the hooks' socket (or the one given), probed without starting one, and what
//! it says about a pack it could not mine.

use super::{PackStatus, StatusOptions};
use docsuggest_host::daemon::DaemonState;
use std::path::Path;

/// The daemon on the socket given, else on the hooks' socket.
pub(super) fn probe_daemon(options: &StatusOptions) -> docsuggest_host::daemon::Daemon {
    docsuggest_host::daemon::probe(
        &options
            .socket
            .clone()
            .unwrap_or_else(crate::hook::default_socket),
    )
}

/// A pack the daemon tried to mine and could not: its reason, not "pending" forever.
pub(super) fn mark_mining_failed(
    pack: &mut PackStatus,
    daemon: &docsuggest_host::daemon::Daemon,
    path: &Path,
) {
    if pack.source == "mining-pending"
        && matches!(daemon.state, DaemonState::Running { .. })
        && let Some(reason) = docsuggest_host::daemon::why_unmined(&daemon.socket, path)
    {
        pack.source = "mining-failed";
        pack.error = Some(reason);
    }
}
