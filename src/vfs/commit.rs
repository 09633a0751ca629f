//! Turning saved text into database changes: one game replaced, games imported, a game
//! deleted or restored — and telling the kernel what changed.
//!
//! Refused text never touches the database: the reason goes to the log and `.gamefs/errors`,
//! and the text is kept under `.gamefs/rejected/` (docs/DESIGN.md rule 5).

use std::collections::HashSet;
use std::ffi::OsStr;
use std::ops::Range;

use super::scratch::{Content, ScratchKind};
use super::slices::Side;
use super::status::Counters;
use super::{Node, Vfs, View, lock};
use crate::error::{Error, ErrorKind, Result};
use crate::text::{DoneWith, keep_all};

/// Added to a copied file's name for the report of the games an import left out of it, kept
/// beside their text in `.gamefs/rejected/`.
const REPORT_SUFFIX: &str = ".report.txt";

/// Reads a part of a saved text again after an import let it go: from the scratch file's
/// bytes, not through its map, so the map's pages stay gone (`None` when it cannot).
pub(crate) type ReadAgain<'a> = &'a dyn Fn(Range<usize>) -> Option<Vec<u8>>;

/// What a `.pgn` text saved under some name is meant to become.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The new content of game `n` (0-based).
    Game(u32),
    /// New games, one per game in the text.
    Import,
}

/// What a tree showed of an item before a change: its name and its groups.
struct Before {
    name: String,
    groups: Vec<(View, u32)>,
}

impl Vfs {
    /// What saving text under `name` means: a name the collection reads as an existing item
    /// replaces that item; any other name with the collection's extension imports; other
    /// names are never saved.
    pub fn target_of(&self, name: &OsStr) -> Option<Target> {
        let bytes = name.as_encoded_bytes();
        let ext = format!(".{}", self.coll.extension());
        if !bytes.ends_with(ext.as_bytes()) || bytes.starts_with(b".") {
            return None;
        }
        match self.coll.item_named(bytes) {
            Some(n) if n < self.coll.count() => Some(Target::Game(n)),
            _ => Some(Target::Import),
        }
    }

    /// Save `text` (saved under `name`) to `target`. Refused text is reported and kept.
    pub fn commit(&self, target: Target, name: &OsStr, text: &[u8]) -> Result<()> {
        self.commit_letting_go(
            target,
            name,
            text,
            (&keep_all, &|r| text.get(r).map(<[u8]>::to_vec)),
        )
    }

    /// [`commit`](Self::commit), telling `done_with` the parts of an imported text not needed
    /// in memory now (a big copied file is mapped; its pages can go as it is parsed), and
    /// reading the games it watches with `read_again`.
    pub fn commit_letting_go(
        &self,
        target: Target,
        name: &OsStr,
        text: &[u8],
        (done_with, read_again): (DoneWith<'_>, ReadAgain<'_>),
    ) -> Result<()> {
        // Another program's changes first, so this one lands on top of them (SEMANTICS §10a).
        let result = self.take_in_outside_changes().and_then(|_| match target {
            Target::Game(n) => self.save_game(n, text),
            Target::Import => self.import(name, text, (done_with, read_again)),
        });
        self.show_changes_caught_up();
        if let Err(e) = &result {
            Counters::bump(&self.counters.rejected, 1);
            let shown = name.to_string_lossy();
            self.errors.record(&shown, e.message());
            self.keep_rejected(name, text);
        }
        result
    }

    fn save_game(&self, n: u32, text: &[u8]) -> Result<()> {
        self.check_writable()?;
        let before = self.before(n);
        let was_deleted = self.coll.deleted(n);
        // Until its text is forgotten, readers of many texts at once wait (vfs/concat.rs).
        let _changing = self.cache.changing();
        let changed = self.coll.save(n, text)?;
        lock(&self.hidden).remove(&n);
        if changed {
            self.states.changed(n);
            self.watch(n, text, false);
        }
        if changed || was_deleted {
            Counters::bump(&self.counters.saves, 1);
            self.changed(n, Some(before));
        }
        Ok(())
    }

