//! Inode numbers: every node of the tree has a number computed from what it is, so the same
//! database always gives the same numbers and no table of inodes has to be kept.
//!
//! A number alone finds its node again (the kernel asks for it by number when an NFS client
//! brings back a file handle the kernel no longer caches). The handle also carries the node's
//! generation, so a number kept from before the numbering changed is refused as stale rather
//! than read as another game: see [`Node::generation`].

use std::path::Path;

use super::slices::{Side, SliceId};

/// One grouped view of the collection (its index in `Collection::views`): a folder of group
/// folders holding symlinks to the items.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct View(pub u8);

/// The most views a collection may have.
pub(crate) const MAX_VIEWS: usize = 16;

/// What an inode number stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// The mount's root folder.
    Root,
    /// The items folder (`games/`): one regular file per live item.
    Games,
    /// `.deleted/`: one regular file per item marked deleted.
    Deleted,
    /// A folder that holds views (`scores/` for `scores/fuego_chinese`), by the index of the
    /// first view under it.
    ViewParent(View),
    /// A view's top folder, e.g. `players/`.
    ViewRoot(View),
    /// One group folder of a view, e.g. `players/Carlsen, Magnus/`; the key is the
    /// collection's group key (name ID, year, ECO number…).
    Group(View, u32),
    /// An item's text (0-based number), in the items folder or `.deleted/`.
    Game(u32),
    /// A symlink in a group folder pointing at an item.
    Link(View, u32, u32),
    /// `.gamefs/`: the mount's status folder.
    Status,
    /// `.gamefs/errors`.
    StatusErrors,
    /// `.gamefs/README`.
    StatusReadme,
    /// `.gamefs/rejected/`: texts of refused saves (scratch files).
    Rejected,
    /// `.gamefs/stats`.
    StatusStats,
    /// A scratch file or symlink (an id of the scratch store).
    Scratch(u64),
    /// The root's `all.pgn`: the items of `games/` as one file (found by name, not listed).
    AllGames,
    /// A group folder's `all.pgn`: its items as one file (found by name, not listed).
    AllOfGroup(View, u32),
    /// `positions/`: positions found by FEN (found by name, never listed).
    PositionsRoot,
    /// A position folder (the root's `tree/` is 0; its move folders, `positions/FEN/` and the
    /// trees of the other folders of games, each with its folder, are numbered as first looked
    /// up during the mount).
    Position(u32),
    /// A position folder's `games/`.
    PositionGames(u32),
    /// A symlink in a position folder's `games/` (position folder, game).
    PositionLink(u32, u32),
    /// A position folder's `tree.txt`.
    TreeText(u32),
    /// A position folder's `position.fen`.
    FenText(u32),
    /// A position folder's `all.pgn`: its games as one file (found by name, not listed).
    AllOfPosition(u32),
    /// A group folder's games with one colour (`players/NAME/white/`), in a view whose groups
    /// are the players of both sides (found by name, not listed).
    SideGroup(View, u32, Side),
    /// A symlink in a side folder pointing at an item (view, key, side, item).
    SideLink(View, u32, Side, u32),
    /// A side folder's `all.pgn` (found by name, not listed).
    AllOfSide(View, u32, Side),
    /// `positions/` in a group or side folder: positions found by FEN among the folder's games
    /// (found by name, never listed; the root's is [`Node::PositionsRoot`]).
    SlicePositions(SliceId),
    /// `query/`: header queries found by name (never listed, itself found by name).
    QueryRoot,
    /// A query folder `query/EXPR/` (its number in the mount's table of queries).
    Query(u32),
    /// A query folder's `games/`.
    QueryGames(u32),
    /// A symlink in a query folder's `games/` (query, game).
    QueryLink(u32, u32),
    /// A query folder's `count`: how many games it has.
    QueryCount(u32),
    /// A query folder's `all.pgn` (found by name, not listed).
    AllOfQuery(u32),
    /// A query folder's `entries/`, when the query names one ending.
    QueryEntries(u32),
    /// A file in a query folder's `entries/`: a game's entry into the ending (query, game).
    QueryEntry(u32, u32),
    /// `twins/`: the groups of twin games (a chess database).
    TwinsRoot,
    /// A group of twins in `twins/`, by its first (better) game's number.
    TwinGroup(u32),
    /// A symlink in a group of twins pointing at a game (the group's first game, the game).
    TwinLink(u32, u32),
    /// `endings/`: a link per ending some game passes through.
    EndingsRoot,
    /// A link in `endings/` to the query folder of an ending (its code,
    /// `collection::positions::material::Balance`).
    EndingLink(u32),
}

