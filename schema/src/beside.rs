//! Names of files kept beside another: `<path><suffix>` (`d.sock.pid`, `s.redb.v4.bak`). The
//! suffix is appended to the whole name, unlike `Path::with_extension`, which replaces one.

use std::path::{Path, PathBuf};

/// `path` with `suffix` appended to its last component.
pub fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suffix_goes_after_the_whole_name() {
        assert_eq!(
            beside(Path::new("/a/s.redb"), ".v4.bak"),
            Path::new("/a/s.redb.v4.bak")
        );
        assert_eq!(
            beside(Path::new("d.sock"), ".pid.7.tmp"),
            Path::new("d.sock.pid.7.tmp")
        );
    }
}
