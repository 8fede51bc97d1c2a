//! The page written in place: staged under a random, exclusive name beside the file, then
//! renamed over it, so a reader never sees half a page and nothing outside the named
//! directory is touched.

use super::ReportCommandError;
use std::path::Path;

/// Writes `bytes` to `file`. `default` (the work tree's `.dsh/report.html`): the `.dsh`
/// directory is made when missing, and must be a real directory (a symlink is not followed
/// out of the work tree).
pub(super) fn write(file: &Path, default: bool, bytes: &[u8]) -> Result<(), ReportCommandError> {
    let fail = |reason: String| ReportCommandError::Write {
        file: file.display().to_string(),
        reason,
    };
    let dir = match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if default && !meta.is_dir() => {
            return Err(fail(format!("{} is not a directory", dir.display())));
        }
        Ok(_) => {}
        Err(_) if default => std::fs::create_dir(dir).map_err(|e| fail(e.to_string()))?,
        Err(e) => return Err(fail(format!("{}: {e}", dir.display()))),
    }
    if let Ok(meta) = std::fs::symlink_metadata(file)
        && meta.is_dir()
    {
        return Err(fail("it is a directory".into()));
    }
    // A page to open, not a secret: created as any new file is under the user's umask
    // (0644 under 022), not tempfile's private 0600.
    let mut builder = tempfile::Builder::new();
    builder.prefix(".report-").suffix(".html.tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut temp = builder.tempfile_in(dir).map_err(|e| fail(e.to_string()))?;
    std::io::Write::write_all(&mut temp, bytes).map_err(|e| fail(e.to_string()))?;
    temp.persist(file).map_err(|e| fail(e.error.to_string()))?;
    Ok(())
}
