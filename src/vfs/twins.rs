//! `twins/` (docs/guide/twins.md): a folder per group of twin games, as SCID's twin
//! detection finds them ([`crate::collection::twins`]), named after its better copy's file
//! (`0042 Carlsen, Magnus - Nakamura, Hikaru 2019`), holding relative symlinks to its games
//! in `games/`, ranked: `1-NAME.pgn` the better copy, then `2-…`.
//!
//! Found once the position index is ready, in the background (or the first time `twins/`
//! is visited, if sooner; the time it took is logged). A save, deletion or import through
//! the mount is told to it, and the next visit judges again only the games that share their
//! players, site, round and date with a game that changed (or a group with one): one pass
//! over the index, where finding them decodes every game that has a candidate twin. A change
//! by another program forgets them: they are found again. What was found is kept beside the
//! position index (`INDEX.twins`), so the next mount of the same files takes it at once.

use std::sync::Arc;

use super::found::{Finder, FoundSlot};
use super::{DirEntry, Node, Vfs};
use crate::collection::positions::stamp_of;
use crate::collection::twins::Twins;

/// The twins of a mount, found when first asked for.
pub(crate) type TwinsSlot = FoundSlot<Twins>;

impl Vfs {
    /// The twins of the live games, found now if they are not known (none for a collection
    /// that does not look for twins).
    pub(super) fn twins(&self) -> Option<Arc<Twins>> {
        if !self.coll.has_twins() {
            return None;
        }
        let changed = self.twins.has_changes();
        if let Some(twins) = self.twins.known().filter(|_| !changed) {
            return Some(twins);
        }
        let started = std::time::Instant::now();
        let finder = Finder {
            kept_at: self.kept_beside_index(crate::store::cache_folder::TWINS),
            stamp: &|| stamp_of(&self.coll.info().files),
            open: &Twins::kept,
            find: &|_| self.coll.twins(),
            keep: &Twins::keep,
            serve_kept: false,
        };
        let mut twins = self.twins.get(&finder)?;
        let mut how = "found";
        if changed {
            let before = twins.clone();
            twins = self.twins.revise(&finder, &|before, changed| {
                self.coll
                    .twins_after(before, changed)
                    .unwrap_or_else(|| before.clone())
            })?;
            // The groups that went or came: the kernel forgets their folders.
            let stale: Vec<Node> = symmetric_difference(before.groups(), twins.groups())
                .map(|g| Node::TwinGroup(g[0]))
                .chain([Node::TwinsRoot])
                .collect();
            self.invalidate(&stale, &[]);
            how = "brought up to date";
        }
        log::info!(
            "twins: {} groups, {} games SCID would delete, {how} in {:.3} s",
            twins.groups().len(),
            twins.to_delete().len(),
            started.elapsed().as_secs_f64()
        );
        Some(twins)
    }

    /// Games `numbers` were saved, marked deleted or undeleted, or added through the mount:
    /// the twins are brought up to date when next asked for, and the kernel forgets
    /// `twins/` and the groups these games were in.
    pub(super) fn twins_changed(&self, numbers: &[u32]) {
        if !self.coll.has_twins() {
            return;
        }
        self.twins.note_changed(numbers);
        let mut stale = vec![Node::TwinsRoot];
        if let Some(twins) = self.twins.known() {
            let mut numbers = numbers.to_vec();
            numbers.sort_unstable();
            stale.extend(
                (twins.groups().iter())
                    .filter(|g| g.iter().any(|n| numbers.binary_search(n).is_ok()))
                    .map(|g| Node::TwinGroup(g[0])),
            );
        }
        self.invalidate(&stale, &[]);
    }

    /// How many groups `twins/` has: found now if `find` (a `stat` or a lookup of it), else
    /// only if already known and up to date (a listing of the root finds nothing, nor brings
    /// in a save).
    pub(super) fn twin_groups_count(&self, find: bool) -> Option<u32> {
        let twins = if find {
            self.twins()
        } else {
            self.twins.known().filter(|_| !self.twins.has_changes())
        };
        twins.map(|t| t.groups().len() as u32)
    }