const TAG_SHIFT: u32 = 48;
const PAYLOAD: u64 = (1 << TAG_SHIFT) - 1;
const TAG_GAME: u64 = 1;
const TAG_SCRATCH: u64 = 2;
const TAG_POSITION: u64 = 3;
const TAG_POSITION_GAMES: u64 = 4;
const TAG_TREE_TEXT: u64 = 5;
const TAG_FEN_TEXT: u64 = 6;
const TAG_POSITION_LINK: u64 = 7;
const TAG_ALL_OF_POSITION: u64 = 8;
const TAG_GROUP: u64 = 16; // 16..32, one per view
const TAG_LINK: u64 = 32; // 32..48, one per view
const TAG_ALL_OF_GROUP: u64 = 48; // 48..64, one per view
const TAG_SIDE_GROUP: u64 = 64; // 64..96, two per view (White, Black)
const TAG_SIDE_LINK: u64 = 96; // 96..128, two per view
const TAG_ALL_OF_SIDE: u64 = 128; // 128..160, two per view
const TAG_SLICE_POSITIONS: u64 = 160; // 160..208, three per view (the group, White, Black)
const TAG_QUERY: u64 = 208;
const TAG_QUERY_GAMES: u64 = 209;
const TAG_QUERY_LINK: u64 = 210;
const TAG_QUERY_COUNT: u64 = 211;
const TAG_ALL_OF_QUERY: u64 = 212;
const TAG_QUERY_POSITIONS: u64 = 213;
const TAG_TWIN_GROUP: u64 = 214;
const TAG_TWIN_LINK: u64 = 215;
const TAG_ENDING_LINK: u64 = 216;
const TAG_QUERY_ENTRIES: u64 = 217;
const TAG_QUERY_ENTRY: u64 = 218;
const TAG_END: u64 = 208;
const GAME_BITS: u32 = 24;
const FIRST_VIEW_ROOT: u64 = 32; // 32..48
const FIRST_VIEW_PARENT: u64 = 48; // 48..64

impl Node {
    /// True for a folder's `all.pgn`: its games as one file, read-only, following the games.
    pub fn is_all_file(self) -> bool {
        matches!(
            self,
            Node::AllGames
                | Node::AllOfGroup(..)
                | Node::AllOfSide(..)
                | Node::AllOfPosition(_)
                | Node::AllOfQuery(_)
        )
    }

    /// True for a view's link (to a game, in a group folder, a side folder or a group of
    /// twins; to a query folder, in `endings/`): it follows the games, and is neither
    /// removed nor moved.
    pub fn is_view_link(self) -> bool {
        matches!(
            self,
            Node::Link(..)
                | Node::SideLink(..)
                | Node::QueryLink(..)
                | Node::TwinLink(..)
                | Node::EndingLink(_)
        )
    }

