#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Write N short games with 2N distinct player names (deterministic).

usage: gen_many_names_pgn.py N OUT.pgn

Game k (1-based) is played by "<Surname><k>, <First>" (White, id 2k-1) and
"<Surname><k>, <First>" (Black, id 2k), built from small fixed lists so that names share
long prefixes (exercising SCID's front-coded name file), with a few non-ASCII ones.
N >= 32768 gives a database with >= 65,536 players, i.e. 3-byte player IDs in the .sn4.
Events and sites cycle through 300 and 40 values; the moves are one of 8 short openings.
The output is identical for identical arguments.
"""

import sys

SURNAMES = ["Aaron", "Ab", "Abé", "Adams", "Ärger", "Berg", "Carlsen", "Düring",
            "É", "Fischer", "Großmann", "Łukasz", "Müller", "Nakamura", "Østergaard",
            "Smith", "Zz"]
FIRSTS = ["A", "Anna", "Bo", "Émile", "J.", "Jürgen", "Li", "Zoë"]
OPENINGS = [
    ("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6", "C68"),
    ("1. d4 d5 2. c4 e6 3. Nc3 Nf6", "D37"),
    ("1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4", "B53"),
    ("1. c4 e5 2. Nc3 Nf6", "A22"),
    ("1. Nf3 d5 2. g3", "A07"),
    ("1. e4 e6 2. d4 d5", "C00"),
    ("1. d4 Nf6 2. c4 g6 3. Nc3 Bg7", "E61"),
    ("1. e4 c6 2. d4 d5 3. Nc3 dxe4", "B15"),
]
RESULTS = ["1-0", "0-1", "1/2-1/2", "*"]


def name(i):
    return "%s%d, %s" % (SURNAMES[i % len(SURNAMES)], i, FIRSTS[(i // 7) % len(FIRSTS)])


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().split("\n")[2], file=sys.stderr)
        return 2
    n = int(argv[0])
    with open(argv[1], "w", encoding="utf-8", newline="\n") as f:
        for k in range(1, n + 1):
            moves, eco = OPENINGS[k % len(OPENINGS)]
            res = RESULTS[k % len(RESULTS)]
            f.write('[Event "Many names %d"]\n[Site "Site %d"]\n[Date "%04d.%02d.%02d"]\n'
                    '[Round "%d"]\n[White "%s"]\n[Black "%s"]\n[Result "%s"]\n[ECO "%s"]\n\n'
                    '%s %s\n\n' % (k % 300, k % 40, 1950 + k % 70, 1 + k % 12, 1 + k % 28,
                                   1 + k % 9, name(2 * k - 1), name(2 * k), res, eco, moves, res))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
