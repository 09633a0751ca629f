//! POSIX behaviour of the tree without a mount: what a read-only tree refuses, link counts,
//! times, and files that outlive their names. mount-tests/posix.rs checks the same through
//! the kernel.

use std::ffi::OsStr;
use std::time::{Duration, SystemTime};

use super::testing::{CALLER, GameUnderTest, WRITE, WRITE_NEW, demo_tree, entries, writable_game};
use super::write::{RenameFlags, SetAttr};
use super::{FileKind, Node, OpenMode};
use crate::error::ErrorKind;

fn kind<T: std::fmt::Debug>(r: crate::error::Result<T>) -> ErrorKind {
    r.unwrap_err().kind()
}

#[test]
fn a_read_only_tree_refuses_every_change_with_erofs() {
    let dir = tempfile::tempdir().unwrap();
    let vfs = demo_tree(dir.path(), false);
    let games = Node::Games.ino();
    let game = Node::Game(0).ino();
    let name = vfs.game_name(0);
    let new = OsStr::new("new.pgn");
    let ro = ErrorKind::ReadOnly;
    assert_eq!(kind(vfs.open(game, WRITE)), ro);
    assert_eq!(kind(vfs.create(games, new, 0o644, false, WRITE)), ro);
    assert_eq!(kind(vfs.write(game, 0, 0, b"x", CALLER)), ro);
    let truncate = SetAttr {
        size: Some(0),
        ..SetAttr::default()
    };
    assert_eq!(kind(vfs.setattr(game, truncate)), ro);
    let chmod = SetAttr {
        mode: Some(0o600),
        ..SetAttr::default()
    };
    assert_eq!(kind(vfs.setattr(game, chmod)), ro);
    let touch = SetAttr {
        mtime: Some(SystemTime::now()),
        ..SetAttr::default()
    };
    assert_eq!(kind(vfs.setattr(game, touch)), ro);
    let chown = SetAttr {
        uid: Some(12345),
        ..SetAttr::default()
    };
    assert_eq!(kind(vfs.setattr(game, chown)), ro);
    assert_eq!(kind(vfs.unlink(games, OsStr::new(&name))), ro);
    let flags = RenameFlags::default();
    assert_eq!(
        kind(vfs.rename(games, OsStr::new(&name), games, new, flags)),
        ro
    );
    assert_eq!(kind(vfs.mkdir(games, OsStr::new("d"))), ro);
    assert_eq!(kind(vfs.rmdir(Node::Root.ino(), OsStr::new("players"))), ro);
    assert_eq!(kind(vfs.symlink(games, OsStr::new("s"), b"x")), ro);
    assert_eq!(kind(vfs.link(game, games, OsStr::new("l"))), ro);
    assert_eq!(kind(vfs.mknod(games, OsStr::new("n"), libc::S_IFREG)), ro);
    assert_eq!(kind(vfs.access(game, true, false)), ro);
    // Reading works, and asks for nothing.
    assert!(vfs.open(game, OpenMode::default()).is_ok());
    assert!(vfs.setattr(game, SetAttr::default()).is_ok());
}

#[test]
fn chown_to_the_owner_succeeds_and_to_anyone_else_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let vfs = demo_tree(dir.path(), true);
    let game = Node::Game(0).ino();
    let owner = vfs.getattr(game).unwrap();
    let same = SetAttr {
        uid: Some(owner.uid),
        gid: Some(owner.gid),
        ..SetAttr::default()
    };
    assert!(vfs.setattr(game, same).is_ok());
    for other in [
        SetAttr {
            uid: Some(owner.uid + 1),
            ..SetAttr::default()
        },
        SetAttr {
            gid: Some(owner.gid + 1),
            ..SetAttr::default()
        },
    ] {
        assert_eq!(kind(vfs.setattr(game, other)), ErrorKind::NotPermitted);
    }
}

