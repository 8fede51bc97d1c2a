//! `~` expansion for the paths a config or a command line names.
//!
//! Only a leading `~` or `~/` is expanded, to `$HOME`; `~user` forms and a missing `HOME` leave
//! the path as written, so the error that follows names exactly what the user typed.

use std::path::{Path, PathBuf};

/// `path` with a leading `~` replaced by the home directory.
pub fn expand(path: &str) -> PathBuf {
    expand_with(path, std::env::var_os("HOME").as_deref().map(Path::new))
}

/// [`expand`] against an explicit home directory (`None`: no expansion).
pub fn expand_with(path: &str, home: Option<&Path>) -> PathBuf {
    let Some(home) = home.filter(|h| !h.as_os_str().is_empty()) else {
        return PathBuf::from(path);
    };
    if path == "~" {
        home.to_path_buf()
    } else if let Some(rest) = path.strip_prefix("~/") {
        home.join(rest)
    } else {
        PathBuf::from(path)
    }
}

/// `path` made absolute against the current directory, without resolving symlinks (the
/// workspace key hashes the path as written, like the engine's own lexical resolution).
pub fn absolute(path: &Path) -> std::io::Result<PathBuf> {
    std::path::absolute(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(path: &str, home: Option<&str>, expect: &str) {
        assert_eq!(
            expand_with(path, home.map(Path::new)),
            PathBuf::from(expect),
            "{path} with HOME={home:?}"
        );
    }

    #[test]
    fn only_a_leading_tilde_expands() {
        check("~/.dsh/x.log", Some("/home/u"), "/home/u/.dsh/x.log");
        check("~", Some("/home/u"), "/home/u");
        check("~other/x", Some("/home/u"), "~other/x");
        check("/abs/~/x", Some("/home/u"), "/abs/~/x");
        check("rel/x", Some("/home/u"), "rel/x");
        check("~/x", None, "~/x");
        check("~/x", Some(""), "~/x");
    }
}