    /// The node's inode number.
    pub fn ino(self) -> u64 {
        match self {
            Node::Root => 1,
            Node::Games => 2,
            Node::Deleted => 3,
            Node::Status => 9,
            Node::StatusErrors => 10,
            Node::StatusReadme => 11,
            Node::Rejected => 12,
            Node::StatusStats => 13,
            Node::AllGames => 14,
            Node::PositionsRoot => 15,
            Node::QueryRoot => 16,
            Node::Query(id) => TAG_QUERY << TAG_SHIFT | u64::from(id),
            Node::QueryGames(id) => TAG_QUERY_GAMES << TAG_SHIFT | u64::from(id),
            Node::QueryCount(id) => TAG_QUERY_COUNT << TAG_SHIFT | u64::from(id),
            Node::AllOfQuery(id) => TAG_ALL_OF_QUERY << TAG_SHIFT | u64::from(id),
            Node::QueryLink(id, n) => folder_and_game(TAG_QUERY_LINK, id, n),
            Node::QueryEntries(id) => TAG_QUERY_ENTRIES << TAG_SHIFT | u64::from(id),
            Node::QueryEntry(id, n) => folder_and_game(TAG_QUERY_ENTRY, id, n),
            Node::TwinsRoot => 17,
            Node::EndingsRoot => 18,
            Node::EndingLink(code) => TAG_ENDING_LINK << TAG_SHIFT | u64::from(code),
            Node::TwinGroup(first) => TAG_TWIN_GROUP << TAG_SHIFT | u64::from(first),
            Node::TwinLink(first, n) => folder_and_game(TAG_TWIN_LINK, first, n),
            Node::Position(id) => TAG_POSITION << TAG_SHIFT | u64::from(id),
            Node::PositionGames(id) => TAG_POSITION_GAMES << TAG_SHIFT | u64::from(id),
            Node::TreeText(id) => TAG_TREE_TEXT << TAG_SHIFT | u64::from(id),
            Node::FenText(id) => TAG_FEN_TEXT << TAG_SHIFT | u64::from(id),
            Node::AllOfPosition(id) => TAG_ALL_OF_POSITION << TAG_SHIFT | u64::from(id),
            Node::PositionLink(id, n) => folder_and_game(TAG_POSITION_LINK, id, n),
            Node::ViewRoot(v) => FIRST_VIEW_ROOT + u64::from(v.0),
            Node::ViewParent(v) => FIRST_VIEW_PARENT + u64::from(v.0),
            Node::Game(n) => TAG_GAME << TAG_SHIFT | u64::from(n),
            Node::Scratch(id) => TAG_SCRATCH << TAG_SHIFT | (id & PAYLOAD),
            Node::Group(v, key) => (TAG_GROUP + u64::from(v.0)) << TAG_SHIFT | u64::from(key),
            Node::AllOfGroup(v, key) => {
                (TAG_ALL_OF_GROUP + u64::from(v.0)) << TAG_SHIFT | u64::from(key)
            }
            Node::Link(v, key, n) => {
                (TAG_LINK + u64::from(v.0)) << TAG_SHIFT
                    | u64::from(key) << GAME_BITS
                    | u64::from(n)
            }
            Node::SideGroup(v, key, side) => side_tag(TAG_SIDE_GROUP, v, side) | u64::from(key),
            Node::AllOfSide(v, key, side) => side_tag(TAG_ALL_OF_SIDE, v, side) | u64::from(key),
            Node::SideLink(v, key, side, n) => {
                side_tag(TAG_SIDE_LINK, v, side) | u64::from(key) << GAME_BITS | u64::from(n)
            }
            Node::SlicePositions(slice) => match slice {
                // Never made: the root's is `PositionsRoot`.
                SliceId::All => Node::PositionsRoot.ino(),
                SliceId::Query(id) => TAG_QUERY_POSITIONS << TAG_SHIFT | u64::from(id),
                SliceId::Group(v, key) => {
                    (TAG_SLICE_POSITIONS + 3 * u64::from(v.0)) << TAG_SHIFT | u64::from(key)
                }
                SliceId::Side(v, key, side) => {
                    (TAG_SLICE_POSITIONS + 3 * u64::from(v.0) + 1 + side as u64) << TAG_SHIFT
                        | u64::from(key)
                }
            },
        }
    }

    /// The node's generation number: 0 for the fixed folders and `.gamefs/` files (always the
    /// same thing; the root's must be 0, as the kernel made it), the database's `numbering`
    /// for items and view groups and links (their numbers are item numbers and name IDs, which
    /// mean other games once the index is written anew, as a compaction does), and
    /// `mount` for scratch files (their numbers start again with every mount).
    pub fn generation(self, numbering: u32, mount: u32) -> u32 {
        match self {
            Node::Game(_)
            | Node::Group(..)
            | Node::Link(..)
            | Node::AllOfGroup(..)
            | Node::SideGroup(..)
            | Node::SideLink(..)
            | Node::AllOfSide(..)
            | Node::SlicePositions(SliceId::Group(..) | SliceId::Side(..) | SliceId::All)
            | Node::TwinGroup(_)
            | Node::TwinLink(..) => numbering,
            // Position folders are numbered anew by every mount.
            Node::Scratch(_)
            | Node::Position(_)
            | Node::PositionGames(_)
            | Node::PositionLink(..)
            | Node::TreeText(_)
            | Node::FenText(_)
            | Node::AllOfPosition(_)
            | Node::Query(_)
            | Node::QueryGames(_)
            | Node::QueryLink(..)
            | Node::QueryCount(_)
            | Node::AllOfQuery(_)
            | Node::QueryEntries(_)
            | Node::QueryEntry(..)
            | Node::SlicePositions(SliceId::Query(_)) => mount,
            _ => 0,
        }
    }

