//! Damaging databases byte by byte, for the tests of damaged databases (tests/corrupt_*.rs and
//! mount-tests/corrupt.rs): index entries repointed, files cut, records overwritten, name
//! files rewritten unsorted or with a name twice. Each helper changes exactly the bytes it
//! names, through the crate's own entry codec so the change is the intended one.
#![allow(dead_code)] // each test file uses its own subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use gamefs::ErrorKind;
use gamefs::game::Headers;
use gamefs::store::damage::UNKNOWN_NAME;
use gamefs::store::scid::entry::IndexEntry;
use gamefs::store::scid::names::NameFile;
use gamefs::store::simplecdb;
use gamefs::store::{ChessStore, GameSummary, NameKind};

/// `base` with `.ext` appended.
fn with_ext(base: &Path, ext: &str) -> PathBuf {
    let mut s = base.as_os_str().to_owned();
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

/// Copy the files `exts` of the database at `from` to `to`, writable (the golden files are
/// read-only, and copies would keep that).
pub(crate) fn copy_files(from: &Path, to: &Path, exts: &[&str]) {
    for ext in exts {
        std::fs::write(
            with_ext(to, ext),
            std::fs::read(with_ext(from, ext)).unwrap(),
        )
        .unwrap();
    }
}

/// The files of one database with one base name (`dir/name.ext`), to read, cut and rewrite.
pub(crate) struct Files {
    /// The base path (`dir/name` for `dir/name.si4` …).
    pub base: PathBuf,
}

impl Files {
    /// The file with extension `ext`.
    pub(crate) fn path(&self, ext: &str) -> PathBuf {
        with_ext(&self.base, ext)
    }

    /// The bytes of file `ext`.
    pub(crate) fn read(&self, ext: &str) -> Vec<u8> {
        std::fs::read(self.path(ext)).unwrap()
    }

    /// Replace file `ext` with `bytes`.
    pub(crate) fn write(&self, ext: &str, bytes: &[u8]) {
        std::fs::write(self.path(ext), bytes).unwrap();
    }

    /// Cut file `ext` to `len` bytes.
    pub(crate) fn truncate(&self, ext: &str, len: usize) {
        let bytes = self.read(ext);
        assert!(len < bytes.len(), "{ext}: cut {len} of {}", bytes.len());
        self.write(ext, &bytes[..len]);
    }
}

/// Where index entry `n` of a version-400 .si4 starts.
pub(crate) fn entry_at(n: u32) -> usize {
    182 + 47 * n as usize
}

/// The files of one SCID database, to damage.
pub(crate) struct Scid(Files);

impl std::ops::Deref for Scid {
    type Target = Files;
    fn deref(&self) -> &Files {
        &self.0
    }
}

impl Scid {
    /// The database at `base`.
    pub(crate) fn new(base: &Path) -> Scid {
        Scid(Files {
            base: base.to_path_buf(),
        })
    }

    /// Index entry `n`.
    pub(crate) fn entry(&self, n: u32) -> IndexEntry {
        let si4 = self.read("si4");
        IndexEntry::decode(si4[entry_at(n)..entry_at(n) + 47].try_into().unwrap())
    }

    /// Change index entry `n` with `change` (only its 47 bytes are rewritten).
    pub(crate) fn change_entry(&self, n: u32, change: impl FnOnce(&mut IndexEntry)) {
        let mut e = self.entry(n);
        change(&mut e);
        let mut si4 = self.read("si4");
        si4[entry_at(n)..entry_at(n) + 47].copy_from_slice(&e.encode());
        self.write("si4", &si4);
    }

    /// Overwrite every byte of game `n`'s record with `byte`.
    pub(crate) fn fill_record(&self, n: u32, byte: u8) {
        let e = self.entry(n);
        let mut sg4 = self.read("sg4");
        let at = e.offset as usize;
        sg4[at..at + e.length as usize].fill(byte);
        self.write("sg4", &sg4);
    }

    /// The name file, parsed.
    pub(crate) fn names(&self) -> NameFile {
        NameFile::parse(&self.read("sn4")).unwrap()
    }

    /// Rewrite the name file with each section's names in the order `order` gives (IDs),
    /// the name of each ID as `name` gives it (by default its stored bytes): front coded as
    /// SCID writes it, frequencies 0 (SCID 4.7 ignores them).
    pub(crate) fn write_names(
        &self,
        order: impl Fn(NameKind, u32) -> Vec<u32>,
        name: impl Fn(NameKind, u32) -> Vec<u8>,
    ) {
        let names = self.names();
        let mut out = b"Scid.sn\0".to_vec();
        out.extend([0; 4]);
        for kind in NameKind::ALL {
            out.extend(&names.count(kind).to_be_bytes()[1..]);
        }
        out.extend([0; 12]);
        for kind in NameKind::ALL {
            let count = names.count(kind);
            let id_width = if count >= 65536 { 3 } else { 2 };
            let mut previous: Vec<u8> = Vec::new();
            for (i, id) in order(kind, count).into_iter().enumerate() {
                let text = name(kind, id);
                out.extend(&id.to_be_bytes()[4 - id_width..]);
                out.push(0);
                out.push(text.len() as u8);
                let shared = if i == 0 {
                    0
                } else {
                    let shared = text
                        .iter()
                        .zip(&previous)
                        .take_while(|(a, b)| a == b)
                        .count();
                    out.push(shared as u8);
                    shared
                };
                out.extend(&text[shared..]);
                previous = text;
            }
        }
        self.write("sn4", &out);
    }

    /// The stored bytes of name `id` of `kind`.
    pub(crate) fn name(&self, kind: NameKind, id: u32) -> Vec<u8> {
        self.names().section(kind).raw[id as usize].clone()
    }

    /// Where the player section's record of the name with this ID starts, and where the next
    /// record starts (byte offsets in the .sn4; the file must hold fewer than 65536 players
    /// and frequencies below 256).
    pub(crate) fn player_record(&self, id: u32) -> (usize, usize) {
        let sn4 = self.read("sn4");
        let count = u32::from_be_bytes([0, sn4[12], sn4[13], sn4[14]]);
        let mut at = 36;
        for i in 0..count {
            let start = at;
            let this = u32::from(u16::from_be_bytes([sn4[at], sn4[at + 1]]));
            let len = usize::from(sn4[at + 3]);
            let prefix = if i == 0 { 0 } else { usize::from(sn4[at + 4]) };
            at += 4 + usize::from(i > 0) + len - prefix;
            if this == id {
                return (start, at);
            }
        }
        panic!("no player {id}");
    }
}

/// The files of one Simple Chess Database, to damage.
pub(crate) struct Dcdb(Files);

impl std::ops::Deref for Dcdb {
    type Target = Files;
    fn deref(&self) -> &Files {
        &self.0
    }
}

impl Dcdb {
    /// The database at `base`.
    pub(crate) fn new(base: &Path) -> Dcdb {
        Dcdb(Files {
            base: base.to_path_buf(),
        })
    }

    /// Index entry `n`.
    pub(crate) fn entry(&self, n: u32) -> simplecdb::entry::IndexEntry {
        let at = simplecdb::entry::entry_at(n);
        simplecdb::entry::IndexEntry::decode(self.read("dci")[at..at + 39].try_into().unwrap())
    }

    /// Change index entry `n` with `change` (only its 39 bytes are rewritten).
    pub(crate) fn change_entry(
        &self,
        n: u32,
        change: impl FnOnce(&mut simplecdb::entry::IndexEntry),
    ) {
        let mut e = self.entry(n);
        change(&mut e);
        let at = simplecdb::entry::entry_at(n);
        let mut dci = self.read("dci");
        dci[at..at + 39].copy_from_slice(&e.encode());
        self.write("dci", &dci);
    }

    /// Where game `n`'s whole record (length bytes included) lies in the .dcg.
    pub(crate) fn record(&self, n: u32) -> std::ops::Range<usize> {
        let at = self.entry(n).offset as usize;
        let dcg = self.read("dcg");
        let (head, body) =
            simplecdb::codec::record_extent(&dcg[at..(at + 5).min(dcg.len())]).unwrap();
        at..at + head + body
    }
}

/// Load every game of `damaged`: the `unreadable` ones (0-based) fail with EIO and a message
/// that names them first and says `why`; those in `changed` are not compared; every other loads
/// exactly as the same game of `pristine`.
pub(crate) fn assert_games(
    damaged: &dyn ChessStore,
    pristine: &dyn ChessStore,
    unreadable: &[u32],
    why: &str,
    changed: &[u32],
) {
    for n in 0..damaged.game_count() {
        let got = damaged.load(n);
        if unreadable.contains(&n) {
            let e = got.expect_err("a damaged game fails");
            assert_eq!(e.errno(), libc::EIO, "{e}");
            let text = e.to_string();
            assert!(
                text.starts_with(&format!("game {}: ", n + 1)) && text.contains(why),
                "game {}: {e}",
                n + 1
            );
        } else if !changed.contains(&n) {
            assert_eq!(
                got.unwrap_or_else(|e| panic!("healthy game {} fails: {e}", n + 1)),
                pristine.load(n).unwrap(),
                "game {} reads as before",
                n + 1
            );
        }
    }
}

/// A writable open gave `result`: refused as read-only, naming the damage (`why`).
pub(crate) fn assert_not_writable<T>(result: gamefs::Result<T>, why: &str) {
    let e = result
        .err()
        .expect("a damaged database is not opened for writing");
    assert_eq!(e.kind(), ErrorKind::ReadOnly, "{e}");
    assert!(
        e.to_string().contains("is damaged") && e.to_string().contains(why),
        "{e}"
    );
}

/// The problems of `db` as (game 1-based or 0 for the database, unreadable, message).
pub(crate) fn problems(db: &dyn ChessStore) -> Vec<(u32, bool, String)> {
    db.problems()
        .into_iter()
        .map(|p| (p.item.map_or(0, |n| n + 1), p.unreadable, p.message))
        .collect()
}

/// Damage `bytes` at random, one to three times: a byte changed, the end cut off, or up to 60
/// bytes taken out. `below(n)` is a random number in `0..n`.
fn mutate(bytes: &mut Vec<u8>, below: &mut dyn FnMut(usize) -> usize) {
    for _ in 0..=below(3) {
        if bytes.is_empty() {
            return;
        }
        match below(3) {
            0 => {
                let i = below(bytes.len());
                bytes[i] = below(256) as u8;
            }
            1 => bytes.truncate(below(bytes.len() + 1)),
            _ => {
                let i = below(bytes.len() + 1);
                let j = (i + below(60)).min(bytes.len());
                bytes.drain(i..j);
            }
        }
    }
}

/// Damage one of the files `exts` at random, `rounds` times (each time from the original
/// bytes, restored after), and `open` the database: it must open or fail with a message,
/// never panic, and everything an opened store offers must read without a panic (a game
/// that fails says which it is). `below(n)` is a random number in `0..n`. Returns how many
/// times it opened.
pub(crate) fn open_mutated(
    files: &Files,
    exts: &[&str],
    rounds: usize,
    below: &mut dyn FnMut(usize) -> usize,
    open: impl Fn() -> gamefs::Result<Box<dyn ChessStore>>,
) -> usize {
    let originals: Vec<Vec<u8>> = exts.iter().map(|e| files.read(e)).collect();
    let mut opened = 0;
    for round in 0..rounds {
        let which = round % exts.len();
        let mut bytes = originals[which].clone();
        mutate(&mut bytes, below);
        files.write(exts[which], &bytes);
        match open() {
            Ok(db) => {
                opened += 1;
                read_everything(&*db);
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        }
        files.write(exts[which], &originals[which]);
    }
    opened
}

/// Read everything an opened (damaged) store offers: every summary, name and game, and its
/// problems. A game that fails says which it is.
fn read_everything(db: &dyn ChessStore) {
    let _ = db.problems();
    for n in 0..db.game_count() {
        let s = db.summary(n);
        let _ = db.name(NameKind::Player, s.white);
        let _ = db.name(NameKind::Event, s.event);
        if let Err(e) = db.load(n) {
            assert!(
                e.to_string().starts_with(&format!("game {}: ", n + 1)),
                "{e}"
            );
        }
    }
}

/// Game `n` of `damaged` is served: it reads as in `pristine` except for the names `lose`
/// sets to `?` in its headers and to [`UNKNOWN_NAME`] in its summary, and such a name reads
/// as `?`.
pub(crate) fn assert_unknown_names(
    damaged: &dyn ChessStore,
    pristine: &dyn ChessStore,
    n: u32,
    lose: impl Fn(&mut Headers, &mut GameSummary),
) {
    let mut want = pristine.load(n).unwrap();
    let mut summary = pristine.summary(n);
    lose(&mut want.headers, &mut summary);
    assert_eq!(
        damaged.load(n).unwrap(),
        want,
        "a name the file lacks reads as ?"
    );
    assert_eq!(damaged.summary(n), summary);
    assert_eq!(&*damaged.name(NameKind::Player, UNKNOWN_NAME), "?");
}

/// The gamefs binary of this build run with `args`, to its end; its output.
pub(crate) fn gamefs(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gamefs"));
    for a in args {
        c.arg(a);
    }
    c.output().expect("gamefs runs")
}

/// Command output as text.
pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
