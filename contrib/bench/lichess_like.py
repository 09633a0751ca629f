#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A lichess-shaped PGN file of about a million games, for contrib/bench/pgnfile.sh lichess.

    contrib/bench/lichess_like.py SOURCE.pgn OUT.pgn [COPIES]

SOURCE is a piece of a real lichess dump (tests/data/realworld.tar.xz holds one:
realworld/pgn-toys-lichess/lichess.pgn, 999 games of October 2021, with clocks in every
move's comment). It is written COPIES times (default 1001: 999,999 games), each game with a
Site of its own (as in the dumps, where the Site is the game's address) and each copy's players
renamed by the copy's number modulo 50 (some 100,000 players), so that the index holds as many
names as a dump of that many games does."""
import re
import sys

ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def game_id(n):
    """Eight characters, a different id for each n below 62**8."""
    out = bytearray()
    for _ in range(8):
        out.append(ALPHABET[n % 62])
        n //= 62
    return bytes(out)


def main():
    source, dest = sys.argv[1], sys.argv[2]
    copies = int(sys.argv[3]) if len(sys.argv) > 3 else 1001
    with open(source, "rb") as f:
        text = f.read()
    games = 0
    with open(dest, "wb") as out:
        for copy in range(copies):
            def site(_):
                nonlocal games
                games += 1
                return b'[Site "https://lichess.org/' + game_id(games * 7919) + b'"]'

            piece = re.sub(rb'\[Site "https://lichess\.org/[^"]*"\]', site, text)
            piece = re.sub(rb'\[(White|Black) "([^"]*)"\]',
                           lambda m: b"[%s \"%s_%d\"]" % (m.group(1), m.group(2), copy % 50), piece)
            out.write(piece if piece.endswith(b"\n\n") else piece + b"\n")
    print(f"{games} games -> {dest}", file=sys.stderr)


if __name__ == "__main__":
    main()
