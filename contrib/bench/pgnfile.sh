#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Mounting a PGN file against its peers: the same games as plain files, and `zstdcat | grep` /
# `grep` over the file. For the file plain, compressed by pzstd (many frames, as the lichess
# dumps), by gzip (one member, read from checkpoints, see docs/guide/pgn-files.md) and by lbzip2 (one
# stream, read by its blocks): first mount
# (the indexing), its peak RSS, remount (kept index), `ls -l` of the biggest player folder,
# `grep -Rc` over it, games read at random, and the mount's peak RSS.
#
#   contrib/bench/pgnfile.sh [GAMES|realworld|lichess] [GAMEFS]
#       GAMES      a generated corpus of that many games (default 100000; contrib/bench/gen,
#                  seed 20240601)
#       realworld  the real-world corpus of tests/data/realworld.tar.xz as one file (its 216
#                  files one after another: 20 603 games from a dozen sources)
#       lichess    a lichess-shaped file of 999 999 games (2.3 GB): the 999 games of a real
#                  lichess dump in that corpus written 1001 times, each game with a Site of its
#                  own (contrib/bench/lichess_like.py)
#       GAMEFS     the binary (default target/release/gamefs)
#
# Files are kept in target/pgnbench/. Page caches are warm (each figure runs right after the
# one before). Needs pzstd, zstd, gzip, lbzip2, GNU time (/usr/bin/time), fusermount3, bc.
set -euo pipefail
cd "$(dirname "$0")/../.."
what=${1:-100000}
gamefs=$(realpath "${2:-target/release/gamefs}")
dir=target/pgnbench
mkdir -p "$dir"
dir=$(realpath "$dir")
if [ "$what" = lichess ]; then
    pgn=$dir/lichess.pgn
    if [ ! -f "$pgn" ]; then
        tar -xJf tests/data/realworld.tar.xz -C "$dir" realworld/pgn-toys-lichess/lichess.pgn
        contrib/bench/lichess_like.py "$dir/realworld/pgn-toys-lichess/lichess.pgn" "$pgn.tmp"
        rm -rf "$dir/realworld"
        mv "$pgn.tmp" "$pgn"
    fi
elif [ "$what" = realworld ]; then
    pgn=$dir/realworld.pgn
    if [ ! -f "$pgn" ]; then
        tar -xJf tests/data/realworld.tar.xz -C "$dir"
        find "$dir/realworld" -name '*.pgn' | LC_ALL=C sort | while read -r f; do
            cat "$f"
            printf '\n\n'
        done >"$pgn.tmp"
        rm -rf "$dir/realworld"
        mv "$pgn.tmp" "$pgn"
    fi
else
    # Built where run.sh builds it.
    gen=$(realpath target)/bench-gen/release/gamefs-bench-gen
    [ -x "$gen" ] || (cd contrib/bench/gen && CARGO_TARGET_DIR=../../../target/bench-gen cargo build --release --quiet)
    pgn=$dir/g$what.pgn
    [ -f "$pgn" ] || "$gen" "$what" --seed 20240601 -o "$pgn" --threads 2 >/dev/null
fi
[ -f "$pgn.zst" ] || pzstd -q -p 2 "$pgn" -o "$pgn.zst"
[ -f "$pgn.gz" ] || gzip -c "$pgn" >"$pgn.gz"
[ -f "$pgn.bz2" ] || lbzip2 -n 2 -c "$pgn" >"$pgn.bz2"
export XDG_CACHE_HOME=$dir/cache
mnt=$dir/mnt
mkdir -p "$mnt"
reads=200      # games read at random (a gzip file too: it is read from checkpoints)

# Seconds of wall time of a command (its output dropped). A grep's output goes through a
# pipe: GNU grep stops at its first match when its output is /dev/null, whatever -c says.
secs() {
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l | xargs printf '%.2f'
}

# Peak RSS in MB of a command, from GNU time.
peak() {
    /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.0f", $1 / 1024}'
}

# Unmount and wait until the mount's process has ended (it keeps its game sizes at exit).
unmount() {
    umount "$mnt"
    while pgrep -f "$gamefs mount $1 " >/dev/null; do sleep 0.1; done
}
trap 'umount -l "$mnt" 2>/dev/null || true' EXIT

