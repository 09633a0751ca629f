#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""positions_check.py GAMES.pgn FENFILE

An independent recount with python-chess of which games reach each position of FENFILE (one
FEN a line) in their main line, and which move each plays there, counted as SCID's board
search counts: positions equal when the pieces stand on the same squares with the same side
to move (castling rights and en passant left out), each game once, at its first visit.

Prints per position:
    @@ LINE-NUMBER
    games: N1 N2 ...     (1-based numbers of the games in GAMES.pgn, ascending)
    moves: SAN=COUNT ... (SAN with check signs; [end] where games end, -- a null move;
                          sorted by SAN)
"""

import io
import sys

import chess
import chess.pgn


def key(board):
    return (board.board_fen(), board.turn)


def main():
    pgn_path, fen_path = sys.argv[1], sys.argv[2]
    wanted = {}
    fens = [line.strip() for line in open(fen_path) if line.strip()]
    for i, fen in enumerate(fens):
        wanted.setdefault(key(chess.Board(fen)), []).append(i)
    games = [[] for _ in fens]
    moves = [{} for _ in fens]
    # SCID stores every game as standard chess (a Variant tag is only a tag to it): read them
    # so, not as python-chess's variant boards.
    with open(pgn_path, encoding="utf-8", errors="replace") as f:
        text = "".join(l for l in f if not l.startswith("[Variant "))
    with io.StringIO(text) as f:
        number = 0
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            number += 1
            board = game.board()
            seen = set()
            node = game
            while True:
                k = key(board)
                nxt = node.variations[0] if node.variations else None
                if k not in seen:
                    seen.add(k)
                    for i in wanted.get(k, ()):
                        games[i].append(number)
                        if nxt is None:
                            san = "[end]"
                        elif not nxt.move:
                            san = "--"
                        else:
                            san = board.san(nxt.move)
                        moves[i][san] = moves[i].get(san, 0) + 1
                if nxt is None:
                    break
                board.push(nxt.move)
                node = nxt
    out = []
    for i in range(len(fens)):
        out.append(f"@@ {i + 1}")
        out.append("games: " + " ".join(map(str, games[i])))
        out.append("moves: " + " ".join(f"{s}={c}" for s, c in sorted(moves[i].items())))
    print("\n".join(out))


if __name__ == "__main__":
    main()