#[test]
fn folder_link_counts_are_two_plus_subfolders() {
    let dir = tempfile::tempdir().unwrap();
    let vfs = demo_tree(dir.path(), true);
    let nlink = |node: Node| vfs.getattr(node.ino()).unwrap().nlink;
    for folder in [Node::Root, Node::Games, Node::Status, Node::Rejected] {
        let listing = entries(&vfs, folder.ino(), 0);
        let subfolders = listing
            .iter()
            .filter(|e| e.kind == FileKind::Directory && e.name != "." && e.name != "..")
            .count() as u32;
        assert_eq!(nlink(folder), 2 + subfolders, "{folder:?}");
    }
    let players = vfs.lookup(Node::Root.ino(), OsStr::new("players")).unwrap();
    let groups = entries(&vfs, players.ino, 0).len() as u32 - 2;
    assert_eq!(players.nlink, 2 + groups);
    assert_eq!(nlink(Node::Game(0)), 1);
}

#[test]
fn scratch_times_follow_writes_and_utimensat() {
    let dir = tempfile::tempdir().unwrap();
    let vfs = demo_tree(dir.path(), true);
    let games = Node::Games.ino();
    let (attr, opened) = vfs
        .create(games, OsStr::new("notes"), 0o600, true, WRITE)
        .unwrap();
    let past = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
    let set = SetAttr {
        atime: Some(past),
        mtime: Some(past + Duration::from_secs(1)),
        ..SetAttr::default()
    };
    let after = vfs.setattr(attr.ino, set).unwrap();
    assert_eq!(after.atime, past);
    assert_eq!(after.mtime, past + Duration::from_secs(1));
    assert!(after.ctime > past, "ctime is the time of the change");
    vfs.write(attr.ino, opened.fh, 0, b"text", CALLER).unwrap();
    let written = vfs.getattr(attr.ino).unwrap();
    assert!(written.mtime > past && written.ctime >= written.mtime);
    assert_eq!(written.atime, past, "reads and writes leave atime alone");
}

#[test]
fn an_open_scratch_file_outlives_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let vfs = demo_tree(dir.path(), true);
    let games = Node::Games.ino();
    let (attr, opened) = vfs
        .create(games, OsStr::new("t.txt"), 0o644, true, WRITE)
        .unwrap();
    vfs.write(attr.ino, opened.fh, 0, b"kept", CALLER).unwrap();
    vfs.unlink(games, OsStr::new("t.txt")).unwrap();
    assert_eq!(
        kind(vfs.lookup(games, OsStr::new("t.txt"))),
        ErrorKind::NotFound
    );
    assert_eq!(vfs.getattr(attr.ino).unwrap().nlink, 0);
    assert_eq!(vfs.read(attr.ino, 0, 100).unwrap(), b"kept");
    vfs.release(attr.ino, opened.fh);
    assert_eq!(kind(vfs.getattr(attr.ino)), ErrorKind::NotFound);
}

#[test]
fn status_files_and_deleted_games_are_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let vfs = demo_tree(dir.path(), true);
    let status = Node::Status.ino();
    assert_eq!(
        kind(vfs.unlink(status, OsStr::new("errors"))),
        ErrorKind::NotPermitted
    );
    let truncate = SetAttr {
        size: Some(0),
        ..SetAttr::default()
    };
    assert_eq!(
        kind(vfs.setattr(Node::StatusStats.ino(), truncate)),
        ErrorKind::PermissionDenied
    );
    vfs.set_deleted(3, true).unwrap();
    let game = Node::Game(3).ino();
    assert_eq!(vfs.getattr(game).unwrap().perm, 0o444);
    assert_eq!(kind(vfs.open(game, WRITE)), ErrorKind::PermissionDenied);
    assert_eq!(
        kind(vfs.setattr(game, truncate)),
        ErrorKind::PermissionDenied
    );
    assert_eq!(vfs.getattr(Node::Game(4).ino()).unwrap().perm, 0o644);
}

#[test]
fn a_position_removed_while_open_stays_readable_until_closed() {
    let dir = tempfile::tempdir().unwrap();
    let vfs = super::testing::go_tree(
        dir.path(),
        &["(;FF[4]GM[1]SZ[9]AB[cc])", "(;FF[4]GM[1]SZ[9]AB[dd]AW[ee])"],
    );
    let n = 1;
    let ino = Node::Game(n).ino();
    let text = vfs.text(n).unwrap().to_vec();
    let size = vfs.getattr(ino).unwrap().size;
    let reader = vfs.open(ino, OpenMode::default()).unwrap();
    let name = vfs.game_name(n);
    vfs.unlink(Node::Games.ino(), OsStr::new(&name)).unwrap();
    assert_eq!(
        kind(vfs.lookup(Node::Games.ino(), OsStr::new(&name))),
        ErrorKind::NotFound
    );
    assert_eq!(
        vfs.read(ino, 0, 4096).unwrap(),
        text,
        "the open handle still reads it"
    );
    assert_eq!(vfs.getattr(ino).unwrap().size, size);
    vfs.release(ino, reader.fh);
    assert!(vfs.read(ino, 0, 4096).is_err(), "gone with the last close");
}