    /// The node an inode number stands for, if it is one of ours.
    pub fn from_ino(ino: u64) -> Option<Node> {
        let tag = ino >> TAG_SHIFT;
        let payload = ino & PAYLOAD;
        let view = |base: u64, t: u64| View((t - base) as u8);
        match tag {
            0 => match ino {
                1 => Some(Node::Root),
                2 => Some(Node::Games),
                3 => Some(Node::Deleted),
                9 => Some(Node::Status),
                10 => Some(Node::StatusErrors),
                11 => Some(Node::StatusReadme),
                12 => Some(Node::Rejected),
                13 => Some(Node::StatusStats),
                14 => Some(Node::AllGames),
                15 => Some(Node::PositionsRoot),
                16 => Some(Node::QueryRoot),
                17 => Some(Node::TwinsRoot),
                18 => Some(Node::EndingsRoot),
                i @ FIRST_VIEW_ROOT..FIRST_VIEW_PARENT => {
                    Some(Node::ViewRoot(view(FIRST_VIEW_ROOT, i)))
                }
                i @ FIRST_VIEW_PARENT..64 => Some(Node::ViewParent(view(FIRST_VIEW_PARENT, i))),
                _ => None,
            },
            TAG_GAME => u32::try_from(payload).ok().map(Node::Game),
            TAG_SCRATCH => Some(Node::Scratch(payload)),
            TAG_POSITION => u32::try_from(payload).ok().map(Node::Position),
            TAG_POSITION_GAMES => u32::try_from(payload).ok().map(Node::PositionGames),
            TAG_TREE_TEXT => u32::try_from(payload).ok().map(Node::TreeText),
            TAG_FEN_TEXT => u32::try_from(payload).ok().map(Node::FenText),
            TAG_ALL_OF_POSITION => u32::try_from(payload).ok().map(Node::AllOfPosition),
            TAG_QUERY => u32::try_from(payload).ok().map(Node::Query),
            TAG_QUERY_GAMES => u32::try_from(payload).ok().map(Node::QueryGames),
            TAG_QUERY_COUNT => u32::try_from(payload).ok().map(Node::QueryCount),
            TAG_ALL_OF_QUERY => u32::try_from(payload).ok().map(Node::AllOfQuery),
            TAG_QUERY_POSITIONS => u32::try_from(payload)
                .ok()
                .map(|id| Node::SlicePositions(SliceId::Query(id))),
            TAG_QUERY_LINK => {
                let (id, n) = folder_and_game_of(payload);
                Some(Node::QueryLink(id, n))
            }
            TAG_QUERY_ENTRIES => u32::try_from(payload).ok().map(Node::QueryEntries),
            TAG_QUERY_ENTRY => {
                let (id, n) = folder_and_game_of(payload);
                Some(Node::QueryEntry(id, n))
            }
            TAG_TWIN_GROUP => u32::try_from(payload).ok().map(Node::TwinGroup),
            TAG_ENDING_LINK => u32::try_from(payload).ok().map(Node::EndingLink),
            TAG_TWIN_LINK => {
                let (first, n) = folder_and_game_of(payload);
                Some(Node::TwinLink(first, n))
            }
            TAG_POSITION_LINK => {
                let (id, n) = folder_and_game_of(payload);
                Some(Node::PositionLink(id, n))
            }
            t @ TAG_GROUP..TAG_LINK => Some(Node::Group(
                view(TAG_GROUP, t),
                u32::try_from(payload).ok()?,
            )),
            t @ TAG_ALL_OF_GROUP..64 => Some(Node::AllOfGroup(
                view(TAG_ALL_OF_GROUP, t),
                u32::try_from(payload).ok()?,
            )),
            t @ TAG_LINK..TAG_ALL_OF_GROUP => Some(Node::Link(
                view(TAG_LINK, t),
                u32::try_from(payload >> GAME_BITS).ok()?,
                (payload & ((1 << GAME_BITS) - 1)) as u32,
            )),
            t @ TAG_SIDE_GROUP..TAG_SIDE_LINK => {
                let (v, side) = view_and_side(t - TAG_SIDE_GROUP);
                Some(Node::SideGroup(v, u32::try_from(payload).ok()?, side))
            }
            t @ TAG_SIDE_LINK..TAG_ALL_OF_SIDE => {
                let (v, side) = view_and_side(t - TAG_SIDE_LINK);
                Some(Node::SideLink(
                    v,
                    u32::try_from(payload >> GAME_BITS).ok()?,
                    side,
                    (payload & ((1 << GAME_BITS) - 1)) as u32,
                ))
            }
            t @ TAG_ALL_OF_SIDE..TAG_SLICE_POSITIONS => {
                let (v, side) = view_and_side(t - TAG_ALL_OF_SIDE);
                Some(Node::AllOfSide(v, u32::try_from(payload).ok()?, side))
            }
            t @ TAG_SLICE_POSITIONS..TAG_END => {
                let t = t - TAG_SLICE_POSITIONS;
                let (v, key) = (View((t / 3) as u8), u32::try_from(payload).ok()?);
                Some(Node::SlicePositions(match t % 3 {
                    0 => SliceId::Group(v, key),
                    1 => SliceId::Side(v, key, Side::White),
                    _ => SliceId::Side(v, key, Side::Black),
                }))
            }
            _ => None,
        }
    }
}