    /// Import the games of `text`, saved under `name`: those the format cannot hold are left
    /// out (unless the mount is strict), their reasons go to `.gamefs/errors`, and their texts
    /// and the report of every game left out to `.gamefs/rejected/`.
    fn import(
        &self,
        name: &OsStr,
        text: &[u8],
        (done_with, read_again): (DoneWith<'_>, ReadAgain<'_>),
    ) -> Result<()> {
        self.check_writable()?;
        if text.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        let report = self.coll.import(text, self.options.on_bad, done_with)?;
        let numbers = &report.numbers;
        if let (Some(first), Some(last)) = (numbers.first(), numbers.last()) {
            log::info!(
                "imported {} item(s) as numbers {}..={}",
                numbers.len(),
                first + 1,
                last + 1
            );
        }
        Counters::bump(&self.counters.imported, numbers.len() as u64);
        self.added(numbers);
        // Each game as the text gave it (rendered where the collection does not tell).
        for (i, &n) in numbers
            .iter()
            .enumerate()
            .take(crate::collection::import::TEXTS_TOLD)
        {
            match report.texts.get(i).and_then(|r| read_again(r.clone())) {
                Some(game) => self.watch(n, &game, true),
                None => match self.coll.render(n) {
                    Ok(rendered) => self.watch(n, &rendered, true),
                    Err(_) => continue,
                },
            }
        }
        if report.skipped.is_empty() && report.changed.is_empty() {
            return Ok(());
        }
        let shown = name.to_string_lossy();
        for line in report.skipped_lines() {
            self.errors.record(&shown, &format!("left out {line}"));
        }
        let texts = if !report.has_rejected_text() {
            String::new()
        } else {
            format!("their text: .gamefs/rejected/{shown}; ")
        };
        let summary = format!(
            "{} game(s) imported ({} with changes), {} left out ({texts}the report: .gamefs/rejected/{shown}{REPORT_SUFFIX})",
            numbers.len(),
            report.changed.len(),
            report.skipped.len()
        );
        let mut full = format!("{shown}: {summary}\n");
        for line in report.changed_lines().chain(report.skipped_lines()) {
            full.push_str(&line);
            full.push('\n');
        }
        let mut report_name = name.to_os_string();
        report_name.push(REPORT_SUFFIX);
        self.keep_rejected(&report_name, full.as_bytes());
        if let ([], Some(first)) = (numbers.as_slice(), report.skipped.first()) {
            // Nothing stored: the copy fails, as the first game's error.
            return Err(Error::new(
                first.kind,
                format!(
                    "no game of the text could be stored: {}",
                    report.skipped_lines().next().unwrap_or_default()
                ),
            ));
        }
        self.errors.record(&shown, &summary);
        if report.has_rejected_text() {
            self.keep_rejected(name, &report.rejected_text(text));
        }
        Ok(())
    }

    /// Items `numbers` are new: the folders that list them change, once each (an import of a
    /// million games must not queue a million invalidations of the same folders). The new
    /// items themselves have nothing cached anywhere yet.
    fn added(&self, numbers: &[u32]) {
        // Told to the header index before the queries' games are forgotten: a query between
        // the two would keep what the index said of these games.
        self.headers_changed(numbers);
        self.reset_views();
        self.twins_changed(numbers);
        let mut inodes: HashSet<Node> =
            [Node::Root, Node::Games, Node::Deleted, Node::AllGames].into();
        inodes.extend(self.view_indexes().map(Node::ViewRoot));
        self.positions_changed(numbers);
        for &n in numbers {
            self.cache.invalidate(n);
            self.states.changed(n);
            for (v, key) in self.groups_of(n) {
                inodes.extend(self.group_nodes(v, key, None));
            }
        }
        self.invalidate(&inodes.into_iter().collect::<Vec<_>>(), &[]);
    }

    /// Mark item `n` deleted or not.
    pub fn set_deleted(&self, n: u32, deleted: bool) -> Result<()> {
        self.check_writable()?;
        let before = self.before(n);
        if deleted && !self.coll.has_delete_mark() && self.is_open(Node::Game(n)) {
            // The item leaves the files for good; its open handles keep its text.
            let text = self.text(n)?;
            lock(&self.orphans).insert(n, text);
        }
        self.take_in_outside_changes()?;
        let _changing = self.cache.changing();
        let result = self.coll.set_deleted(n, deleted);
        self.show_changes_caught_up();
        result?;
        Counters::bump(&self.counters.deletions, 1);
        self.changed(n, Some(before));
        Ok(())
    }