#[test]
fn create_of_an_existing_name_truncates_only_with_o_trunc() {
    let dir = tempfile::tempdir().unwrap();
    let vfs = demo_tree(dir.path(), true);
    let games = Node::Games.ino();
    let name = vfs.game_name(2);
    let text = vfs.text(2).unwrap().to_vec();
    let (attr, opened) = vfs
        .create(games, OsStr::new(&name), 0o644, false, WRITE)
        .unwrap();
    assert_eq!(vfs.read(attr.ino, 0, 1 << 20).unwrap(), text);
    vfs.release(attr.ino, opened.fh);
    assert_eq!(
        kind(vfs.create(games, OsStr::new(&name), 0o644, true, WRITE)),
        ErrorKind::AlreadyExists
    );
    let truncate = WRITE_NEW;
    let (attr, opened) = vfs
        .create(games, OsStr::new(&name), 0o644, false, truncate)
        .unwrap();
    assert_eq!(vfs.getattr(attr.ino).unwrap().size, 0);
    vfs.write(attr.ino, opened.fh, 0, &text, CALLER).unwrap();
    vfs.release(attr.ino, opened.fh);
}

#[test]
fn a_game_file_cannot_grow_past_the_draft_limit() {
    let dir = tempfile::tempdir().unwrap();
    let vfs = demo_tree(dir.path(), true);
    let ino = Node::Game(1).ino();
    let w = vfs.open(ino, WRITE).unwrap();
    let at = super::write::MAX_DRAFT_BYTES;
    assert_eq!(
        kind(vfs.write(ino, w.fh, at, b"x", CALLER)),
        ErrorKind::TooLarge
    );
    let grow = SetAttr {
        size: Some(at + 1),
        ..SetAttr::default()
    };
    assert_eq!(kind(vfs.setattr(ino, grow)), ErrorKind::TooLarge);
    vfs.release(ino, w.fh);
}

#[test]
fn a_game_only_emptied_by_o_trunc_is_not_saved_before_its_last_close() {
    let GameUnderTest {
        _dir,
        vfs,
        ino,
        text,
    } = writable_game(5);
    let truncate = WRITE_NEW;
    // `cat x > game`: the shell closes its first descriptor before cat writes.
    let w = vfs.open(ino, truncate).unwrap();
    vfs.flush(ino, w.fh, CALLER).unwrap();
    assert_eq!(
        vfs.stats_text().lines().find(|l| l.starts_with("rejected")),
        Some("rejected_saves: 0")
    );
    let edited = String::from_utf8(text.clone())
        .unwrap()
        .replacen("[Round \"", "[Round \"7", 1);
    vfs.write(ino, w.fh, 0, edited.as_bytes(), CALLER).unwrap();
    vfs.flush(ino, w.fh, CALLER).unwrap();
    vfs.release(ino, w.fh);
    assert_eq!(&*vfs.text(5).unwrap(), edited.as_bytes());
    // `: > game`: nothing written; refused at the last close, the game as it was.
    let w = vfs.open(ino, truncate).unwrap();
    vfs.flush(ino, w.fh, CALLER).unwrap();
    vfs.release(ino, w.fh);
    assert_eq!(&*vfs.text(5).unwrap(), edited.as_bytes());
    assert!(
        String::from_utf8(vfs.errors.text())
            .unwrap()
            .contains("no game")
    );
}

