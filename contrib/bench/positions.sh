#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# contrib/bench/positions.sh DB MOUNTPOINT
#
# The position index (tree/, positions/) against SCID on the SCID 4 database DB: the time
# `gamefs export` takes, the time the index takes to build after a first mount (until
# .gamefs/stats says `position_index: ready`), the mount's memory, reading tree.txt (first and
# second read, on the mount that built it and on a new mount that maps the kept index),
# listing a position's games/ beside listing games/, and SCID's board search plus tree
# statistics for the same positions (tkscid, `clock milliseconds`). Needs gamefs on PATH (or
# GAMEFS_BIN), tkscid in /usr/games, fuse3.
set -eu
db=$1
mnt=$2
gamefs=${GAMEFS_BIN:-gamefs}
PATH="$PATH:/usr/games"
cache=$(mktemp -d)
export XDG_CACHE_HOME="$cache"
trap 'fusermount3 -uz "$mnt" 2>/dev/null || true; rm -rf "$cache"' EXIT
positions="tree tree/e4 tree/e4/c5 tree/e4/c5/Nf3/d6/d4/cxd4/Nxd4/Nf6/Nc3/a6"
now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc; }

t=$(now); "$gamefs" export -q -o /dev/null "$db"; echo "export: $(secs "$t" "$(now)") s"

mount_and_wait() {
    "$gamefs" mount -f "$db" "$mnt" 2>/dev/null &
    pid=$!
    while ! mountpoint -q "$mnt"; do sleep 0.05; done
    t=$(now)
    while ! grep -q "position_index: ready" "$mnt/.gamefs/stats"; do sleep 0.05; done
    echo "$1: index ready $(secs "$t" "$(now)") s after the mount"
}

reads() {
    for p in $positions; do
        t=$(now); cat "$mnt/$p/tree.txt" > /dev/null; first=$(secs "$t" "$(now)")
        t=$(now); cat "$mnt/$p/tree.txt" > /dev/null; second=$(secs "$t" "$(now)")
        echo "  $p/tree.txt: first read $first s, again $second s ($(head -c 0 /dev/null)$(tail -n +1 "$mnt/$p/tree.txt" | grep TOTAL || echo 'no games'))"
    done
    grep -E "VmRSS|VmHWM" "/proc/$pid/status" | tr -s ' \t' ' ' | sed 's/^/  /'
}

mount_and_wait "first mount"
reads
t=$(now); n=$(ls -f "$mnt/tree/games" | wc -l); echo "  ls -f tree/games: $n entries in $(secs "$t" "$(now)") s"
t=$(now); n=$(ls -f "$mnt/games" | wc -l); echo "  ls -f games: $n entries in $(secs "$t" "$(now)") s"
fusermount3 -u "$mnt"; wait "$pid" || true
ls -la "$cache"/gamefs/positions-* | awk '{print "  kept index: " $5 " bytes"}'
mount_and_wait "second mount"
reads
fusermount3 -u "$mnt"; wait "$pid" || true

script=$(mktemp)
cat > "$script" <<'TCL'
set base [sc_base open [lindex $argv 0]]
foreach line [lrange $argv 1 end] {
    sc_game new
    foreach m [split $line /] { if {$m ne "tree"} { sc_move addSan $m } }
    set t [clock milliseconds]
    sc_search board RESET E false false
    set s [clock milliseconds]
    sc_tree stats $base dbfilter
    set e [clock milliseconds]
    puts "  SCID $line: board search [expr {$s - $t}] ms + tree stats [expr {$e - $s}] ms, [sc_filter count] games"
}
TCL
# shellcheck disable=SC2086
tkscid "$script" "$db" $positions
rm -f "$script"