    /// The games of the group of twins whose first game is `first`, better first.
    fn twin_group(&self, first: u32) -> Option<Vec<u32>> {
        self.twins()?.group(first).map(<[u32]>::to_vec)
    }

    /// The folder name of the group of twins whose first game is `first`: its file name
    /// without the extension.
    fn twin_group_name(&self, first: u32) -> String {
        let name = self.game_name(first);
        let extension = format!(".{}", self.coll.extension());
        name.strip_suffix(&extension).unwrap_or(&name).to_owned()
    }

    /// The name of the link to `n`, `rank` (from 0) in a group of `len` games: the rank from
    /// 1, as wide as the largest, a dash and the game's file name.
    fn twin_link_name(&self, rank: usize, len: usize, n: u32) -> String {
        let width = len.to_string().len();
        format!("{:0width$}-{}", rank + 1, self.game_name(n))
    }

    /// True when `node` (a node of `twins/`) is there now.
    pub(super) fn twin_node_exists(&self, node: Node) -> bool {
        match node {
            Node::TwinsRoot => self.coll.has_twins(),
            Node::TwinGroup(first) => self.twin_group(first).is_some(),
            Node::TwinLink(first, n) => self
                .twin_group(first)
                .is_some_and(|games| games.contains(&n)),
            _ => false,
        }
    }

    /// The entry `name` of `twins/` or of one of its groups (`folder`).
    pub(super) fn twin_child(&self, folder: Node, name: &[u8]) -> Option<Node> {
        match folder {
            Node::TwinsRoot => {
                let mut file = name.to_vec();
                file.extend_from_slice(format!(".{}", self.coll.extension()).as_bytes());
                let first = self.coll.item_named(&file)?;
                self.twin_group(first)?;
                Some(Node::TwinGroup(first))
            }
            Node::TwinGroup(first) => {
                let games = self.twin_group(first)?;
                let digits = name.iter().take_while(|b| b.is_ascii_digit()).count();
                let rank: usize = std::str::from_utf8(&name[..digits]).ok()?.parse().ok()?;
                let rest = name[digits..].strip_prefix(b"-")?;
                let n = self.coll.item_named(rest)?;
                (games.get(rank.checked_sub(1)?) == Some(&n)).then_some(Node::TwinLink(first, n))
            }
            _ => None,
        }
    }

    /// Hand the entries of `twins/` or of one of its groups after position `from` to `add`;
    /// whether `add` said it was full.
    pub(super) fn list_twins(
        &self,
        folder: Node,
        from: u64,
        add: &mut dyn FnMut(DirEntry) -> bool,
    ) -> bool {
        let Some(twins) = self.twins() else {
            return false;
        };
        let skip = usize::try_from(from).unwrap_or(usize::MAX);
        match folder {
            Node::TwinsRoot => twins.groups().iter().enumerate().skip(skip).any(|(i, g)| {
                add(self.entry(
                    Node::TwinGroup(g[0]),
                    self.twin_group_name(g[0]).into(),
                    i as u64 + 3,
                ))
            }),
            Node::TwinGroup(first) => twins.group(first).is_some_and(|games| {
                games.iter().enumerate().skip(skip).any(|(i, &n)| {
                    add(self.entry(
                        Node::TwinLink(first, n),
                        self.twin_link_name(i, games.len(), n).into(),
                        i as u64 + 3,
                    ))
                })
            }),
            _ => false,
        }
    }

    /// Forget the twins found (another program changed the games): they are found again
    /// when next asked for, and the kernel forgets `twins/` and the groups' folders.
    pub(super) fn reset_twins(&self) {
        let firsts = self.twins.reset();
        let mut stale = vec![Node::TwinsRoot];
        stale.extend(
            firsts
                .iter()
                .flat_map(|t| t.groups().iter().map(|g| Node::TwinGroup(g[0]))),
        );
        self.invalidate(&stale, &[]);
    }
}

