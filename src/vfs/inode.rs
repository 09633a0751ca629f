//! Inode numbers: every node of the tree has a number computed from what it is, so the same
//! database always gives the same numbers and no table of inodes has to be kept.

/// The grouped views of the games: each is a folder of folders of symlinks into `games/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum View {
    /// `players/<name>/`: games as White and as Black.
    Players,
    /// `events/<name>/`.
    Events,
    /// `sites/<name>/`.
    Sites,
    /// `years/<yyyy>/`.
    Years,
    /// `eco/<code>/`.
    Eco,
}

impl View {
    /// All views, in the order they appear in the root folder.
    pub const ALL: [View; 5] = [
        View::Players,
        View::Events,
        View::Sites,
        View::Years,
        View::Eco,
    ];

    /// The view's folder name in the root.
    pub fn folder(self) -> &'static str {
        match self {
            View::Players => "players",
            View::Events => "events",
            View::Sites => "sites",
            View::Years => "years",
            View::Eco => "eco",
        }
    }

    fn index(self) -> u64 {
        self as u64
    }

    fn from_index(i: u64) -> Option<View> {
        View::ALL.get(usize::try_from(i).ok()?).copied()
    }
}

/// What an inode number stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// The mount's root folder.
    Root,
    /// `games/`: one regular file per live game.
    Games,
    /// `.deleted/`: one regular file per game marked deleted.
    Deleted,
    /// A view's top folder, e.g. `players/`.
    ViewRoot(View),
    /// One group folder of a view, e.g. `players/Carlsen, Magnus/`; the key is the name ID,
    /// year or ECO number.
    Group(View, u32),
    /// A game's text (0-based game number), in `games/` or `.deleted/`.
    Game(u32),
    /// A symlink in a group folder pointing at a game.
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
}

const TAG_SHIFT: u32 = 48;
const TAG_GAME: u64 = 1;
const TAG_GROUP: u64 = 2; // 2..=6, one per view
const TAG_LINK: u64 = 8; // 8..=12, one per view
const TAG_SCRATCH: u64 = 13;
const GAME_BITS: u32 = 24;

impl Node {
    /// The node's inode number.
    pub fn ino(self) -> u64 {
        match self {
            Node::Root => 1,
            Node::Games => 2,
            Node::Deleted => 3,
            Node::ViewRoot(v) => 4 + v.index(),
            Node::Game(n) => TAG_GAME << TAG_SHIFT | u64::from(n),
            Node::Group(v, key) => (TAG_GROUP + v.index()) << TAG_SHIFT | u64::from(key),
            Node::Link(v, key, n) => {
                (TAG_LINK + v.index()) << TAG_SHIFT | u64::from(key) << GAME_BITS | u64::from(n)
            }
            Node::Status => 9,
            Node::StatusErrors => 10,
            Node::StatusReadme => 11,
            Node::Rejected => 12,
            Node::StatusStats => 13,
            Node::Scratch(id) => TAG_SCRATCH << TAG_SHIFT | (id & ((1 << TAG_SHIFT) - 1)),
        }
    }

    /// The node an inode number stands for, if it is one of ours.
    pub fn from_ino(ino: u64) -> Option<Node> {
        let tag = ino >> TAG_SHIFT;
        let payload = ino & ((1 << TAG_SHIFT) - 1);
        let game_mask = (1u64 << GAME_BITS) - 1;
        match tag {
            0 => match ino {
                1 => Some(Node::Root),
                2 => Some(Node::Games),
                3 => Some(Node::Deleted),
                i @ 4..=8 => View::from_index(i - 4).map(Node::ViewRoot),
                9 => Some(Node::Status),
                10 => Some(Node::StatusErrors),
                11 => Some(Node::StatusReadme),
                12 => Some(Node::Rejected),
                13 => Some(Node::StatusStats),
                _ => None,
            },
            TAG_GAME => u32::try_from(payload).ok().map(Node::Game),
            t @ TAG_GROUP..=6 => Some(Node::Group(
                View::from_index(t - TAG_GROUP)?,
                u32::try_from(payload).ok()?,
            )),
            t @ TAG_LINK..=12 => Some(Node::Link(
                View::from_index(t - TAG_LINK)?,
                u32::try_from(payload >> GAME_BITS).ok()?,
                (payload & game_mask) as u32,
            )),
            TAG_SCRATCH => Some(Node::Scratch(payload)),
            _ => None,
        }
    }
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
        ];
        for v in View::ALL {
            nodes.push(Node::ViewRoot(v));
            nodes.push(Node::Group(v, 0));
            nodes.push(Node::Group(v, 1_048_574));
            nodes.push(Node::Link(v, 1_048_574, 16_777_213));
            nodes.push(Node::Link(v, 0, 0));
        }
        let mut inos = std::collections::HashSet::new();
        for n in &nodes {
            assert_eq!(Node::from_ino(n.ino()), Some(*n), "{n:?}");
            assert!(inos.insert(n.ino()), "duplicate inode for {n:?}");
        }
        assert_eq!(Node::from_ino(0), None);
        assert_eq!(Node::from_ino(99), None);
    }
}
