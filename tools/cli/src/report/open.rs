//! `--open`: the written page handed to the desktop's opener (`xdg-open`, macOS's `open`),
//! which opens it in the default browser.

use std::path::Path;
use std::process::{Command, Stdio};

/// The program that opens a file in the desktop's default application.
const OPENER: &str = if cfg!(target_os = "macos") {
    "open"
} else {
    "xdg-open"
};

/// Asks the desktop to open `file`; the answer says why it could not. The path is made
/// absolute first, so it can never read as an option to the opener.
pub fn open(file: &Path) -> Result<(), String> {
    let absolute = std::path::absolute(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let mut child = Command::new(OPENER)
        .arg(&absolute)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            format!(
                "cannot run {OPENER}: {e}; open {} in a browser",
                absolute.display()
            )
        })?;
    // Reaped on a thread of its own: an opener may stay until the browser it started exits,
    // and the command does not wait for that.
    std::thread::spawn(move || child.wait());
    Ok(())
}
