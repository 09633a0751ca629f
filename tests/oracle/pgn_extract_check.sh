#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# pgn_extract_check.sh FILE...
#
# Check PGN files with pgn-extract (Debian package pgn-extract, /usr/games/pgn-extract):
# `pgn-extract -s -r --allownullmoves FILE` reports every problem (illegal or unparsable
# move, bad FEN, bad tag, ...) on stderr but extracts nothing. pgn-extract's exit status is
# 0 even when it reports errors, so this script fails (exit 1) when stderr is not empty,
# printing the file name and pgn-extract's messages.
#
# --allownullmoves: SCID allows null moves ("--") in the main line too; pgn-extract only
# allows them in variations unless told otherwise.
# Known strictness of pgn-extract v19-04: a FEN tag with only 4 fields is reported as
# "Illegal FEN string"; such files are checked with pgn_check.py only.
set -u
PATH="$PATH:/usr/games"
export PATH
command -v pgn-extract >/dev/null 2>&1 || { echo "pgn_extract_check.sh: pgn-extract not found" >&2; exit 2; }
[ $# -ge 1 ] || { echo "usage: pgn_extract_check.sh FILE..." >&2; exit 2; }

err=$(mktemp)
trap 'rm -f "$err"' EXIT
bad=0
for f in "$@"; do
    if [ ! -r "$f" ]; then
        echo "$f: cannot read" >&2
        bad=$((bad + 1))
        continue
    fi
    pgn-extract -s -r --allownullmoves "$f" >/dev/null 2>"$err.raw"
    rc=$?
    # Large files make pgn-extract print progress ("Games: 1000", carriage returns): not problems.
    tr '\r' '\n' <"$err.raw" | sed -e 's/Games: [0-9]*//g' -e '/^[[:space:]]*$/d' >"$err"
    rm -f "$err.raw"
    if [ $rc -ne 0 ] || [ -s "$err" ]; then
        echo "$f: pgn-extract reported problems (exit $rc):" >&2
        sed 's/^/    /' "$err" >&2
        bad=$((bad + 1))
    else
        echo "$f: ok"
    fi
done
echo "pgn-extract checked $# files: $(( $# - bad )) ok, $bad with errors"
[ $bad -eq 0 ]