#[test]
fn an_import_flushed_early_imports_the_rest_at_the_next_flush() {
    let dir = tempfile::tempdir().unwrap();
    let vfs = demo_tree(dir.path(), true);
    let games = Node::Games.ino();
    let count = vfs.collection().count();
    let game = |i: u32| {
        format!(
            "[Event \"Part {i}\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n"
        )
    };
    let (attr, opened) = vfs
        .create(games, OsStr::new("new.pgn"), 0o644, false, WRITE)
        .unwrap();
    let first = game(1) + &game(2);
    vfs.write(attr.ino, opened.fh, 0, first.as_bytes(), CALLER)
        .unwrap();
    // A FLUSH from another descriptor of the file (a fork, a dup): the first games go in.
    vfs.flush(attr.ino, opened.fh, CALLER).unwrap();
    assert_eq!(vfs.collection().count(), count + 2);
    assert_eq!(
        kind(vfs.lookup(games, OsStr::new("new.pgn"))),
        ErrorKind::NotFound
    );
    vfs.write(
        attr.ino,
        opened.fh,
        first.len() as u64,
        game(3).as_bytes(),
        CALLER,
    )
    .unwrap();
    vfs.flush(attr.ino, opened.fh, CALLER).unwrap();
    vfs.release(attr.ino, opened.fh);
    assert_eq!(vfs.collection().count(), count + 3, "each game once");
    let last = String::from_utf8(vfs.text(count + 2).unwrap().to_vec()).unwrap();
    assert!(last.contains("Part 3"), "{last}");
}

#[test]
fn dot_finds_a_node_by_its_number_and_dot_dot_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let vfs = demo_tree(dir.path(), true);
    let dot = |ino: u64| vfs.lookup(ino, OsStr::new("."));
    let up = |ino: u64| vfs.lookup(ino, OsStr::new("..")).map(|a| a.ino);
    let first = |ino: u64| {
        let listing = entries(&vfs, ino, 0);
        listing
            .into_iter()
            .find(|e| e.name != "." && e.name != "..")
            .unwrap()
    };
    let players = vfs.lookup(Node::Root.ino(), OsStr::new("players")).unwrap();
    let group = first(players.ino);
    let link = first(group.ino);
    let game = Node::Game(0).ino();
    for ino in [Node::Root.ino(), players.ino, group.ino, link.ino, game] {
        assert_eq!(dot(ino).unwrap().ino, ino);
    }
    assert_eq!(up(group.ino).unwrap(), players.ino);
    assert_eq!(up(players.ino).unwrap(), Node::Root.ino());
    assert_eq!(up(Node::Games.ino()).unwrap(), Node::Root.ino());
    assert_eq!(up(Node::Root.ino()).unwrap(), Node::Root.ino());
    assert_eq!(up(Node::Rejected.ino()).unwrap(), Node::Status.ino());
    assert_eq!(kind(up(game)), ErrorKind::NotADirectory);
    assert_eq!(
        dot(Node::Root.ino()).unwrap().generation,
        0,
        "as the kernel made it"
    );
    assert_ne!(dot(game).unwrap().generation, 0);

    // A deleted game is the same file, in .deleted/.
    let name = vfs.game_name(0);
    vfs.unlink(Node::Games.ino(), OsStr::new(&name)).unwrap();
    assert_eq!(dot(game).unwrap().perm, 0o444);
    assert_eq!(kind(dot(Node::Game(99_999).ino())), ErrorKind::NotFound);

    // A file saved by rename into a game: the game keeps its own number, the file's is gone.
    let games = Node::Games.ino();
    let target = vfs.game_name(1);
    let text = vfs.text(1).unwrap().to_vec();
    let (attr, opened) = vfs
        .create(games, OsStr::new("save.tmp"), 0o644, false, WRITE)
        .unwrap();
    vfs.write(attr.ino, opened.fh, 0, &text, CALLER).unwrap();
    vfs.flush(attr.ino, opened.fh, CALLER).unwrap();
    vfs.release(attr.ino, opened.fh);
    vfs.rename(
        games,
        OsStr::new("save.tmp"),
        games,
        OsStr::new(&target),
        RenameFlags::default(),
    )
    .unwrap();
    assert_eq!(
        vfs.node(attr.ino).unwrap(),
        Node::Game(1),
        "answers as the game"
    );
    assert_eq!(kind(dot(attr.ino)), ErrorKind::NotFound);
    assert_eq!(dot(Node::Game(1).ino()).unwrap().ino, Node::Game(1).ino());
}

#[test]
fn dot_does_not_find_a_position_removed_for_good() {
    let dir = tempfile::tempdir().unwrap();
    let vfs = super::testing::go_tree(dir.path(), &["(;FF[4]GM[1]SZ[9]AB[cc])"]);
    let ino = Node::Game(0).ino();
    assert_eq!(vfs.lookup(ino, OsStr::new(".")).unwrap().ino, ino);
    let name = vfs.game_name(0);
    vfs.unlink(Node::Games.ino(), OsStr::new(&name)).unwrap();
    assert_eq!(kind(vfs.lookup(ino, OsStr::new("."))), ErrorKind::NotFound);
}

