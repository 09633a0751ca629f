#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Compare two PGN files game by game, as games (not bytes).

usage: pgn_compare.py [options] EXPECTED.pgn ACTUAL.pgn

Both files are parsed with python-chess. For every game (in order) it compares:
  - the tag set and the tag values (tags listed with --ignore-tags are skipped;
    with --fill-roster a missing Seven Tag Roster tag counts as its PGN default),
  - the starting position (the board the game starts from),
  - the moves of the main line and of every variation, compared by UCI along the tree,
  - the comments after each move, the starting comment of each variation and the
    comment before the first move (whitespace-normalized: runs collapsed, ends stripped),
  - the NAGs of each move as sets (order-insensitive),
  - the game-termination marker (e.g. 1-0) at the end of the movetext,
  - parse errors/illegal moves reported by python-chess (any error is a mismatch).
Exit status 0 when everything is equal, 1 on any mismatch, 2 on usage errors.
The last line is a summary, e.g. "compared 42 games: 42 equal".
"""

import argparse
import os
import sys

import chess

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pgnlib import move_label, norm_comment, read_games  # noqa: E402

ROSTER_DEFAULTS = {
    "Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?",
    "White": "?", "Black": "?", "Result": "*",
}


def fen_key(fen):
    """FEN compared as a position: a 4-field FEN equals the same FEN with ' 0 1'."""
    try:
        return chess.Board(fen).fen()
    except ValueError:
        return fen.strip()


class Comparer:
    def __init__(self, args):
        self.ignore = set(args.ignore_tags)
        self.fill_roster = args.fill_roster
        self.fen_as_position = args.fen_as_position
        self.ignore_empty = args.ignore_empty_tags
        self.no_comments = args.no_comments
        self.no_nags = args.no_nags
        self.max_diffs = args.max_diffs
        self.out = []

    def diff(self, msg):
        self.out.append(msg)

    def tags(self, g):
        t = dict(g.raw_tags)
        if self.ignore_empty:
            t = {k: v for k, v in t.items() if v != ""}
        if self.fill_roster:
            for k, v in ROSTER_DEFAULTS.items():
                t.setdefault(k, v)
        for k in self.ignore:
            t.pop(k, None)
        if self.fen_as_position and "FEN" in t:
            t["FEN"] = fen_key(t["FEN"])
        return t

    def compare_game(self, n, e, a):
        before = len(self.out)
        for which, g in (("expected", e), ("actual", a)):
            for err in g.errors:
                self.diff(f"game {n}: {which} has a parse error: {err}")
        te, ta = self.tags(e), self.tags(a)
        for k in sorted(set(te) | set(ta)):
            if k not in ta:
                self.diff(f"game {n}: tag [{k} \"{te[k]}\"] missing in actual")
            elif k not in te:
                self.diff(f"game {n}: unexpected tag [{k} \"{ta[k]}\"] in actual")
            elif te[k] != ta[k]:
                self.diff(f"game {n}: tag {k}: expected \"{te[k]}\", actual \"{ta[k]}\"")
        be, ba = e.board(), a.board()
        if be.fen() != ba.fen():
            self.diff(f"game {n}: start position: expected {be.fen()}, actual {ba.fen()}")
        if not self.no_comments:
            ce, ca = norm_comment(e.comment), norm_comment(a.comment)
            if ce != ca:
                self.diff(f"game {n}: comment before the first move: expected {{{ce}}}, actual {{{ca}}}")
        if e.termination != a.termination:
            self.diff(f"game {n}: termination marker: expected {e.termination!r}, actual {a.termination!r}")
        self.compare_node(n, e, a, be, [])
        return len(self.out) == before

    def compare_node(self, n, root_e, root_a, root_board, root_path):
        """Compare the trees below root_e and root_a (iteratively: games may be long)."""
        stack = [(root_e, root_a, root_board, root_path)]
        while stack:
            ne, na, board, path = stack.pop()
            ve, va = ne.variations, na.variations
            where = " ".join(path) if path else "start"
            if [c.move for c in ve] != [c.move for c in va]:
                ue = [c.move.uci() for c in ve]
                ua = [c.move.uci() for c in va]
                self.diff(f"game {n}: after {where}: moves/variations differ: expected {ue}, actual {ua}")
            todo = []
            for i, (ce, ca) in enumerate(zip(ve, va)):
                if ce.move != ca.move:
                    continue  # already reported above; do not descend into different lines
                label = move_label(board, ce.move)
                if i > 0:
                    label = f"(var {i}) {label}"
                # The path shows each variation head and the current move of each line:
                # "14.Qh5 (var 1) 14.Nf3 17.Qd2" rather than every move of the game.
                if i == 0 and path and not path[-1].startswith("(var"):
                    p = path[:-1] + [label]
                else:
                    p = path + [label]
                at = " ".join(p)
                if not self.no_comments:
                    s1, s2 = norm_comment(ce.starting_comment), norm_comment(ca.starting_comment)
                    if s1 != s2:
                        self.diff(f"game {n}: at {at}: starting comment: expected {{{s1}}}, actual {{{s2}}}")
                    c1, c2 = norm_comment(ce.comment), norm_comment(ca.comment)
                    if c1 != c2:
                        self.diff(f"game {n}: at {at}: comment: expected {{{c1}}}, actual {{{c2}}}")
                if not self.no_nags and set(ce.nags) != set(ca.nags):
                    self.diff(f"game {n}: at {at}: NAGs: expected {sorted(ce.nags)}, actual {sorted(ca.nags)}")
                b2 = board.copy(stack=False)
                b2.push(ce.move)
                todo.append((ce, ca, b2, p))
            # depth-first in PGN order: main continuation last on the stack is popped first
            stack.extend(reversed(todo))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("expected")
    ap.add_argument("actual")
    ap.add_argument("--ignore-tags", default="", type=lambda s: [t for t in s.split(",") if t],
                    help="comma-separated tag names not to compare (e.g. PlyCount,SetUp)")
    ap.add_argument("--fill-roster", action="store_true",
                    help="treat a missing Seven Tag Roster tag as its default ('?', '????.??.??', '*')")
    ap.add_argument("--ignore-empty-tags", action="store_true",
                    help="treat a tag with an empty value as absent (applied before --fill-roster)")
    ap.add_argument("--fen-as-position", action="store_true",
                    help="compare FEN tags as positions (4-field FEN == FEN + ' 0 1')")
    ap.add_argument("--no-comments", action="store_true", help="do not compare comments")
    ap.add_argument("--no-nags", action="store_true", help="do not compare NAGs")
    ap.add_argument("--max-diffs", type=int, default=200,
                    help="print at most this many differences (default 200, 0 = all)")
    args = ap.parse_args()

    exp = list(read_games(args.expected))
    act = list(read_games(args.actual))
    c = Comparer(args)
    equal = 0
    for i, (e, a) in enumerate(zip(exp, act), start=1):
        if c.compare_game(i, e, a):
            equal += 1
    if len(exp) != len(act):
        c.diff(f"number of games differs: expected {len(exp)}, actual {len(act)}")
    shown = c.out if args.max_diffs == 0 else c.out[: args.max_diffs]
    for line in shown:
        print(line)
    if len(shown) < len(c.out):
        print(f"... {len(c.out) - len(shown)} more differences not shown")
    total = max(len(exp), len(act))
    print(f"compared {total} games: {equal} equal"
          + ("" if not c.out else f", {total - equal} different, {len(c.out)} differences"))
    return 1 if c.out else 0


if __name__ == "__main__":
    sys.exit(main())
