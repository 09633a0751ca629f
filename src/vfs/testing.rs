//! A tree over a small real database, for the unit tests of the tree.

use std::path::Path;
use std::sync::Arc;

use super::{DirEntry, OpenMode, Vfs, VfsOptions};
use crate::collection::chess::ChessCollection;
use crate::error::ErrorKind;
use crate::store;
use crate::testing::demo_db;

/// Every entry of folder `ino` after position `offset`, as a reader with room for all gets.
pub(crate) fn entries(vfs: &Vfs, ino: u64, offset: u64) -> Vec<DirEntry> {
    let mut out = Vec::new();
    vfs.readdir(ino, offset, &mut |e| {
        out.push(e);
        false
    })
    .unwrap();
    out
}

/// The inode of `path` (relative to the root, `/`-separated), looked up part by part.
pub(crate) fn at(vfs: &Vfs, path: &str) -> crate::error::Result<u64> {
    let mut ino = super::Node::Root.ino();
    for part in path.split('/').filter(|p| !p.is_empty()) {
        ino = vfs.lookup(ino, std::ffi::OsStr::new(part))?.ino;
    }
    Ok(ino)
}

/// The names in folder `path`, `.` and `..` left out.
pub(crate) fn names(vfs: &Vfs, path: &str) -> Vec<String> {
    entries(vfs, at(vfs, path).unwrap(), 0)
        .into_iter()
        .map(|e| e.name.to_string_lossy().into_owned())
        .filter(|n| n != "." && n != "..")
        .collect()
}

/// The names of `games` (0-based numbers) as `games/` has them.
pub(crate) fn game_names(vfs: &Vfs, games: &[u32]) -> Vec<String> {
    games.iter().map(|&n| vfs.game_name(n)).collect()
}

/// The text of file `path` (up to 1 MiB).
pub(crate) fn text(vfs: &Vfs, path: &str) -> String {
    let ino = at(vfs, path).unwrap();
    String::from_utf8(vfs.read(ino, 0, 1 << 20).unwrap()).unwrap()
}

/// Open for writing, as an editor saving in place does.
pub(crate) const WRITE: OpenMode = OpenMode {
    write: true,
    truncate: false,
    append: false,
};

/// Open for writing from nothing (`O_TRUNC`), as `cp` or a shell redirect does.
pub(crate) const WRITE_NEW: OpenMode = OpenMode {
    truncate: true,
    ..WRITE
};

/// The process the unit tests write and flush as (the one process doing both).
pub(crate) const CALLER: u32 = 1;

/// A process other than [`CALLER`] (no process has this id), as a forked child is.
pub(crate) const FORKED: u32 = u32::MAX;

/// A tree over a fresh SCID database in `dir` holding the demo games, open for writing or
/// read-only.
pub(crate) fn demo_tree(dir: &Path, writable: bool) -> Vfs {
    let base = demo_db(dir);
    // The database was just open for writing to fill it: a child another test spawns at that
    // moment holds a copy of its lock (flock) from its fork until its exec closes it, so the
    // lock may be busy for a moment.
    let mut tries = 0;
    let db = loop {
        match store::open(&base, writable) {
            Err(e) if e.kind() == ErrorKind::Busy && tries < 500 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            db => break db.unwrap(),
        }
    };
    Vfs::new(Arc::new(ChessCollection::new(db)), VfsOptions::default())
}

/// A writable tree over a fresh 9x9 Go database in `dir` holding one position per SGF text
/// (needs the real zobrist table in `tests/data/go9x9/`).
pub(crate) fn go_tree(dir: &Path, sgfs: &[&str]) -> Vfs {
    use crate::collection::go::GoCollection;
    use crate::store::go9x9::{Go9Database, Go9Options, ZOBRIST_FILE};
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/go9x9");
    std::fs::copy(data.join(ZOBRIST_FILE), dir.join(ZOBRIST_FILE)).unwrap();
    let db = Go9Database::open_with(&Go9Options {
        dir: Some(dir.to_path_buf()),
        writable: true,
        create: true,
        ..Go9Options::default()
    })
    .unwrap();
    for sgf in sgfs {
        let parsed = crate::text::sgf_parse::parse(sgf.as_bytes()).unwrap();
        db.save(&parsed.position, None).unwrap();
    }
    Vfs::new(Arc::new(GoCollection::new(db)), VfsOptions::default())
}

/// A writable tree over a new SCID database in `dir` of the games of `pgn`, with move folders
/// `depth` plies deep, its position index built.
pub(crate) fn tree_of(dir: &Path, pgn: &str, depth: u32) -> Vfs {
    let base = dir.join("db");
    store::create(&base, store::Format::Scid).unwrap();
    let db = store::open(&base, true).unwrap();
    db.append(
        &mut crate::text::pgn_parse::games(pgn.as_bytes())
            .map(|g| g.map_err(crate::error::Error::from)),
    )
    .unwrap();
    tree_over(dir, db, depth)
}

/// [`tree_of`] again over the database it made in `dir`: a new mount of the same files.
pub(crate) fn reopen_tree(dir: &Path, depth: u32) -> Vfs {
    tree_over(dir, store::open(&dir.join("db"), true).unwrap(), depth)
}

/// A tree over `db` with move folders `depth` plies deep, its position index kept in `dir`
/// and built.
fn tree_over(dir: &Path, db: Arc<dyn store::ChessStore>, depth: u32) -> Vfs {
    let options = VfsOptions {
        tree_depth: depth,
        position_index: Some(dir.join("positions")),
        ..VfsOptions::default()
    };
    let vfs = Vfs::new(Arc::new(ChessCollection::new(db)), options);
    vfs.build_positions(2, &std::sync::atomic::AtomicBool::new(false), || ());
    vfs
}

/// A writable [`demo_tree`] in a fresh directory, with one game's inode and text: where each
/// save test starts.
pub(crate) struct GameUnderTest {
    /// The database's directory, removed when the test ends.
    pub _dir: tempfile::TempDir,
    /// The tree.
    pub vfs: Vfs,
    /// The game's inode.
    pub ino: u64,
    /// The game's text as rendered before the test changes it.
    pub text: Vec<u8>,
}

/// [`GameUnderTest`] for game `n` (0-based) of the demo database.
pub(crate) fn writable_game(n: u32) -> GameUnderTest {
    let dir = tempfile::tempdir().unwrap();
    let vfs = demo_tree(dir.path(), true);
    let text = vfs.text(n).unwrap().to_vec();
    GameUnderTest {
        _dir: dir,
        vfs,
        ino: super::Node::Game(n).ino(),
        text,
    }
}