/// A new index file written over the demo base's old one in `dir`, as a compaction (SCID's
/// too) writes it: another program's change.
fn write_a_new_index_file(dir: &std::path::Path) {
    let si4 = dir.join("db.si4");
    let copy = dir.join("copy.si4");
    std::fs::copy(&si4, &copy).unwrap();
    std::fs::rename(&copy, &si4).unwrap();
}

#[test]
fn an_index_replaced_under_a_read_only_tree_gives_its_items_a_new_generation() {
    let dir = tempfile::tempdir().unwrap();
    let vfs = demo_tree(dir.path(), false);
    let game = Node::Game(0).ino();
    let before = vfs.getattr(game).unwrap().generation;
    write_a_new_index_file(dir.path());
    // The tree notices at the next listing of the root (the first one of this tree).
    vfs.opendir(Node::Root.ino()).unwrap();
    assert_ne!(vfs.getattr(game).unwrap().generation, before);
    assert_eq!(vfs.getattr(Node::Games.ino()).unwrap().generation, 0);
}

/// Whichever call notices another program's change (here a lookup), no folder's cached
/// listing is kept until the second after: the kernel's invalidations go from a thread of
/// their own and may come after the next listing.
#[test]
fn no_listing_is_kept_in_the_second_an_outside_change_was_taken_in() {
    let dir = tempfile::tempdir().unwrap();
    let vfs = demo_tree(dir.path(), false);
    let games = Node::Games.ino();
    assert!(
        vfs.opendir(games).unwrap(),
        "nothing changed: the listing is kept"
    );
    write_a_new_index_file(dir.path());
    std::thread::sleep(Duration::from_millis(1100));
    vfs.lookup(Node::Root.ino(), OsStr::new("games")).unwrap();
    assert!(!vfs.opendir(games).unwrap(), "a lookup took the change in");
    std::thread::sleep(Duration::from_millis(2100));
    assert!(vfs.opendir(games).unwrap(), "settled: kept again");
}

#[test]
fn after_a_refused_save_readers_see_the_stored_game_before_the_writer_lets_go() {
    let GameUnderTest {
        _dir,
        vfs,
        ino,
        text,
    } = writable_game(6);
    let bad = String::from_utf8(text.clone())
        .unwrap()
        .replacen("\n\n", "\n\n1. Ke5 ", 1);
    let w = vfs.open(ino, WRITE_NEW).unwrap();
    vfs.write(ino, w.fh, 0, bad.as_bytes(), CALLER).unwrap();
    // While being written, the text is the writer's.
    assert_eq!(vfs.getattr(ino).unwrap().size, bad.len() as u64);
    assert!(vfs.flush(ino, w.fh, CALLER).is_err(), "the save is refused");
    // The kernel's RELEASE comes later: meanwhile a reader sees the game as stored.
    assert_eq!(vfs.read(ino, 0, 1 << 20).unwrap(), text);
    assert_eq!(vfs.getattr(ino).unwrap().size, text.len() as u64);
    // Another writer opening it starts from the stored game, not from the refused text.
    let other = vfs.open(ino, WRITE).unwrap();
    assert_eq!(vfs.read(ino, 0, 1 << 20).unwrap(), text);
    // Writing again makes the draft the text served and saved (here, the game fixed).
    let fixed = String::from_utf8(text.clone())
        .unwrap()
        .replacen("[Round \"", "[Round \"9", 1);
    vfs.write(ino, other.fh, 0, fixed.as_bytes(), CALLER)
        .unwrap();
    assert_eq!(vfs.read(ino, 0, 1 << 20).unwrap(), fixed.as_bytes());
    vfs.flush(ino, other.fh, CALLER).unwrap();
    vfs.release(ino, w.fh);
    vfs.release(ino, other.fh);
    assert_eq!(&*vfs.text(6).unwrap(), fixed.as_bytes());
}