# Read the games named in file $2 (one name a line) from folder $1.
read_games() {
    while read -r f; do cat "$1/$f"; done <"$2"
}

# The peers, from a mount of the plain file: the biggest player folder, and the same games as
# plain files (that folder's games, and the games read at random).
rm -rf "$XDG_CACHE_HOME"
"$gamefs" mount "$pgn" "$mnt"
# (not the folder of games naming no player, "(none)")
player=$(find "$mnt/players" -mindepth 2 -maxdepth 2 -printf '%h\n' |
    awk -F/ '{ n[$NF]++ } END { for (p in n) if (p != "(none)") print n[p] "\t" p }' |
    sort -rn | sed -n 1p | cut -f2)
players_games=$(ls "$mnt/players/$player" | wc -l)
ls "$mnt/games" | shuf -n "$reads" --random-source=<(yes) >"$dir/random.txt"
plain=$dir/plain-$(basename "$pgn")
rm -rf "$plain"
mkdir -p "$plain/player" "$plain/games"
cp -rL "$mnt/players/$player/." "$plain/player/"
read_games "$mnt/games" "$dir/random.txt" >/dev/null
while read -r f; do cp "$mnt/games/$f" "$plain/games/"; done <"$dir/random.txt"
unmount "$pgn"

echo "Games: $(basename "$pgn"), the biggest player folder: $player ($players_games games)."
echo
echo "| file | size | first mount (index) | peak RSS indexing | remount | ls -l player | grep -Rc player | games read at random | mount peak RSS |"
echo "|---|---|---|---|---|---|---|---|---|"
for f in "$pgn" "$pgn.zst" "$pgn.gz" "$pgn.bz2"; do
    list=$dir/random.txt
    rm -rf "$XDG_CACHE_HOME"
    sync
    first=$(secs "$gamefs" mount "$f" "$mnt")
    unmount "$f"
    rm -rf "$XDG_CACHE_HOME"
    index_rss=$(peak "$gamefs" mount "$f" "$mnt")
    unmount "$f"
    again=$(secs "$gamefs" mount "$f" "$mnt")
    ls_l=$(secs ls -l "$mnt/players/$player/")
    grep_r=$(secs sh -c "grep -Rc ' 1-0' '$mnt/players/$player/' | cat")
    random=$(secs read_games "$mnt/games" "$list")
    pid=$(pgrep -n -f "$gamefs mount $f" || true)
    rss=$(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$pid/status" 2>/dev/null || echo "?")
    unmount "$f"
    size=$(du -mL "$f" | cut -f1)
    echo "| $(basename "$f") | ${size} MB | ${first} s | ${index_rss} MB | ${again} s | ${ls_l} s | ${grep_r} s | ${random} s ($(wc -l <"$list")) | ${rss} MB |"
done
echo "| the same games as plain files | | | | | $(secs ls -l "$plain/player/") s | $(secs sh -c "grep -Rc ' 1-0' '$plain/player/' | cat") s | $(secs read_games "$plain/games" "$dir/random.txt") s ($reads) | |"
echo
echo "| without gamefs | time |"
echo "|---|---|"
echo "| \`zstdcat $(basename "$pgn").zst \| grep -c '$player'\` | $(secs sh -c "zstdcat '$pgn.zst' | grep -c '$player' | cat") s |"
echo "| \`zcat $(basename "$pgn").gz \| grep -c '$player'\` | $(secs sh -c "zcat '$pgn.gz' | grep -c '$player' | cat") s |"
echo "| \`lbzip2 -d -n 2 -c $(basename "$pgn").bz2 \| grep -c '$player'\` | $(secs sh -c "lbzip2 -d -n 2 -c '$pgn.bz2' | grep -c '$player' | cat") s |"
echo "| \`grep -c '$player' $(basename "$pgn")\` (plain, in page cache) | $(secs sh -c "grep -c '$player' '$pgn' | cat") s |"
echo "| \`cat $(basename "$pgn") > /dev/null\` (in page cache) | $(secs cat "$pgn") s |"