/// The groups of `a` not in `b` and of `b` not in `a` (each ordered by its first game).
fn symmetric_difference<'a>(
    a: &'a [Vec<u32>],
    b: &'a [Vec<u32>],
) -> impl Iterator<Item = &'a Vec<u32>> {
    let missing_from = |other: &'a [Vec<u32>]| {
        move |g: &&Vec<u32>| {
            (other.binary_search_by_key(&g[0], |o| o[0])).map_or(true, |k| other[k] != **g)
        }
    };
    a.iter()
        .filter(missing_from(b))
        .chain(b.iter().filter(missing_from(a)))
}

#[cfg(test)]
mod tests {
    use crate::vfs::Node;
    use crate::vfs::testing::{CALLER, WRITE_NEW, at, names, tree_of};

    /// 11 plies each: long enough to be twins.
    const LINE: &str = "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Be2";

    fn game(white: &str, black: &str, moves: &str, result: &str) -> String {
        format!(
            "[Event \"E\"]\n[Site \"S\"]\n[Date \"2020.01.01\"]\n[Round \"1\"]\n\
             [White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n\n{moves} {result}\n\n"
        )
    }

    fn save(vfs: &crate::vfs::Vfs, n: u32, text: &str) {
        let ino = Node::Game(n).ino();
        let fh = vfs.open(ino, WRITE_NEW).unwrap().fh;
        vfs.write(ino, fh, 0, text.as_bytes(), CALLER).unwrap();
        vfs.flush(ino, fh, CALLER).unwrap();
        vfs.release(ino, fh);
    }

    #[test]
    fn a_save_that_makes_a_twin_adds_it_to_a_group_and_a_deletion_takes_it_out() {
        let dir = tempfile::tempdir().unwrap();
        let pgn = [
            game("Anand", "Kramnik", &format!("{LINE} e5 7. Nb3"), "1-0"),
            game(
                "Kramnik",
                "Anand",
                "1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 6. Nf3",
                "0-1",
            ),
            game("Other", "Player", LINE, "1-0"),
        ]
        .concat();
        let vfs = tree_of(dir.path(), &pgn, 4);
        assert!(names(&vfs, "").contains(&"twins".to_owned()));
        assert!(names(&vfs, "twins").is_empty());
        // Game 3 becomes a shorter copy of game 1, with the colours swapped.
        save(&vfs, 2, &game("ANAND, V", "Kramnik, V", LINE, "1-0"));
        let group = vfs.twin_group_name(0);
        assert_eq!(names(&vfs, "twins"), std::slice::from_ref(&group));
        assert_eq!(
            names(&vfs, &format!("twins/{group}")),
            [
                format!("1-{}", vfs.game_name(0)),
                format!("2-{}", vfs.game_name(2))
            ]
        );
        let link = at(&vfs, &format!("twins/{group}/2-{}", vfs.game_name(2))).unwrap();
        assert_eq!(
            String::from_utf8(vfs.readlink(link).unwrap()).unwrap(),
            format!("../../games/{}", vfs.game_name(2))
        );
        assert_eq!(vfs.twins().unwrap().to_delete(), [2]);
        // Its links are the views': removed in games/, not here.
        let folder = at(&vfs, &format!("twins/{group}")).unwrap();
        let name = format!("2-{}", vfs.game_name(2));
        assert_eq!(
            vfs.unlink(folder, std::ffi::OsStr::new(&name))
                .unwrap_err()
                .kind(),
            crate::error::ErrorKind::NotPermitted
        );
        // Deleted, it is no twin any more.
        vfs.set_deleted(2, true).unwrap();
        assert!(names(&vfs, "twins").is_empty());
        assert!(at(&vfs, &format!("twins/{group}")).is_err());
    }

