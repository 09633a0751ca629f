#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Check PGN files with python-chess.

usage: pgn_check.py [-q] FILE...

Reads every game of every file with python-chess. Fails (exit 1) naming the file, the
game number, its players and the error when python-chess reports a parse error or an
illegal/ambiguous move (game.errors non-empty), when a FEN start position is
not a legal position (e.g. the side not to move is in check), when a file is not valid UTF-8, or when
a file holds no game at all. Prints "FILE: N games ok" per good file (unless -q) and
a summary line.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pgnlib import read_games  # noqa: E402


def check(path, quiet):
    problems = []
    try:
        with open(path, "rb") as f:
            f.read().decode("utf-8")
    except UnicodeDecodeError as e:
        problems.append(f"{path}: not valid UTF-8: {e}")
    except OSError as e:
        return [f"{path}: {e}"], 0
    n = 0
    for n, g in enumerate(read_games(path), start=1):
        for err in g.errors:
            h = dict(g.raw_tags)
            who = f"{h.get('White', '?')} - {h.get('Black', '?')}"
            problems.append(f"{path}: game {n} ({who}): {err}")
        if "FEN" in dict(g.raw_tags):
            board = g.board()
            if not board.is_valid():
                h = dict(g.raw_tags)
                problems.append(f"{path}: game {n} ({h.get('White', '?')} - {h.get('Black', '?')}): "
                                f"illegal start position {h['FEN']!r}: {board.status()!r}")
    if n == 0:
        problems.append(f"{path}: no games found")
    if not problems and not quiet:
        print(f"{path}: {n} games ok")
    return problems, n


def main(argv):
    quiet = False
    if argv and argv[0] == "-q":
        quiet, argv = True, argv[1:]
    if not argv:
        print(__doc__.strip().split("\n")[2], file=sys.stderr)
        return 2
    bad = 0
    total = 0
    for path in argv:
        problems, n = check(path, quiet)
        total += n
        for p in problems:
            print(p, file=sys.stderr)
        bad += bool(problems)
    print(f"checked {len(argv)} files, {total} games: {len(argv) - bad} files ok, {bad} with errors")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
