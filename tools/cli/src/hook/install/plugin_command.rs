//! The hook command the plugins ship: a POSIX shell line (the harness runs hook commands with
//! `sh -c`) that finds `docsuggest` where its installers put it and runs it, or — installed
//! nowhere — tells the user once per session how to get it, in the harness's own way (a
//! `systemMessage`), and says nothing to the agent.
//!
//! A plugin has no way to install a binary, and a hook that only runs `docsuggest` fails
//! silently on every tool call when it is missing. The places looked in, in order: `PATH`,
//! `cargo install`'s `~/.cargo/bin`, pip's and pipx's `~/.local/bin`, npm's usual global
//! prefixes, then `npm prefix -g` itself (only when nothing else was found: it costs a
//! process). When `docsuggest` is on `PATH` the line costs nothing more than running it
//! (`exec`, no extra process): the lean entry point `docsuggest-hook` installed beside it
//! when it is there, else `docsuggest hook`.

use crate::hook::Harness;

/// Where an installer puts `docsuggest` when it is not on `PATH` (shell words, `$HOME`
/// expanded by the shell).
const PLACES: &[&str] = &[
    "$HOME/.cargo/bin",
    "$HOME/.local/bin",
    "$HOME/.npm-global/bin",
    "$HOME/.local/share/npm/bin",
    "/opt/homebrew/bin",
    "/usr/local/bin",
];

/// What the user is told, once per session, when `docsuggest` is nowhere.
pub const MISSING: &str = "docsuggest is not installed, so its hooks do nothing: install it \
    with `pipx install docsuggest`, `npm install -g docsuggest` or `cargo install --locked \
    --path tools/cli` from its repository, then start a new session.";

/// The plugin's hook command for `harness`.
pub fn plugin_command(harness: Harness) -> String {
    let places = PLACES
        .iter()
        .map(|p| format!("\"{p}/docsuggest\""))
        .collect::<Vec<_>>()
        .join(" ");
    let message = serde_json::json!({ "systemMessage": MISSING }).to_string();
    format!(
        "d=$(command -v docsuggest) || for c in {places} \"$(npm prefix -g 2>/dev/null)/bin/docsuggest\"; \
         do [ -x \"$c\" ] && d=$c && break; done; \
         [ -n \"$d\" ] && {{ l=\"${{d%/*}}/docsuggest-hook\"; [ -x \"$l\" ] && exec \"$l\" --harness {harness}; \
         exec \"$d\" hook --harness {harness}; }}; \
         s=$(head -c 65536 | sed -n 's/.*\"session_id\" *: *\"\\([A-Za-z0-9_.-]*\\)\".*/\\1/p' | head -n 1); \
         m=\"${{TMPDIR:-/tmp}}/docsuggest-missing-$(id -u)-$s\"; \
         [ -e \"$m\" ] || {{ : > \"$m\"; printf '%s\\n' '{message}'; }}; exit 0",
        harness = harness.name(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_holds_no_quote_that_would_end_the_shell_string() {
        assert!(!MISSING.contains('\''));
        for harness in [Harness::ClaudeCode, Harness::Codex] {
            let command = plugin_command(harness);
            assert!(command.contains(&format!("hook --harness {}", harness.name())));
            assert!(command.contains(&format!("\"$l\" --harness {}", harness.name())));
        }
    }
}
