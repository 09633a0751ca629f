# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared helpers for the PGN oracle scripts (python-chess based).

Games are read with a GameBuilder that
- keeps exactly the tags that were in the file (python-chess would otherwise fill in the
  Seven Tag Roster with "?" defaults and copy the termination marker into Result),
- records the game-termination marker separately (game.termination),
- keeps the tags in file order (game.raw_tags).
"""

import logging
import re

import chess
import chess.pgn

# python-chess logs every parse error; the scripts report them themselves.
logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)


class RawGame(chess.pgn.Game):
    """A Game whose headers start empty instead of with the Seven Tag Roster."""

    def __init__(self, headers=None):
        super().__init__(headers={} if headers is None else headers)
        self.raw_tags = []
        self.termination = None


class RawGameBuilder(chess.pgn.GameBuilder):
    def __init__(self):
        super().__init__(Game=RawGame)

    def end_headers(self):
        # The PGN standard escapes '"' and '\\' inside tag values; python-chess keeps the
        # escapes, so undo them here (a value SCID wrote without escapes is unchanged).
        for name, value in list(self.game.headers.items()):
            self.game.headers[name] = re.sub(r'\\(["\\])', r"\1", value)
        self.game.raw_tags = list(self.game.headers.items())
        return super().end_headers()

    def visit_result(self, result):
        self.game.termination = result
        # deliberately do not copy the marker into the Result tag


def read_games(path):
    """Yield RawGame objects from a PGN file (UTF-8, undecodable bytes replaced)."""
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        while True:
            game = chess.pgn.read_game(f, Visitor=RawGameBuilder)
            if game is None:
                return
            yield game


_ws = re.compile(r"\s+")


def norm_comment(text):
    """Whitespace-normalized comment: runs of whitespace collapsed, ends stripped."""
    return _ws.sub(" ", text or "").strip()


def move_label(board, move):
    """'12.Nf3' or '12...Nf3' for move played from board."""
    num = board.fullmove_number
    dots = "." if board.turn == chess.WHITE else "..."
    if move == chess.Move.null():
        san = "--"
    else:
        try:
            san = board.san(move)
        except Exception:  # pragma: no cover - only for broken games
            san = move.uci()
    return f"{num}{dots}{san}"
