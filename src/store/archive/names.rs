//! A member's name made a path inside the folder it is unpacked into, or refused: a name
//! that is absolute or climbs out with `..` never leaves the archive's folder.

use std::path::{Component, Path, PathBuf};

/// The relative path member `name` is unpacked to (its `/`-separated parts, `.` parts left
/// out); `None` when it is absolute, climbs with `..`, or names nothing.
pub(super) fn inside(name: &str) -> Option<PathBuf> {
    let name = name.replace('\\', "/");
    let path = Path::new(&name);
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_leave_the_archive_are_refused() {
        assert_eq!(inside("a/b.pgn"), Some(PathBuf::from("a/b.pgn")));
        assert_eq!(inside("./a//b.pgn"), Some(PathBuf::from("a/b.pgn")));
        assert_eq!(inside("a\\b.pgn"), Some(PathBuf::from("a/b.pgn")));
        for bad in [
            "../x.pgn",
            "a/../../x.pgn",
            "a/../x.pgn",
            "/etc/x.pgn",
            "",
            ".",
        ] {
            assert_eq!(inside(bad), None, "{bad}");
        }
    }
}
