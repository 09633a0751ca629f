#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Deterministic generator of PGN test data for gamefs (python-chess, fixed seeds).

usage:
  gen_test_pgn.py fixed OUTDIR          write the fixed edge-case files (tests/data/*.pgn)
  gen_test_pgn.py fuzz N OUT.pgn [--seed S] [--wild]
                                        write N random games for fuzz-style comparisons
  gen_test_pgn.py long PLIES OUT.pgn [--seed S]
                                        one random game of exactly PLIES plies

Everything is deterministic: the same arguments always give the same bytes.

Fuzz games use random legal moves and contain random comments (with special and
non-ASCII characters), NAGs, nested variations with starting comments, null moves (never
while in check), FEN starts and random tags (names, rating types, ECO, dates, EventDate,
extra tags). By default they stay inside what SCID 4 can store unchanged (at most one
move NAG $1-$6 and one evaluation NAG $10-$21 per move, at most 7 NAGs, EventDate within
±3 years of Date, names and tag values short), so `scid-import.sh` + `scid-export.sh` +
`tests/oracle/pgn_compare.py` should find them equal apart from SCID's documented
normalizations (see tests/data/README.md). --wild drops those limits.
"""

import os
import random
import sys

import chess
import chess.pgn

# ---------------------------------------------------------------------------------------
# Random building blocks

NAMES = ["Ab", "Abé", "Aaron", "Ärger", "É", "Øst, Åse", "Müller, Jürgen", "Łukasz",
         "Nakamura, 光", "Smith, John", "Smith, Jon", "Smith", "O'Brien", "de la Cruz",
         "Zz", "a", "Ab, Cd", "Abe", "Ab-e", "Abel", "ß", "Ñandú"]
EVENTS = ["Ch", "Ch-Open", "Open", "Rapid Cup", "Blitz Ärger", "Café Match", "Tournoi d'été"]
SITES = ["London", "Wien", "Zürich", "Moscow", "Москва", "?", "Reykjavík"]
RATING_TYPES = ["Elo", "Rating", "Rapid", "ICCF", "USCF", "DWZ", "ECF"]
COMMENT_WORDS = ["good", "bad", "unclear", "Idea:", "only move", "é à ü", "Ж", "光",
                 "\"quoted\"", "back\\slash", "semi;colon", "percent % sign", "[brackets]",
                 "(parens)", "$1 not a nag", "1. e4 not a move", "tab\there", "new\nline",
                 "*", "1-0", "<html>&amp;", "emoji \u265e", "a  double  space"]
EXTRA_TAGS = [("Annotator", "Annot, A."), ("Opening", "Sicilian"), ("Variation", "Najdorf"),
              ("Source", "gamefs test"), ("WhiteCountry", "GER"), ("BlackCountry", "ISL"),
              ("MyTag", "x"), ("TimeControl", "40/7200:3600"), ("Termination", "normal"),
              ("Mode", "OTB"), ("WhiteTeam", "Team Ä"), ("BlackFideId", "123456")]


def rand_comment(rng):
    return " ".join(rng.choice(COMMENT_WORDS) for _ in range(rng.randint(1, 4)))


def rand_nags(rng, wild):
    if wild:
        return set(rng.sample(range(1, 256), rng.randint(1, 8)))
    nags = set()
    if rng.random() < 0.7:
        nags.add(rng.randint(1, 6))
    if rng.random() < 0.4:
        nags.add(rng.randint(10, 21))
    while rng.random() < 0.3 and len(nags) < 7:
        nags.add(rng.randint(22, 255))
    return nags or {rng.randint(1, 6)}


def pick_move(rng, board, allow_null=False, avoid_end=True, capture_weight=1.0):
    """A random legal move (or a null move) that does not end the game if avoid_end."""
    if allow_null and not board.is_check() and rng.random() < 0.04:
        return chess.Move.null()
    moves = list(board.legal_moves)
    rng.shuffle(moves)
    if capture_weight != 1.0:
        moves.sort(key=lambda m: (board.is_capture(m) and rng.random() > capture_weight))
    for m in moves:
        if not avoid_end:
            return m
        board.push(m)
        over = board.is_checkmate() or board.is_stalemate() or board.is_insufficient_material()
        board.pop()
        if not over:
            return m
    return None


def random_fen(rng):
    """A legal position reached by a random playout (so castling/ep are plausible)."""
    while True:
        b = chess.Board()
        for _ in range(rng.randint(4, 60)):
            m = pick_move(rng, b)
            if m is None:
                break
            b.push(m)
        if not b.is_game_over() and any(True for _ in b.legal_moves):
            return b.fen()


def rand_date(rng):
    y = rng.randint(1850, 2030)
    m = rng.choice([0, rng.randint(1, 12)])
    d = rng.choice([0, rng.randint(1, 28)]) if m else 0
    return y, m, d


def fmt_date(y, m, d):
    return "%s.%s.%s" % (("%04d" % y) if y else "????", ("%02d" % m) if m else "??",
                         ("%02d" % d) if d else "??")


def add_line(rng, node, board, plies, depth, opts):
    """Append `plies` random plies below node; maybe add comments/NAGs/variations."""
    for _ in range(plies):
        m = pick_move(rng, board, allow_null=opts["null"])
        if m is None:
            return
        child = node.add_variation(m)
        if rng.random() < opts["p_nag"]:
            child.nags = rand_nags(rng, opts["wild"])
        if rng.random() < opts["p_comment"]:
            child.comment = rand_comment(rng)
        # alternatives to this move
        if depth < opts["max_depth"]:
            while rng.random() < opts["p_var"] / (1 + depth):
                alt = pick_move(rng, board, allow_null=opts["null"])
                if alt is None or alt in [v.move for v in node.variations]:
                    break
                v = node.add_variation(alt)
                if rng.random() < 0.2:
                    v.starting_comment = rand_comment(rng)
                if rng.random() < opts["p_nag"]:
                    v.nags = rand_nags(rng, opts["wild"])
                if rng.random() < opts["p_comment"]:
                    v.comment = rand_comment(rng)
                b2 = board.copy()
                b2.push(alt)
                add_line(rng, v, b2, rng.randint(0, 6), depth + 1, opts)
        board.push(m)
        node = child


def fuzz_game(rng, i, wild=False):
    g = chess.pgn.Game.without_tag_roster()
    h = g.headers
    y, mo, d = rand_date(rng)
    h["Event"] = rng.choice(EVENTS)
    h["Site"] = rng.choice(SITES)
    h["Date"] = fmt_date(y, mo, d)
    h["Round"] = rng.choice(["1", "2.3", "?", "", "12"])
    h["White"] = rng.choice(NAMES)
    h["Black"] = rng.choice(NAMES)
    h["Result"] = rng.choice(["1-0", "0-1", "1/2-1/2", "*"])
    for color in ("White", "Black"):
        if rng.random() < 0.6:
            h[color + rng.choice(RATING_TYPES)] = str(rng.randint(1000, 2850))
    if rng.random() < 0.6:
        h["ECO"] = "%s%02d%s" % (rng.choice("ABCDE"), rng.randint(0, 99),
                                 rng.choice(["", "", "", "a", "b3", "z4"]))
    if rng.random() < 0.3:
        off = rng.randint(-6, 6) if wild else rng.randint(-3, 3)
        ey = max(1, y + off)
        h["EventDate"] = fmt_date(ey, *rand_date(rng)[1:])
    for name, value in rng.sample(EXTRA_TAGS, rng.randint(0, 3)):
        h[name] = value
    board = chess.Board()
    if rng.random() < 0.15:
        fen = random_fen(rng)
        board = chess.Board(fen)
        h["SetUp"] = "1"
        h["FEN"] = fen
        g.setup(board)
    if rng.random() < 0.3:
        g.comment = rand_comment(rng)
    opts = dict(null=True, p_nag=0.15, p_comment=0.15, p_var=0.08, max_depth=4, wild=wild)
    add_line(rng, g, board.copy(), rng.randint(0, 120), 0, opts)
    return g


def long_game(plies, seed):
    """One game of exactly `plies` plies: random playout that never ends the game."""
    rng = random.Random(seed)
    while True:
        g = chess.pgn.Game()
        g.headers["Event"] = "gamefs test: %d plies" % plies
        g.headers["Site"] = "random playout, seed %d" % seed
        g.headers["Date"] = "2024.01.01"
        g.headers["Round"] = "-"
        g.headers["White"] = "Random, White"
        g.headers["Black"] = "Random, Black"
        g.headers["Result"] = "*"
        g.headers["PlyCount"] = str(plies)
        b = chess.Board()
        node = g
        ok = True
        for _ in range(plies):
            # rarely capture, so that enough material stays on the board
            m = pick_move(rng, b, capture_weight=0.1)
            if m is None:
                ok = False
                break
            node = node.add_variation(m)
            b.push(m)
        if ok:
            return g
        seed += 1000


def pgn_text(g, columns=80):
    return g.accept(chess.pgn.StringExporter(headers=True, variations=True, comments=True,
                                             columns=columns)) + "\n\n"


# ---------------------------------------------------------------------------------------
# Fixed edge-case files (hand-written PGN; every game is checked with python-chess)

FIXED = {}
# Files that one of the checkers rejects on purpose (written to OUTDIR/odd/):
# fen-4field.pgn (pgn-extract rejects 4-field FENs), result-mismatch.pgn (pgn-extract
# reports the inconsistent result), latin1.pgn (not UTF-8).
ODD = {}

FIXED["fen-starts.pgn"] = r'''
[Event "FEN equal to the start position"]
[Site "gamefs test"]
[Date "2024.01.01"]
[Round "1"]
[White "Fen, Start"]
[Black "Fen, Start"]
[Result "*"]
[SetUp "1"]
[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *

[Event "FEN with en-passant square, capture possible (black ep)"]
[Site "gamefs test"]
[Date "2024.01.01"]
[Round "2"]
[White "Fen, Ep"]
[Black "Fen, Ep"]
[Result "*"]
[SetUp "1"]
[FEN "4k3/8/8/8/4Pp2/8/8/4K3 b - e3 0 1"]

1... fxe3 2. Kf1 e2+ 3. Kxe2 *

[Event "FEN with en-passant square, no capture possible"]
[Site "gamefs test"]
[Date "2024.01.01"]
[Round "3"]
[White "Fen, Ep"]
[Black "Fen, NoEp"]
[Result "*"]
[SetUp "1"]
[FEN "4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1"]

1... Kd7 2. Kd2 *

[Event "FEN with black to move, move 37, partial castling rights"]
[Site "gamefs test"]
[Date "2024.01.01"]
[Round "4"]
[White "Fen, Black"]
[Black "Fen, Black"]
[Result "1/2-1/2"]
[SetUp "1"]
[FEN "r3k2r/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/R3K2R b Kq - 4 37"]

37... O-O-O 38. O-O Kb8 39. Rfe1 1/2-1/2

[Event "FEN piece-order example (spec 5.3)"]
[Site "gamefs test"]
[Date "2024.01.01"]
[Round "5"]
[White "Fen, Order"]
[Black "Fen, Order"]
[Result "*"]
[SetUp "1"]
[FEN "rnb1k2Q/1p5p/p7/4p3/4q3/8/PPP2R1P/2K5 b - - 0 1"]

1... Ke7 2. Qxh7+ Kd6 3. Rf6+ Kc5 4. Qc7+ Nc6 (4... Kb5 5. Qxb7+) 5. Rxc6+ bxc6 6.
Qxc6+ *

[Event "FEN without SetUp tag"]
[Site "gamefs test"]
[Date "2024.01.01"]
[Round "6"]
[White "Fen, NoSetUp"]
[Black "Fen, NoSetUp"]
[Result "1-0"]
[FEN "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"]

1. Ra8# 1-0

[Event "FEN with promotion and under-promotion from the start"]
[Site "gamefs test"]
[Date "2024.01.01"]
[Round "7"]
[White "Fen, Promo"]
[Black "Fen, Promo"]
[Result "*"]
[SetUp "1"]
[FEN "1n2k1n1/P6P/8/8/8/8/p6p/1N2K1N1 w - - 0 1"]

1. axb8=N (1. a8=Q Kd7 2. Qxb8 (2. h8=R)) 1... hxg1=N (1... h1=B 2. hxg8=R+ Ke7) 2. hxg8=Q+ *

'''

ODD["fen-4field.pgn"] = r'''
[Event "FEN with only 4 fields (pgn-extract rejects it; SCID appends 0 1)"]
[Site "gamefs test"]
[Date "2024.01.01"]
[Round "1"]
[White "Fen, Four"]
[Black "Fen, Four"]
[Result "*"]
[SetUp "1"]
[FEN "r3k2r/8/8/8/8/8/8/R3K2R w KQkq -"]

1. O-O O-O-O 2. Rab1 Rh3 *

'''

FIXED["special-moves.pgn"] = r'''
[Event "Promotion to every piece, both colours"]
[Site "gamefs test"]
[Date "2024.01.02"]
[Round "1"]
[White "Promo, White"]
[Black "Promo, Black"]
[Result "*"]
[SetUp "1"]
[FEN "8/PPPP4/7k/8/8/7K/pppp4/8 w - - 0 1"]

1. a8=Q a1=Q 2. b8=R b1=R 3. c8=B c1=B 4. d8=N d1=N 5. Qa7 Qa2 *

[Event "Promotion with capture, all pieces, in variations"]
[Site "gamefs test"]
[Date "2024.01.02"]
[Round "2"]
[White "Promo, White"]
[Black "Promo, Black"]
[Result "*"]
[SetUp "1"]
[FEN "r1n1k3/1P6/8/8/8/8/1p6/R1N1K3 w - - 0 1"]

1. bxa8=Q (1. bxa8=R) (1. bxa8=B) (1. bxa8=N) (1. b8=Q) 1... bxa1=Q (1... bxa1=R)
(1... bxa1=B) (1... bxa1=N) (1... b1=Q) 2. Qxc8+ Ke7 3. Qc7+ Kf6 *

[Event "En passant, both colours"]
[Site "gamefs test"]
[Date "2024.01.02"]
[Round "3"]
[White "Ep, White"]
[Black "Ep, Black"]
[Result "*"]

1. e4 Nf6 2. e5 d5 3. exd6 (3. Nc3) 3... cxd6 4. h4 a5 5. h5 g5 6. hxg6 (6. d4) 6...
a4 7. b4 axb3 (7... Nc6 8. b5) 8. axb3 Rxa1 *

[Event "Castling: all four"]
[Site "gamefs test"]
[Date "2024.01.02"]
[Round "4"]
[White "Castle, White"]
[Black "Castle, Black"]
[Result "*"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O (4. d3 d6 5. Be3 Be6 6. Qd2 Qd7 7. Nc3 O-O-O
8. O-O-O) 4... Nf6 (4... d6 5. d3 Be6 6. Nc3 Qd7 7. Be3 O-O-O) 5. d3 O-O 6. Nc3 d6 *

[Event "Castling: queen side both, then king side in variation"]
[Site "gamefs test"]
[Date "2024.01.02"]
[Round "5"]
[White "Castle, White"]
[Black "Castle, Black"]
[Result "*"]

1. d4 d5 2. Nc3 Nc6 3. Bf4 Bf5 4. Qd2 Qd7 5. O-O-O O-O-O (5... e6 6. e3 Nf6 7. Nf3
Be7 8. Be2 O-O) 6. e3 e6 *

[Event "Null moves, both sides, main line and variations"]
[Site "gamefs test"]
[Date "2024.01.02"]
[Round "6"]
[White "Null, White"]
[Black "Null, Black"]
[Result "*"]

1. e4 -- 2. d4 e5 3. -- exd4 (3... Nc6 4. -- --) 4. Nf3 (4. -- Nc6 5. Nf3) 4...
Nc6 *

[Event "Queen diagonal moves (two-byte moves in SCID), every direction"]
[Site "gamefs test"]
[Date "2024.01.02"]
[Round "7"]
[White "Queen, White"]
[Black "Queen, Black"]
[Result "*"]

1. e4 e5 2. Qh5 Qe7 3. Qf3 Qb4 4. Qd1 Qa5 5. Qg4 Qb6 6. Qd7+ Kxd7 7. d4 Qxd4 8.
Nf3 Qxb2 9. Bxb2 (9. Nfd2 Qxa1 10. Nb3 Qb2) *

[Event "Pawn captures in all directions and double steps"]
[Site "gamefs test"]
[Date "2024.01.02"]
[Round "8"]
[White "Pawn, White"]
[Black "Pawn, Black"]
[Result "*"]

1. e4 d5 2. exd5 e6 3. dxe6 fxe6 4. b4 a5 5. bxa5 b5 6. axb6 cxb6 7. g4 h5 8. gxh5
g5 9. hxg6 *

[Event "Checkmate and stalemate finishes"]
[Site "gamefs test"]
[Date "2024.01.02"]
[Round "9"]
[White "Mate, White"]
[Black "Mate, Black"]
[Result "0-1"]

1. f3 e5 2. g4 Qh4# 0-1

[Event "Stalemate"]
[Site "gamefs test"]
[Date "2024.01.02"]
[Round "10"]
[White "Stale, White"]
[Black "Stale, Black"]
[Result "1/2-1/2"]
[SetUp "1"]
[FEN "7k/8/6Q1/8/8/8/8/K7 w - - 0 1"]

1. Qf7 1/2-1/2

'''

FIXED["annotations.pgn"] = r'''
[Event "Comments and NAGs"]
[Site "gamefs test"]
[Date "2024.01.03"]
[Round "1"]
[White "Note, White"]
[Black "Note, Black"]
[Result "1-0"]

{Pre-game comment: this game is annotated.} 1. e4 $1 {Best by test.} e5 $2 2. Nf3
$14 Nc6 $36 3. Bb5 $1 $14 $36 $40 $132 $140 $146 {Seven NAGs that SCID keeps: one
move NAG, one evaluation NAG and five others.} a6 {Two comments} {on one move} 4.
Ba4 $5 (4. Bxc6 $6 {The exchange variation.} dxc6 $10) 4... Nf6 $7 5. O-O $3 $18
{Only move?} 1-0

[Event "NAGs: several move NAGs and several evaluation NAGs on one move"]
[Site "gamefs test"]
[Date "2024.01.03"]
[Round "2"]
[White "Note, White"]
[Black "Note, Black"]
[Result "*"]

1. d4 $1 $2 $3 $4 $5 $6 $7 d5 $10 $13 $14 $15 $16 $17 $18 2. c4 $1 $2 $10 $11 $22
$23 $24 *

[Event "NAG values: 0-255 range, symbols"]
[Site "gamefs test"]
[Date "2024.01.03"]
[Round "3"]
[White "Note, White"]
[Black "Note, Black"]
[Result "*"]

1. e4 ! e5 ? 2. Nf3 !! Nc6 ?? 3. Bc4 !? Bc5 ?! 4. c3 $255 Nf6 $139 5. d4 $201 $254 *

[Event "Comments at variation starts, after variations, before the result"]
[Site "gamefs test"]
[Date "2024.01.03"]
[Round "4"]
[White "Note, White"]
[Black "Note, Black"]
[Result "1/2-1/2"]

{C1} 1. d4 {C2} (1. b4 {C3} e5 {C4} (1... Na6 {C5}) 2. e4 {C6}) ({C7} 1. g4 {C8})
1... d5 {C9} 2. c4 ({Start of a variation} 2. Nf3 {and its end}) ({Only a
starting comment} 2. Bf4) 2... e6 {Comment before the result} 1/2-1/2

[Event "Comments with special characters"]
[Site "gamefs test"]
[Date "2024.01.03"]
[Round "5"]
[White "Note, White"]
[Black "Note, Black"]
[Result "*"]

{Quotes "double" and 'single', backslash \ and \\, percent %, semicolon ;, brackets
[x] (y) <z>, dollar $1, asterisk *, result 1-0, hash #, ampersand &amp;} 1. e4
{Non-ASCII: é à ü ß Æ Ø Å Ж 光 ♞ — “curly” ‘quotes’} e5 {Multiple   spaces and
a line
break} 2. Nf3 {[%clk 0:01:02] [%eval +0.25] clock and eval codes} Nc6 {[%csl
Ga1,Rb2][%cal Ge2e4] mark codes} 3. Bb5 {Tab	inside} a6 {} 4. Ba4 {A very
long comment: Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do
eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam,
quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat.
Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu
fugiat nulla pariatur. Excepteur sint occaecat cupidatat non proident, sunt in culpa
qui officia deserunt mollit anim id est laborum.} *

[Event "Only a comment, no moves"]
[Site "gamefs test"]
[Date "2024.01.03"]
[Round "6"]
[White "Note, White"]
[Black "Note, Black"]
[Result "*"]

{A game without moves but with a comment.} *

[Event "No moves, no comment"]
[Site "gamefs test"]
[Date "2024.01.03"]
[Round "7"]
[White "Note, White"]
[Black "Note, Black"]
[Result "1-0"]

1-0

'''

ODD["result-mismatch.pgn"] = r'''
[Event "Result tag disagrees with termination marker"]
[Site "gamefs test"]
[Date "2024.01.04"]
[Round "1"]
[White "Result, Tag"]
[Black "Result, Marker"]
[Result "1-0"]

1. e4 0-1

[Event "Result tag missing, termination marker 1/2-1/2"]
[Site "gamefs test"]
[Date "2024.01.04"]
[Round "2"]
[White "Result, None"]
[Black "Result, Marker"]

1. e4 1/2-1/2

'''

FIXED["nags8.pgn"] = r'''
[Event "Eight NAGs on one move (SCID 4 stores at most 7)"]
[Site "gamefs test"]
[Date "2024.01.03"]
[Round "1"]
[White "Note, Eight"]
[Black "Note, Eight"]
[Result "*"]

1. e4 $1 $14 $22 $32 $36 $40 $132 $146 e5 *

'''

FIXED["tags.pgn"] = r'''
[Event "Rating types White Elo / Black Rating"]
[Site "gamefs test"]
[Date "2024.01.04"]
[Round "1"]
[White "Rating, Elo"]
[Black "Rating, Rating"]
[Result "1-0"]
[WhiteElo "2700"]
[BlackRating "2100"]

1. e4 1-0

[Event "Rating types White Rapid / Black ICCF"]
[Site "gamefs test"]
[Date "2024.01.04"]
[Round "2"]
[White "Rating, Rapid"]
[Black "Rating, ICCF"]
[Result "0-1"]
[WhiteRapid "2200"]
[BlackICCF "2300"]

1. e4 0-1

[Event "Rating types White USCF / Black DWZ"]
[Site "gamefs test"]
[Date "2024.01.04"]
[Round "3"]
[White "Rating, USCF"]
[Black "Rating, DWZ"]
[Result "1/2-1/2"]
[WhiteUSCF "1800"]
[BlackDWZ "1700"]

1. e4 1/2-1/2

[Event "Rating types White ECF / Black Elo"]
[Site "gamefs test"]
[Date "2024.01.04"]
[Round "4"]
[White "Rating, ECF"]
[Black "Rating, Elo"]
[Result "*"]
[WhiteECF "180"]
[BlackElo "1500"]

1. e4 *

[Event "Rating types: all of them on one game (first recognised wins)"]
[Site "gamefs test"]
[Date "2024.01.04"]
[Round "5"]
[White "Rating, Many"]
[Black "Rating, Many"]
[Result "*"]
[WhiteDWZ "2001"]
[WhiteElo "2002"]
[WhiteRating "2003"]
[WhiteRapid "2004"]
[WhiteICCF "2005"]
[WhiteUSCF "2006"]
[WhiteECF "2007"]
[BlackICCF "2101"]
[BlackElo "2102"]
[BlackRating "2103"]
[BlackRapid "2104"]
[BlackUSCF "2105"]
[BlackDWZ "2106"]
[BlackECF "2107"]

1. d4 *

[Event "Rating: out of range, zero, non-numeric, old BCF name"]
[Site "gamefs test"]
[Date "2024.01.04"]
[Round "6"]
[White "Rating, Big"]
[Black "Rating, Odd"]
[Result "*"]
[WhiteElo "4001"]
[BlackElo "0"]
[WhiteBCF "190"]
[BlackRating "abc"]

1. d4 *

[Event "ECO codes: extended B91a3"]
[Site "gamefs test"]
[Date "2024.01.04"]
[Round "7"]
[White "Eco, Ext"]
[Black "Eco, Ext"]
[Result "*"]
[ECO "B91a3"]

1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. g3 *

[Event "ECO codes: E99z4 (largest)"]
[Site "gamefs test"]
[Date "2024.01.04"]
[Round "8"]
[White "Eco, Max"]
[Black "Eco, Max"]
[Result "*"]
[ECO "E99z4"]

1. d4 *

[Event "ECO codes: A00"]
[Site "gamefs test"]
[Date "2024.01.04"]
[Round "9"]
[White "Eco, Min"]
[Black "Eco, Min"]
[Result "*"]
[ECO "A00"]

1. g4 *

[Event "ECO codes: lower case and partial (c1)"]
[Site "gamefs test"]
[Date "2024.01.04"]
[Round "10"]
[White "Eco, Partial"]
[Black "Eco, Partial"]
[Result "*"]
[ECO "c1"]

1. e4 e5 *

[Event "ECO codes: ? and invalid"]
[Site "gamefs test"]
[Date "2024.01.04"]
[Round "11"]
[White "Eco, None"]
[Black "Eco, None"]
[Result "*"]
[ECO "?"]

1. e4 e5 *

[Event "EventDate within the window (-3 years)"]
[Site "gamefs test"]
[Date "2020.05.17"]
[Round "12"]
[White "Date, A"]
[Black "Date, B"]
[Result "*"]
[EventDate "2017.01.01"]

1. e4 *

[Event "EventDate within the window (+3 years)"]
[Site "gamefs test"]
[Date "2020.05.17"]
[Round "13"]
[White "Date, A"]
[Black "Date, B"]
[Result "*"]
[EventDate "2023.12.31"]

1. e4 *

[Event "EventDate within the window (same year, partial)"]
[Site "gamefs test"]
[Date "2020.05.17"]
[Round "14"]
[White "Date, A"]
[Black "Date, B"]
[Result "*"]
[EventDate "2020.05.??"]

1. e4 *

[Event "EventDate outside the window (-4 years)"]
[Site "gamefs test"]
[Date "2020.05.17"]
[Round "15"]
[White "Date, A"]
[Black "Date, B"]
[Result "*"]
[EventDate "2016.05.15"]

1. e4 *

[Event "EventDate outside the window (+4 years)"]
[Site "gamefs test"]
[Date "2020.05.17"]
[Round "16"]
[White "Date, A"]
[Black "Date, B"]
[Result "*"]
[EventDate "2024.05.15"]

1. e4 *

[Event "EventDate with unknown Date year"]
[Site "gamefs test"]
[Date "????.??.??"]
[Round "17"]
[White "Date, A"]
[Black "Date, B"]
[Result "*"]
[EventDate "2020.05.15"]

1. e4 *

[Event "Dates: partial and odd"]
[Site "gamefs test"]
[Date "1851.06.??"]
[Round "18"]
[White "Date, A"]
[Black "Date, B"]
[Result "*"]
[EventDate "1851.??.??"]

1. e4 *

[Event "Extra tags: common ones SCID stores with codes"]
[Site "gamefs test"]
[Date "2024.01.04"]
[Round "19"]
[White "Extra, Tags"]
[Black "Extra, Tags"]
[Result "1-0"]
[WhiteCountry "GER"]
[BlackCountry "ISL"]
[Annotator "Annot, A."]
[PlyCount "3"]
[Opening "Ruy Lopez"]
[Variation "Berlin"]
[Source "gamefs"]

1. e4 e5 2. Nf3 1-0

[Event "Extra tags: custom, UTCDate, Setup spelling, escapes"]
[Site "gamefs test"]
[Date "2024.01.04"]
[Round "20"]
[White "Extra, Custom"]
[Black "Extra, Custom"]
[Result "*"]
[MyTag "x"]
[UTCDate "2024.01.05"]
[UTCTime "12:34:56"]
[TimeControl "40/7200:3600"]
[Termination "normal"]
[Quoted "say \"hi\" and back\\slash"]
[Empty ""]
[lowercase "tag name starting lower case"]
[Tag_With_Underscore "1"]

1. c4 *

[Event "UTCDate without Date"]
[Site "gamefs test"]
[Round "21"]
[White "Extra, Utc"]
[Black "Extra, Utc"]
[Result "*"]
[UTCDate "2019.03.04"]

1. c4 *

[Event "Setup spelled Setup, no FEN"]
[Site "gamefs test"]
[Date "2024.01.04"]
[Round "22"]
[White "Extra, Setup"]
[Black "Extra, Setup"]
[Result "*"]
[Setup "0"]

1. c4 *

[Event ""]
[Site ""]
[Date "2024.01.04"]
[Round ""]
[White ""]
[Black ""]
[Result "*"]

1. e4 *

[Event "?"]
[Site "?"]
[Date "2024.01.04"]
[Round "?"]
[White "?"]
[Black "?"]
[Result "*"]

1. e4 *

[White "Missing, Tags"]
[Result "1-0"]

1. e4 1-0

[Event "No tags at all follows"]
[Site "gamefs test"]
[Date "2024.01.04"]
[Round "25"]
[White "?"]
[Black "?"]
[Result "*"]

*

1. d4 d5 *

[Event "Tags in an unusual order"]
[Black "Order, Black"]
[Result "1/2-1/2"]
[Annotator "First"]
[White "Order, White"]
[Round "27"]
[Date "2024.01.04"]
[Site "gamefs test"]

1. e4 1/2-1/2

'''

FIXED["names.pgn"] = r'''
[Event "Names with shared prefixes: Ab"]
[Site "Zürich"]
[Date "2024.01.05"]
[Round "1"]
[White "Ab"]
[Black "Abé"]
[Result "*"]

1. e4 *

[Event "Names with shared prefixes: Aaron"]
[Site "Zurich"]
[Date "2024.01.05"]
[Round "2"]
[White "Aaron"]
[Black "Ärger"]
[Result "*"]

1. e4 *

[Event "Names with shared prefixes: É"]
[Site "Z"]
[Date "2024.01.05"]
[Round "3"]
[White "É"]
[Black "E"]
[Result "*"]

1. e4 *

[Event "Names: case and accents"]
[Site "Reykjavík"]
[Date "2024.01.05"]
[Round "4"]
[White "ab"]
[Black "AB"]
[Result "*"]

1. e4 *

[Event "Names: Abel, Abe, Ab-e"]
[Site "Москва"]
[Date "2024.01.05"]
[Round "5"]
[White "Abel"]
[Black "Abe"]
[Result "*"]

1. e4 *

[Event "Names: Ab-e, Ab, Cd"]
[Site "東京"]
[Date "2024.01.05"]
[Round "6"]
[White "Ab-e"]
[Black "Ab, Cd"]
[Result "*"]

1. e4 *

[Event "Names: scripts"]
[Site "Αθήνα"]
[Date "2024.01.05"]
[Round "7"]
[White "Nakamura, 光"]
[Black "Ørsted, Åse"]
[Result "*"]

1. e4 *

[Event "Names: ß, Ł, Ñ, spaces"]
[Site "Łódź"]
[Date "2024.01.05"]
[Round "8"]
[White "Großmann, Łukasz"]
[Black "Ñandú,  Double Space"]
[Result "*"]

1. e4 *

[Event "Names: leading and trailing spaces"]
[Site " Site "]
[Date "2024.01.05"]
[Round " 9 "]
[White " Lead"]
[Black "Trail "]
[Result "*"]

1. e4 *

[Event "Names: same player as White and Black"]
[Site "gamefs test"]
[Date "2024.01.05"]
[Round "10"]
[White "Ab"]
[Black "Ab"]
[Result "*"]

1. e4 *

[Event "Names: punctuation"]
[Site "gamefs test"]
[Date "2024.01.05"]
[Round "11"]
[White "O'Brien, Seán"]
[Black "de la Cruz / van der Berg (jr.)"]
[Result "*"]

1. e4 *

'''


def long_names_pgn():
    """Tag values around SCID's 240-byte limit (name + value <= 240 on import)."""
    out = []
    for i, n in enumerate([200, 234, 235, 236, 240, 250, 255, 300], start=1):
        white = ("W%03d-" % n + "x" * n)[:n]
        out.append('[Event "Long values: White is %d bytes"]\n[Site "gamefs test"]\n'
                   '[Date "2024.01.06"]\n[Round "%d"]\n[White "%s"]\n[Black "Long, Values"]\n'
                   '[Result "*"]\n[Annotator "%s"]\n[LongTag "%s"]\n\n1. e4 *\n\n'
                   % (n, i, white, ("A%03d-" % n + "a" * n)[:n], ("L%03d-" % n + "l" * n)[:n]))
    return "".join(out)


def deep_variations_pgn():
    """Variations nested 50 levels deep, and one move with 30 sibling variations."""
    rng = random.Random(50)
    g = chess.pgn.Game()
    g.headers["Event"] = "Variations nested 50 levels deep"
    g.headers["Site"] = "gamefs test"
    g.headers["Date"] = "2024.01.07"
    g.headers["Round"] = "1"
    g.headers["White"] = "Deep, White"
    g.headers["Black"] = "Deep, Black"
    board = chess.Board()
    node = g
    # main line of 60 plies; at depth k the variation replaces the 2nd move of the
    # enclosing line, and contains the next level
    line_node, line_board = g, board.copy()
    for _ in range(60):
        m = pick_move(rng, line_board)
        line_node = line_node.add_variation(m)
        line_board.push(m)
    parent, pboard = g.variations[0], chess.Board()
    pboard.push(parent.move)
    for depth in range(1, 51):
        main_child = parent.variations[0]
        alt = [m for m in pboard.legal_moves if m != main_child.move]
        alt_move = rng.choice(alt)
        v = parent.add_variation(alt_move)
        if depth % 10 == 0:
            v.starting_comment = "level %d" % depth
        v.comment = "depth %d" % depth if depth % 7 == 0 else ""
        b2 = pboard.copy()
        b2.push(alt_move)
        # the variation continues with 3 plies; the next level hangs off its first move
        n2, b3 = v, b2.copy()
        for _ in range(3):
            m = pick_move(rng, b3)
            n2 = n2.add_variation(m)
            b3.push(m)
        parent, pboard = v, b2
    g.headers["Result"] = "*"
    txt = pgn_text(g)

    g2 = chess.pgn.Game()
    for k, v in (("Event", "Thirty sibling variations on one move"), ("Site", "gamefs test"),
                 ("Date", "2024.01.07"), ("Round", "2"), ("White", "Wide, White"),
                 ("Black", "Wide, Black"), ("Result", "*")):
        g2.headers[k] = v
    b = chess.Board()
    for m in list(b.legal_moves)[:20]:
        n = g2.add_variation(m)
        b2 = b.copy()
        b2.push(m)
        n.add_variation(list(b2.legal_moves)[0])
    e4 = g2.variations[0].variations[0]
    b.push(g2.variations[0].move)
    b.push(e4.move)
    for m in list(b.legal_moves)[:30]:
        e4.add_variation(m)
    return txt + pgn_text(g2)


def write_fixed(outdir):
    os.makedirs(outdir, exist_ok=True)
    files = dict(FIXED)
    files["long-tags.pgn"] = long_names_pgn()
    files["deep-variations.pgn"] = deep_variations_pgn()
    lg = ""
    for plies, seed in ((1023, 1), (1024, 2), (1025, 3), (1100, 4)):
        lg += pgn_text(long_game(plies, seed))
    files["long-games.pgn"] = lg
    fz = "".join(pgn_text(fuzz_game(random.Random(1000 + i), i)) for i in range(30))
    files["fuzz-seed1000.pgn"] = fz
    odddir = os.path.join(outdir, "odd")
    os.makedirs(odddir, exist_ok=True)
    for d, group in ((outdir, files), (odddir, ODD)):
        for name, text in sorted(group.items()):
            text = text.lstrip("\n")
            check_text(name, text)
            with open(os.path.join(d, name), "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
            print("wrote %s (%d bytes)" % (os.path.join(d, name), len(text.encode())))
    # Latin-1 input (not UTF-8): SCID converts such bytes to UTF-8 on import.
    latin1 = ('[Event "Latin-1 encoded names (not UTF-8)"]\n[Site "Z\xfcrich"]\n'
              '[Date "2024.01.08"]\n[Round "1"]\n[White "R\xe9ti, Richard"]\n'
              '[Black "\xc4rger, J\xfcrgen"]\n[Result "*"]\n\n{Caf\xe9 comment} 1. e4 *\n\n')
    p = os.path.join(odddir, "latin1.pgn")
    with open(p, "wb") as f:
        f.write(latin1.encode("latin-1"))
    print("wrote %s (Latin-1)" % p)


def check_text(name, text):
    import io
    f = io.StringIO(text)
    n = 0
    while True:
        g = chess.pgn.read_game(f)
        if g is None:
            break
        n += 1
        if g.errors:
            raise SystemExit("%s: game %d: %s" % (name, n, g.errors))
        if "FEN" in g.headers and not g.board().is_valid():
            raise SystemExit("%s: game %d: illegal start position %s (%s)"
                             % (name, n, g.headers["FEN"], g.board().status()))
    if n == 0:
        raise SystemExit("%s: no games" % name)


def main(argv):
    if len(argv) >= 2 and argv[0] == "fixed":
        write_fixed(argv[1])
        return 0
    seed = None
    wild = False
    args = []
    i = 0
    while i < len(argv):
        if argv[i] == "--seed":
            seed = int(argv[i + 1])
            i += 2
        elif argv[i] == "--wild":
            wild = True
            i += 1
        else:
            args.append(argv[i])
            i += 1
    if len(args) == 3 and args[0] == "fuzz":
        n, out = int(args[1]), args[2]
        seed = 1 if seed is None else seed
        with open(out, "w", encoding="utf-8", newline="\n") as f:
            for k in range(n):
                f.write(pgn_text(fuzz_game(random.Random(seed * 1000003 + k), k, wild)))
        return 0
    if len(args) == 3 and args[0] == "long":
        with open(args[2], "w", encoding="utf-8", newline="\n") as f:
            f.write(pgn_text(long_game(int(args[1]), 1 if seed is None else seed)))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