    #[test]
    fn a_save_judges_again_only_the_games_it_could_make_or_unmake_twins_of() {
        let dir = tempfile::tempdir().unwrap();
        let pgn = [
            game("Anand", "Kramnik", &format!("{LINE} e5 7. Nb3"), "1-0"),
            game("Anand", "Kramnik", LINE, "1-0"),
            game("Other", "Player", LINE, "1-0"),
            game("Third", "Person", LINE, "0-1"),
        ]
        .concat();
        let vfs = tree_of(dir.path(), &pgn, 4);
        assert_eq!(vfs.twins().unwrap().groups(), [vec![0, 1]]);
        let kept = vfs
            .kept_beside_index(crate::store::cache_folder::TWINS)
            .unwrap();
        drop(vfs);
        // The next mount takes a group made up beside the real one: games 2 and 3, of
        // other players, are no twins.
        let mut forged = std::fs::read(&kept).unwrap()[..16].to_vec();
        for word in [2, 0, 1, 2, 2, 3, 0, 2, 1, 3] {
            forged.extend_from_slice(&u32::to_le_bytes(word));
        }
        std::fs::write(&kept, &forged).unwrap();
        let vfs = super::super::testing::reopen_tree(dir.path(), 4);
        assert_eq!(vfs.twins().unwrap().groups(), [vec![0, 1], vec![2, 3]]);
        // Game 1 saved with another site: its group and its key are judged again, and it
        // has no twin any more; the made-up group, which it shares nothing with, stays
        // (finding the twins again would not have it).
        let moved = game("Anand", "Kramnik", LINE, "1-0").replace("\"S\"", "\"T\"");
        save(&vfs, 1, &moved);
        let after = vfs.twins().unwrap();
        assert_eq!(after.groups(), [vec![2, 3]]);
        assert_eq!(after.to_delete(), [3]);
        assert!(vfs.coll.twins().unwrap().groups().is_empty());
        // Game 2 saved with another player: the made-up group is judged again, and goes.
        save(&vfs, 2, &game("Fourth", "Player", LINE, "1-0"));
        assert!(vfs.twins().unwrap().groups().is_empty());
        assert!(vfs.twins().unwrap().to_delete().is_empty());
    }

    #[test]
    fn twins_are_kept_beside_the_index_for_the_next_mount_of_the_same_files() {
        let dir = tempfile::tempdir().unwrap();
        let pgn = [
            game("Anand", "Kramnik", &format!("{LINE} e5 7. Nb3"), "1-0"),
            game("Anand", "Kramnik", LINE, "1-0"),
            game("Other", "Player", LINE, "1-0"),
        ]
        .concat();
        let vfs = tree_of(dir.path(), &pgn, 4);
        let kept = vfs
            .kept_beside_index(crate::store::cache_folder::TWINS)
            .unwrap();
        assert_eq!(vfs.twins().unwrap().groups(), [vec![0, 1]]);
        assert!(kept.is_file());
        drop(vfs);
        let stamp = crate::collection::positions::stamp_of(&[
            dir.path().join("db.si4"),
            dir.path().join("db.sn4"),
            dir.path().join("db.sg4"),
        ]);
        let found = crate::collection::twins::Twins::kept(&kept, stamp).expect("these files'");
        assert_eq!(found.groups(), [vec![0, 1]]);
        // The next mount takes what was kept: here a group made up ([0, 1] made [0, 2]), to
        // tell it from one found again.
        let bytes = std::fs::read(&kept).unwrap();
        let mut forged = bytes.clone();
        forged[24..28].copy_from_slice(&2u32.to_le_bytes());
        std::fs::write(&kept, &forged).unwrap();
        let vfs = super::super::testing::reopen_tree(dir.path(), 4);
        assert_eq!(vfs.twins().unwrap().groups(), [vec![0, 2]]);
        drop(vfs);
        // A damaged file is found again, and kept again.
        std::fs::write(&kept, &forged[..forged.len() - 2]).unwrap();
        let vfs = super::super::testing::reopen_tree(dir.path(), 4);
        assert_eq!(vfs.twins().unwrap().groups(), [vec![0, 1]]);
        assert_eq!(std::fs::read(&kept).unwrap(), bytes);
        drop(vfs);
        // Kept for files that changed since (another program wrote the database): found
        // again, not taken.
        std::fs::write(&kept, &forged).unwrap();
        let index = dir.path().join("db.si4");
        let later = std::fs::metadata(&index).unwrap().modified().unwrap()
            + std::time::Duration::from_secs(5);
        std::fs::File::options()
            .write(true)
            .open(&index)
            .unwrap()
            .set_modified(later)
            .unwrap();
        let vfs = super::super::testing::reopen_tree(dir.path(), 4);
        assert_eq!(vfs.twins().unwrap().groups(), [vec![0, 1]]);
    }
}
