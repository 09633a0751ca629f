#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# scid-import.sh [--force] PGN... DBBASE
#
# Build a SCID 4 database DBBASE.{si4,sn4,sg4} from PGN files with the real SCID
# (Debian package `scid` 4.7.4): the database is created with `tkscid` (`sc_base create`)
# and the games are imported with `sc_base import` inside tkscid, as Debian's own `sc_import`
# script does (its output, with the warnings as SCID's bytes).
#
# Exit status: 0 when every file was imported, 1 on any failure (scid missing, database
# already exists, create or import error). Nothing is silently ignored.
#
# --force   remove an existing DBBASE.{si4,sn4,sg4} first. Without it the script refuses
#           to touch an existing database: `sc_base create` on an existing name truncates
#           its .sg4 to 0 bytes before it notices that the .si4 exists (SCID 4.7.4 bug).
#
# What sc_import reports (SCID 4.7.4), per PGN file, on stdout; its exit status is 0 even
# when games were damaged or skipped:
#     Imported 7 games from x.pgn
#     There were no PGN errors or warnings.
# or
#     Imported 7 games from x.pgn
#     PGN errors/warnings:
#     (game 7, line 55) Failed to parse the move: Ke3
#     (game 7, line 55) End of game, ignored the part after the last error.
#     Ignored 1 chess960 game(s).
# - Only Chess960 games are really skipped ("Ignored N chess960 game(s).", not counted in N).
# - A game with an illegal/unparsable move is kept up to that move (rest dropped), with its result.
# - A tag with len(name)+len(value) > 240 is dropped: "Error parsing the tag pair: White "…"";
#   after the 3rd tag error in one game the game is kept WITHOUT moves ("End of game, ignored…").
# - A FEN whose side not to move is in check: "Error parsing the tag pair: FEN "…"" and the
#   game is kept from the standard start position without moves.
# - An 8th NAG on a move: "Invalid annotation symbol: $146" (the first 7 are kept).
# - Elo > 4000: "Error parsing the tag pair: WhiteElo "4001"" (tag dropped).
# - Result tag differing from the termination marker: "Final result did not match the header tag."
# Line numbers in these messages may be one less than the real line. Full list of SCID's
# normalizations: tests/data/README.md ("SCID findings").
set -eu

PATH="$PATH:/usr/games"
export PATH

die() { echo "scid-import.sh: $*" >&2; exit 1; }

force=0
if [ "${1:-}" = "--force" ]; then force=1; shift; fi
[ $# -ge 2 ] || die "usage: scid-import.sh [--force] PGN... DBBASE"

command -v tkscid >/dev/null 2>&1 || die "tkscid not found (install the Debian package 'scid')"

# last argument is the database base name (strip a .si4 suffix if given)
for a in "$@"; do db="$a"; done
db="${db%.si4}"

for ext in si4 sn4 sg4; do
    if [ -e "$db.$ext" ]; then
        [ $force -eq 1 ] || die "$db.$ext exists (use --force to replace it)"
        rm -f "$db.$ext"
    fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/create.tcl" <<'TCL'
if {[catch {sc_base create [lindex $argv 0]} b]} {
    puts stderr "sc_base create failed: $b"
    exit 1
}
sc_base close $b
exit 0
TCL
tkscid "$tmp/create.tcl" "$db" || die "could not create database $db"

# The import itself: what Debian's sc_import does (sc_base open, sc_base import, print the
# count and the warnings), except that the warnings are written as the bytes SCID holds.
# sc_import prints them through a UTF-8 channel and dies ("error writing stdout: invalid
# argument") when a warning quotes a byte that is not UTF-8 (a BOM, Latin-1 text), after
# the games were stored but before the next file.
cat >"$tmp/import.tcl" <<'TCL'
set b [sc_base open [lindex $argv 0]]
set pgn [lindex $argv 1]
if {[catch {sc_base import $b $pgn} r]} {
    puts stderr "Error importing \"$pgn\": $r"
    sc_base close $b
    exit 1
}
fconfigure stdout -translation binary
puts "Imported [lindex $r 0] games from $pgn"
set w [lindex $r 1]
if {$w eq ""} {
    puts "There were no PGN errors or warnings."
} else {
    puts "PGN errors/warnings:"
    puts [encoding convertto utf-8 $w]
}
sc_base close $b
exit 0
TCL

n=$#
i=1
for pgn in "$@"; do
    [ $i -lt $n ] || break
    i=$((i + 1))
    [ -r "$pgn" ] || die "cannot read $pgn"
    tkscid "$tmp/import.tcl" "$db" "$pgn" || die "sc_base import failed on $pgn"
done
