#!/usr/bin/env bash
# Mounting a PGN file (plain and pzstd-compressed) against `zstdcat | grep` and `grep` over the
# plain file: first mount (indexing), remount (kept index), ls -l of a player folder, grep -Rc
# over it, 200 games read at random, and the peak RSS of the indexing and of the mount.
#
#   contrib/bench/pgnfile.sh [GAMES] [GAMEFS]    (default 100000 games, target/release/gamefs)
#
# The corpus is made by contrib/bench/gen (deterministic, seed 20240601) and kept in
# target/pgnbench/. Needs pzstd, zstd, GNU time (/usr/bin/time), fusermount3.
set -euo pipefail
cd "$(dirname "$0")/../.."
games=${1:-100000}
gamefs=$(realpath "${2:-target/release/gamefs}")
dir=target/pgnbench
mkdir -p "$dir"
dir=$(realpath "$dir")
# Built where run.sh builds it.
gen=$(realpath target)/bench-gen/release/gamefs-bench-gen
[ -x "$gen" ] || (cd contrib/bench/gen && CARGO_TARGET_DIR=../../../target/bench-gen cargo build --release --quiet)
pgn=$dir/g$games.pgn
[ -f "$pgn" ] || "$gen" "$games" --seed 20240601 -o "$pgn" --threads 2 >/dev/null
[ -f "$pgn.zst" ] || pzstd -q -p 2 "$pgn" -o "$pgn.zst"
export XDG_CACHE_HOME=$dir/cache
player="Carlsen, Magnus"
mnt=$dir/mnt
mkdir -p "$mnt"

# Seconds of wall time of a command (its output dropped).
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
    while pgrep -f "gamefs mount $1 " >/dev/null; do sleep 0.1; done
}

random_reads() {
    ls "$mnt/games" | shuf -n 200 --random-source=<(yes) | while read -r f; do cat "$mnt/games/$f"; done
}

echo "| file | size | first mount (index) | peak RSS indexing | remount | ls -l player ($player) | grep -Rc player | 200 random games | mount peak RSS |"
echo "|---|---|---|---|---|---|---|---|---|"
for f in "$pgn" "$pgn.zst"; do
    rm -rf "$XDG_CACHE_HOME"
    sync
    first=$(secs "$gamefs" mount "$f" "$mnt")
    unmount "$f"
    rm -rf "$XDG_CACHE_HOME"
    index_rss=$(peak "$gamefs" mount "$f" "$mnt")
    unmount "$f"
    again=$(secs "$gamefs" mount "$f" "$mnt")
    ls_l=$(secs ls -l "$mnt/players/$player/")
    grep_r=$(secs grep -Rc ' 1-0' "$mnt/players/$player/")
    reads=$(secs random_reads)
    pid=$(pgrep -n -f "gamefs mount $f" || true)
    rss=$(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$pid/status" 2>/dev/null || echo "?")
    unmount "$f"
    size=$(du -m "$f" | cut -f1)
    echo "| $(basename "$f") | ${size} MB | ${first} s | ${index_rss} MB | ${again} s | ${ls_l} s | ${grep_r} s | ${reads} s | ${rss} MB |"
done
echo
echo "| without gamefs | time |"
echo "|---|---|"
echo "| \`zstdcat $(basename "$pgn").zst \| grep -c '$player'\` | $(secs sh -c "zstdcat '$pgn.zst' | grep -c '$player'") s |"
echo "| \`grep -c '$player' $(basename "$pgn")\` (plain, in page cache) | $(secs grep -c "$player" "$pgn") s |"