    /// A change that took in another program's writes inside the collection (they came
    /// between the tree's look and the change) has the tree show them now.
    fn show_changes_caught_up(&self) {
        if let Err(e) = self.take_in_outside_changes() {
            log::error!("{e}");
        }
    }

    /// Watch item `n`, just stored as `text` (`added` by an import), for another program
    /// writing over it.
    fn watch(&self, n: u32, text: &[u8], added: bool) {
        let Some(fingerprint) = self.coll.fingerprint(n) else {
            return;
        };
        let name = self.game_name(n);
        if let Err(e) = lock(&self.acknowledged).record(n, fingerprint, (name, added), text) {
            log::warn!(
                "{}: not watched for other programs' writes: {e}",
                self.game_name(n)
            );
        }
    }

    /// Refuse changes on a read-only mount.
    pub fn check_writable(&self) -> Result<()> {
        if self.writable() {
            Ok(())
        } else {
            Err(Error::new(ErrorKind::ReadOnly, "the mount is read-only"))
        }
    }

    fn before(&self, n: u32) -> Before {
        Before {
            name: self.game_name(n),
            groups: self.groups_of(n),
        }
    }

    fn groups_of(&self, n: u32) -> Vec<(View, u32)> {
        self.view_indexes()
            .flat_map(|v| {
                self.coll
                    .view_keys(usize::from(v.0), n)
                    .into_iter()
                    .map(move |k| (v, k))
            })
            .collect()
    }

    /// The nodes of group `key` of view `v` whose listing or contents change when its items
    /// do: the folder, its `all.pgn`, its side folders and theirs, and with `item` the links
    /// to it. (Its trees are position folders: [`Vfs::positions_changed`].)
    fn group_nodes(&self, v: View, key: u32, item: Option<u32>) -> Vec<Node> {
        let mut nodes = vec![Node::Group(v, key), Node::AllOfGroup(v, key)];
        nodes.extend(item.map(|n| Node::Link(v, key, n)));
        if self.has_sides(v) {
            for side in Side::BOTH {
                nodes.extend([Node::SideGroup(v, key, side), Node::AllOfSide(v, key, side)]);
                nodes.extend(item.map(|n| Node::SideLink(v, key, side, n)));
            }
        }
        nodes
    }

    /// Item `n` changed (it was `before`, or is new): drop cached text and views here and in
    /// the kernel.
    fn changed(&self, n: u32, before: Option<Before>) {
        self.cache.invalidate(n);
        // Told to the header index before the queries' games are forgotten (`added`).
        self.headers_changed(&[n]);
        // The views first: the position folders made anew take their slices' games from them.
        self.reset_views();
        self.twins_changed(&[n]);
        self.positions_changed(&[n]);
        self.broken.forget(n);
        lock(&self.saved).insert(n);
        let mut inodes = vec![
            Node::Game(n),
            Node::Root,
            Node::Games,
            Node::Deleted,
            Node::AllGames,
        ];
        inodes.extend(self.view_indexes().map(Node::ViewRoot));
        let mut groups = self.groups_of(n);
        let mut names = Vec::new();
        if let Some(b) = &before {
            groups.extend(b.groups.iter().copied());
            let old = OsStr::new(&b.name);
            names.push((Node::Games.ino(), old));
            names.push((Node::Deleted.ino(), old));
        }
        for (v, key) in groups {
            inodes.extend(self.group_nodes(v, key, Some(n)));
        }
        inodes.extend(self.queries.nodes());
        self.invalidate(&inodes, &names);
    }

    /// Keep refused text readable under `.gamefs/rejected/<name>` (a big text in a temporary
    /// file, like any big scratch file; in memory if even that fails).
    pub(super) fn keep_rejected(&self, name: &OsStr, text: &[u8]) {
        let content = Content::from_bytes(text).unwrap_or_else(|e| {
            log::warn!("keeping the refused text of {name:?} in memory: {e}");
            Content::Memory(text.to_vec())
        });
        let dir = Node::Rejected.ino();
        let mut scratch = lock(&self.scratch);
        match scratch.find(dir, name) {
            Some(id) => {
                if let Some(f) = scratch.get_mut(id) {
                    f.kind = ScratchKind::File(content);
                    f.touch();
                }
            }
            None => {
                scratch.create(dir, name, ScratchKind::File(content), 0o644);
            }
        }
    }
}
