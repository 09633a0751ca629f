#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# scid-export.sh [--method game|export|scidpgn] DBBASE OUT.pgn
#
# Write SCID's own PGN export of every game of the SCID 4 database DBBASE (1..numGames,
# deleted games included, in game-number order) to OUT.pgn ("-" = stdout), using the
# installed Debian SCID 4.7.4 (`tkscid`). The database is not modified.
#
# Methods (all three were compared on tests/data; see tests/data/README.md):
#   game     (default) tkscid: for N in 1..numGames: `sc_game load N`, then
#            `sc_game pgn -tags 1 -comments 1 -variations 1 -symbols 0 -width 1000000`.
#            Includes everything SCID stores: all tags (the index tags, rating-type tags such
#            as WhiteUSCF, ECO incl. extended codes, EventDate, SetUp/FEN, every extra tag),
#            the pre-game comment, comments, variations, NAGs as $n, null moves as "--",
#            and deleted games. The huge width keeps each game's movetext on one line, so
#            comment text is not re-wrapped. A game that fails to load is reported on stderr
#            (and the exit status is 1); the other games are still written.
#   export   tkscid `sc_base export filter PGN OUT -comments 1 -variations 1 -symbols 0
#            -noMarkCodes 0 -convertNullMoves 0 -column 0 -indentC 0 -indentV 0 -space 0`
#            (the GUI's "export filter" path; the filter of a freshly opened base holds all
#            games, deleted ones too). Wraps lines at ~80 columns.
#   scidpgn  Debian's /usr/games/scidpgn (`sc_game pgn -tags 1 -comments 1 -var 1
#            -width 75`). Same content as "game" but wrapped at 75 columns; it stops at
#            the first game that fails to load and prints its errors on stdout.
#
# Do not use `sc_game pgn -markCodes 1`: in 4.7.4 it prints the first move's comment in
# place of the pre-game comment.
set -eu

PATH="$PATH:/usr/games"
export PATH

die() { echo "scid-export.sh: $*" >&2; exit 1; }

method=game
if [ "${1:-}" = "--method" ]; then method="${2:-}"; shift 2; fi
[ $# -eq 2 ] || die "usage: scid-export.sh [--method game|export|scidpgn] DBBASE OUT.pgn"
command -v tkscid >/dev/null 2>&1 || die "tkscid not found (install the Debian package 'scid')"

db="${1%.si4}"
out="$2"
[ -e "$db.si4" ] || die "no such database: $db.si4"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

case "$method" in
game)
    cat >"$tmp/export.tcl" <<'TCL'
fconfigure stdout -encoding utf-8 -translation lf
if {[catch {sc_base open [lindex $argv 0]} b]} {
    # a version-300 base opens read-only and still returns its handle
    if {![string is integer -strict $b]} {
        puts stderr "cannot open [lindex $argv 0]: $b"
        exit 1
    }
}
set out [lindex $argv 1]
if {$out eq "-"} { set f stdout } else { set f [open $out w] }
fconfigure $f -encoding utf-8 -translation lf
set n [sc_base numGames $b]
set bad 0
for {set i 1} {$i <= $n} {incr i} {
    if {[catch {sc_game load $i} err]} {
        puts stderr "game $i: cannot load: $err"
        incr bad
        continue
    }
    puts $f [sc_game pgn -tags 1 -comments 1 -variations 1 -symbols 0 -width 1000000]
}
if {$f ne "stdout"} { close $f }
sc_base close $b
exit [expr {$bad ? 1 : 0}]
TCL
    tkscid "$tmp/export.tcl" "$db" "$out"
    ;;
export)
    [ "$out" != "-" ] || out=/dev/stdout
    cat >"$tmp/export.tcl" <<'TCL'
proc ::progressCallBack {args} {}
if {[catch {sc_base open [lindex $argv 0]} b]} {
    if {![string is integer -strict $b]} {
        puts stderr "cannot open [lindex $argv 0]: $b"
        exit 1
    }
}
if {[catch {sc_base export filter PGN [lindex $argv 1] -append 0 -starttext "" -endtext "" \
        -comments 1 -variations 1 -space 0 -symbols 0 -indentC 0 -indentV 0 -column 0 \
        -noMarkCodes 0 -convertNullMoves 0} err]} {
    puts stderr "sc_base export failed: $err"
    exit 1
}
sc_base close $b
exit 0
TCL
    tkscid "$tmp/export.tcl" "$db" "$out"
    ;;
scidpgn)
    command -v scidpgn >/dev/null 2>&1 || die "scidpgn not found"
    if [ "$out" = "-" ]; then scidpgn "$db"; else scidpgn "$db" >"$out"; fi
    ;;
*)
    die "unknown method: $method"
    ;;
esac
