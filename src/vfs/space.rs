//! What `statfs` (`df MOUNT`) shows: the space of the filesystem that holds the database, as
//! that is the space saves have (a save on a full disk fails with ENOSPC), and one file per
//! game.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;

use super::Vfs;
use crate::collection::naming::NAME_MAX;

/// The answer to `statfs`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FsSpace {
    /// Fragment size: the unit of the block counts.
    pub block_size: u32,
    /// Blocks of the database's filesystem.
    pub blocks: u64,
    /// Free blocks.
    pub free: u64,
    /// Free blocks for an unprivileged user.
    pub available: u64,
    /// Files: one per game.
    pub files: u64,
    /// Longest file name.
    pub name_max: u32,
}

impl Vfs {
    /// The space of the database's filesystem (all zero when it cannot be asked), and the
    /// number of games as the number of files.
    pub fn statfs(&self) -> FsSpace {
        let mut space = FsSpace {
            block_size: 4096,
            files: u64::from(self.coll.count()),
            name_max: NAME_MAX as u32,
            ..FsSpace::default()
        };
        let info = self.coll.info();
        let Some(dir) = info.files.first().and_then(|f| f.parent()) else {
            return space;
        };
        let dir = if dir.as_os_str().is_empty() {
            std::path::Path::new(".")
        } else {
            dir
        };
        let Ok(path) = CString::new(dir.as_os_str().as_bytes()) else {
            return space;
        };
        // SAFETY: statvfs is plain old data, for which all-zero bytes are a valid value.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        // SAFETY: the path is NUL-terminated and outlives the call; statvfs only writes into
        // `st`, which is a valid, exclusively borrowed struct of the type it expects.
        if unsafe { libc::statvfs(path.as_ptr(), &mut st) } == 0 {
            space.block_size = st.f_frsize as u32;
            space.blocks = st.f_blocks;
            space.free = st.f_bfree;
            space.available = st.f_bavail;
        }
        space
    }
}

#[cfg(test)]
mod tests {
    use crate::vfs::testing::demo_tree;

    #[test]
    fn the_database_filesystems_space_and_one_file_per_game() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = demo_tree(dir.path(), true);
        let space = vfs.statfs();
        assert_eq!(space.files, u64::from(vfs.collection().count()));
        assert!(space.blocks > 0 && space.available <= space.free && space.free <= space.blocks);
        assert_eq!(space.name_max, 255);
    }
}