/// The number of a link (tag `tag`) to game `n` in a folder numbered `id` (a position
/// folder's `games/`, a query's): 24 bits of each.
fn folder_and_game(tag: u64, id: u32, n: u32) -> u64 {
    let bits = |x: u32| u64::from(x & ((1 << GAME_BITS) - 1));
    tag << TAG_SHIFT | bits(id) << GAME_BITS | bits(n)
}

/// The folder and game of a link's payload ([`folder_and_game`]).
fn folder_and_game_of(payload: u64) -> (u32, u32) {
    (
        (payload >> GAME_BITS) as u32,
        (payload & ((1 << GAME_BITS) - 1)) as u32,
    )
}

/// The tag bits of a node of view `v`'s side folders: two tags per view from `base`.
fn side_tag(base: u64, v: View, side: Side) -> u64 {
    (base + 2 * u64::from(v.0) + side as u64) << TAG_SHIFT
}

/// The view and side a tag's offset from its base stands for ([`side_tag`]).
fn view_and_side(offset: u64) -> (View, Side) {
    let side = if offset.is_multiple_of(2) {
        Side::White
    } else {
        Side::Black
    };
    (View((offset / 2) as u8), side)
}

/// The numbering generation of a database whose index (the file that numbers the items) is
/// the one of `indexes` (for a folder of databases mounted as one, each database's index in
/// order): a digest of the files' identities (device and inode number). Saves and SCID's own
/// additions write the index in place and keep it (the name files may be written anew: name
/// IDs are only added to); a compaction or a copy over the database writes a new index and
/// changes it, as does a database added to or gone from a folder, so file handles from
/// before then become stale. Never 0, the generation of the fixed folders.
pub(crate) fn numbering_generation<'a>(indexes: impl IntoIterator<Item = &'a Path>) -> u32 {
    use std::hash::{Hash, Hasher};
    use std::os::unix::fs::MetadataExt;
    let mut hasher = std::hash::DefaultHasher::new();
    let mut any = false;
    for index in indexes {
        any = true;
        std::fs::metadata(index)
            .map_or((0, 0), |m| (m.dev(), m.ino()))
            .hash(&mut hasher);
    }
    if !any {
        (0u64, 0u64).hash(&mut hasher);
    }
    (hasher.finish() as u32).max(1)
}