/// A listing read through a small buffer, as the kernel reads one: each round trip takes
/// entries until the buffer is full, and the next asks again after the last one taken. Every
/// entry comes exactly once, in order, whatever the buffer holds.
#[test]
fn a_listing_read_a_few_entries_at_a_time_is_the_whole_listing() {
    let dir = tempfile::tempdir().unwrap();
    let vfs = demo_tree(dir.path(), true);
    let players = vfs.lookup(Node::Root.ino(), OsStr::new("players")).unwrap();
    let player = entries(&vfs, players.ino, 2)
        .into_iter()
        .map(|e| e.ino)
        .max_by_key(|&ino| entries(&vfs, ino, 0).len())
        .unwrap();
    for folder in [Node::Root.ino(), Node::Games.ino(), players.ino, player] {
        let whole = entries(&vfs, folder, 0);
        assert!(whole.len() > 4, "{folder}: {whole:?}");
        for room in 1..=3 {
            let mut pieces = Vec::new();
            let mut offset = 0;
            // One round trip past the whole listing is enough; more means it goes round.
            for _ in 0..=whole.len() {
                let mut taken = Vec::new();
                vfs.readdir(folder, offset, &mut |e| {
                    if taken.len() == room {
                        return true;
                    }
                    taken.push(e);
                    false
                })
                .unwrap();
                let Some(last) = taken.last() else { break };
                offset = last.next;
                pieces.extend(taken);
            }
            assert_eq!(
                pieces, whole,
                "folder {folder}, {room} entries a round trip"
            );
        }
    }
}

/// `.gamefs/stats` counts the games marked deleted as they are now: after an `rm` and after
/// a restore (the count is kept between changes, not recounted on every read).
#[test]
fn the_stats_count_the_games_deleted_now() {
    let dir = tempfile::tempdir().unwrap();
    let vfs = super::testing::demo_tree(dir.path(), true);
    let deleted = |vfs: &super::Vfs| {
        vfs.stats_text()
            .lines()
            .find(|l| l.starts_with("deleted:"))
            .map(str::to_owned)
    };
    assert_eq!(deleted(&vfs).as_deref(), Some("deleted: 0"));
    vfs.set_deleted(3, true).unwrap();
    vfs.set_deleted(5, true).unwrap();
    assert_eq!(deleted(&vfs).as_deref(), Some("deleted: 2"));
    vfs.set_deleted(3, false).unwrap();
    assert_eq!(deleted(&vfs).as_deref(), Some("deleted: 1"));
}

/// `.gamefs/stats` counts each view's groups without making the view's table (256 MiB at ten
/// million games), the same counts as the tables once made, and counts again after a change
/// that empties a group.
#[test]
fn the_stats_count_each_views_groups_without_making_its_table() {
    let dir = tempfile::tempdir().unwrap();
    let vfs = demo_tree(dir.path(), true);
    let said = |vfs: &super::Vfs| -> Vec<String> {
        let text = vfs.stats_text();
        vfs.view_paths
            .iter()
            .map(|path| {
                let head = format!("{path}: ");
                text.lines()
                    .find(|l| l.starts_with(&head))
                    .unwrap()
                    .to_owned()
            })
            .collect()
    };
    let made = |vfs: &super::Vfs| -> Vec<String> {
        vfs.view_indexes()
            .map(|v| {
                format!(
                    "{}: {}",
                    vfs.view_paths[usize::from(v.0)],
                    vfs.view(v).len()
                )
            })
            .collect()
    };
    let tables_made = |vfs: &super::Vfs| {
        vfs.views
            .iter()
            .filter(|slot| slot.read().unwrap().is_some())
            .count()
    };
    let before = said(&vfs);
    assert_eq!(
        tables_made(&vfs),
        0,
        "reading the stats made a view's table"
    );
    assert_eq!(before, made(&vfs));
    assert_eq!(tables_made(&vfs), vfs.view_paths.len());
    // Every game of the first player deleted: the players count one fewer (at least).
    let players = vfs.view_indexes().next().unwrap();
    let games: Vec<u32> = vfs
        .view(players)
        .groups_from(0)
        .next()
        .unwrap()
        .1
        .games
        .to_vec();
    for n in games {
        vfs.set_deleted(n, true).unwrap();
    }
    let after = said(&vfs);
    assert_eq!(tables_made(&vfs), 0, "the change let the tables go");
    assert_ne!(after[0], before[0]);
    assert_eq!(after, made(&vfs));
}
