//! The item numbers of a folder of databases: each union number stands for one member's
//! item, for the life of the mount.
//!
//! At the start the members' items follow each other, member by member, in the members'
//! order. Items a member gains later (an import into it, another program appending to a
//! database open read-only) get the next union numbers, after every item there is, so no
//! number ever changes meaning. The map is kept as runs of consecutive numbers, a few per
//! member, not an entry per item.

/// A run of consecutive items of one member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    /// The union number of the run's first item.
    start: u32,
    /// The member.
    member: usize,
    /// The member's number of the run's first item.
    local: u32,
    /// How many items.
    len: u32,
}

/// Union numbers to (member, member's number) and back.
#[derive(Debug, Default)]
pub(crate) struct Numbering {
    /// Every run, by union number.
    runs: Vec<Run>,
    /// Each member's runs (indexes into `runs`), by the member's numbers.
    of_member: Vec<Vec<usize>>,
}

impl Numbering {
    /// The numbering of members holding `counts` items, one after the other.
    pub(crate) fn new(counts: &[u32]) -> Numbering {
        let mut numbering = Numbering {
            runs: Vec::new(),
            of_member: vec![Vec::new(); counts.len()],
        };
        for (member, &count) in counts.iter().enumerate() {
            numbering.grow(member, count);
        }
        numbering
    }

    /// How many union numbers are in use.
    pub(crate) fn count(&self) -> u32 {
        self.runs.last().map_or(0, |r| r.start + r.len)
    }

    /// How many of `member`'s items have a union number.
    pub(crate) fn mapped(&self, member: usize) -> u32 {
        self.of_member[member]
            .last()
            .map_or(0, |&r| self.runs[r].local + self.runs[r].len)
    }

    /// Number the items `member` gained: those from its mapped count up to `count` get the
    /// next union numbers.
    pub(crate) fn grow(&mut self, member: usize, count: u32) {
        let mapped = self.mapped(member);
        if count <= mapped {
            return;
        }
        self.of_member[member].push(self.runs.len());
        self.runs.push(Run {
            start: self.count(),
            member,
            local: mapped,
            len: count - mapped,
        });
    }

    /// The member and member's number of union number `n`, if in use.
    pub(crate) fn locate(&self, n: u32) -> Option<(usize, u32)> {
        let k = self.runs.partition_point(|r| r.start + r.len <= n);
        let run = self.runs.get(k)?;
        (n >= run.start).then(|| (run.member, run.local + (n - run.start)))
    }

    /// The union number of `member`'s item `local`, if it has one.
    pub(crate) fn global(&self, member: usize, local: u32) -> Option<u32> {
        let runs = &self.of_member[member];
        let k = runs.partition_point(|&r| self.runs[r].local + self.runs[r].len <= local);
        let run = self.runs[*runs.get(k)?];
        (local >= run.local).then(|| run.start + (local - run.local))
    }

    /// True when every member's items have ascending union numbers in the member's order
    /// (nothing was added since the start but to the last member).
    pub(crate) fn in_member_order(&self) -> bool {
        self.runs.windows(2).all(|w| w[0].member <= w[1].member)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_follow_each_other_and_map_back() {
        let n = Numbering::new(&[3, 0, 2]);
        assert_eq!(n.count(), 5);
        assert_eq!(n.locate(0), Some((0, 0)));
        assert_eq!(n.locate(2), Some((0, 2)));
        assert_eq!(n.locate(3), Some((2, 0)));
        assert_eq!(n.locate(4), Some((2, 1)));
        assert_eq!(n.locate(5), None);
        assert_eq!(n.global(2, 1), Some(4));
        assert_eq!(n.global(1, 0), None);
        assert_eq!(n.global(0, 3), None);
        assert!(n.in_member_order());
    }

    #[test]
    fn items_gained_later_come_after_every_item_and_change_no_number() {
        let mut n = Numbering::new(&[2, 2]);
        n.grow(0, 4);
        n.grow(0, 3); // never shrinks
        assert_eq!(n.count(), 6);
        assert_eq!(n.locate(1), Some((0, 1)));
        assert_eq!(n.locate(2), Some((1, 0)));
        assert_eq!(n.locate(4), Some((0, 2)));
        assert_eq!(n.locate(5), Some((0, 3)));
        assert_eq!(n.global(0, 3), Some(5));
        assert_eq!(n.global(1, 1), Some(3));
        assert_eq!(n.mapped(0), 4);
        assert!(!n.in_member_order());
        n.grow(1, 3);
        assert!(Numbering::new(&[1, 1]).in_member_order());
        assert_eq!(n.global(1, 2), Some(6));
    }
}