/// A generation for this mount's scratch files: the time the mount started, so a scratch
/// number from an earlier mount (which numbered its scratch files from 1 too) is stale.
pub(crate) fn mount_generation() -> u32 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (now.as_secs() as u32 ^ now.subsec_nanos()).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inode_numbers_round_trip_and_are_distinct() {
        let mut nodes = vec![
            Node::Root,
            Node::Games,
            Node::Deleted,
            Node::Game(0),
            Node::Game(16_777_213),
            Node::Status,
            Node::StatusErrors,
            Node::StatusReadme,
            Node::Rejected,
            Node::StatusStats,
            Node::Scratch(0),
            Node::Scratch(1 << 40),
            Node::AllGames,
            Node::PositionsRoot,
            Node::Position(0),
            Node::Position(u32::MAX),
            Node::PositionGames(7),
            Node::TreeText(7),
            Node::FenText(7),
            Node::AllOfPosition(7),
            Node::PositionLink(16_777_215, 16_777_215),
            Node::PositionLink(0, 0),
            Node::QueryRoot,
            Node::Query(0),
            Node::Query(u32::MAX),
            Node::QueryGames(3),
            Node::QueryCount(3),
            Node::AllOfQuery(3),
            Node::QueryLink(16_777_215, 16_777_215),
            Node::QueryLink(3, 0),
            Node::QueryEntries(3),
            Node::QueryEntry(16_777_215, 16_777_215),
            Node::QueryEntry(3, 0),
            Node::SlicePositions(SliceId::Query(3)),
            Node::TwinsRoot,
            Node::TwinGroup(0),
            Node::TwinGroup(16_777_215),
            Node::TwinLink(16_777_215, 3),
            Node::TwinLink(0, 0),
            Node::EndingsRoot,
            Node::EndingLink(0),
            Node::EndingLink(0xff_ffff),
        ];
        for v in (0..MAX_VIEWS as u8).map(View) {
            nodes.push(Node::ViewRoot(v));
            nodes.push(Node::ViewParent(v));
            nodes.push(Node::Group(v, 0));
            nodes.push(Node::Group(v, 1_048_574));
            nodes.push(Node::Link(v, 1_048_574, 16_777_213));
            nodes.push(Node::Link(v, 0, 0));
            nodes.push(Node::AllOfGroup(v, 0));
            nodes.push(Node::AllOfGroup(v, 1_048_574));
            for side in [Side::White, Side::Black] {
                nodes.push(Node::SideGroup(v, 0, side));
                nodes.push(Node::SideGroup(v, 1_048_574, side));
                nodes.push(Node::SideLink(v, 1_048_574, side, 16_777_213));
                nodes.push(Node::SideLink(v, 0, side, 0));
                nodes.push(Node::AllOfSide(v, 7, side));
                nodes.push(Node::SlicePositions(SliceId::Side(v, 7, side)));
            }
            nodes.push(Node::SlicePositions(SliceId::Group(v, 0)));
            nodes.push(Node::SlicePositions(SliceId::Group(v, u32::MAX)));
        }
        let mut inos = std::collections::HashSet::new();
        for n in &nodes {
            assert_eq!(Node::from_ino(n.ino()), Some(*n), "{n:?}");
            assert!(inos.insert(n.ino()), "duplicate inode for {n:?}");
        }
        assert_eq!(Node::from_ino(0), None);
        assert_eq!(Node::from_ino(99), None);
    }

    #[test]
    fn a_replaced_index_changes_the_numbering_generation_and_a_write_in_place_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("index");
        std::fs::write(&index, "1").unwrap();
        let first = numbering_generation([index.as_path()]);
        std::fs::OpenOptions::new()
            .append(true)
            .open(&index)
            .and_then(|mut f| std::io::Write::write_all(&mut f, b"more"))
            .unwrap();
        assert_eq!(numbering_generation([index.as_path()]), first);
        let new = dir.path().join("new");
        std::fs::write(&new, "1").unwrap();
        std::fs::rename(&new, &index).unwrap();
        assert_ne!(numbering_generation([index.as_path()]), first);
        assert_ne!(numbering_generation([index.as_path()]), 0);
    }
}
