//! OpenCode's plugin: a file of ours alone under `.opencode/plugins/`, which runs the hook
//! for each tool call and re-prompts once when the change boundary names a missing
//! companion. Installing writes it, uninstalling removes it; a file there that is not ours
//! is never touched.

use serde_json::Value;

/// The first line of the plugin, by which a file there is known to be ours.
pub const MARK: &str = "// docsuggest: companion-file notes for OpenCode.";

/// The plugin's text, running `command` for each event.
pub fn plugin(command: &str) -> String {
    include_str!("opencode.js").replace("__DOCSUGGEST_COMMAND__", &Value::from(command).to_string())
}

/// `text` (`None`: no file) with the plugin for `command` in place.
pub fn installed(text: Option<&str>, command: &str) -> Result<String, String> {
    match text {
        Some(text) if !text.trim().is_empty() && !text.starts_with(MARK) => Err(format!(
            "it is not the plugin this command writes (its first line is not `{MARK}`); move it or remove it first"
        )),
        _ => Ok(plugin(command)),
    }
}

/// `text` without the plugin: nothing when the file is ours, else the file as it is.
pub fn uninstalled(text: &str) -> Option<String> {
    (!text.starts_with(MARK)).then(|| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_runs_the_command_it_was_installed_with_and_only_ours_is_replaced() {
        let command = "'/a b/docsuggest-hook' --harness opencode";
        let text = plugin(command);
        assert!(text.starts_with(MARK), "{text}");
        assert!(
            text.contains(r#"const COMMAND = "'/a b/docsuggest-hook' --harness opencode";"#),
            "{text}"
        );
        assert!(!text.contains("__DOCSUGGEST_COMMAND__"));
        assert_eq!(
            installed(Some(&text), "docsuggest-hook --harness opencode").ok(),
            Some(plugin("docsuggest-hook --harness opencode"))
        );
        assert!(installed(Some("export const Mine = 1;\n"), command).is_err());
        assert_eq!(uninstalled(&text), None);
        assert_eq!(
            uninstalled("export const Mine = 1;\n").as_deref(),
            Some("export const Mine = 1;\n")
        );
    }
}
