#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# contrib/bench/run.sh quick|full|1m|10m [bench.py options...]
#
# The gamefs benchmark against Debian SCID (see BENCHMARKS.md). Builds gamefs (release) and the
# corpus generator (contrib/bench/gen, its own crate), then runs contrib/bench/bench.py:
#   quick  10 000 games (a couple of minutes; CI may run it as a smoke test, times not asserted)
#   full   100 000 games
#   1m     1 000 000 games (figure 5 still imports the 100 000-game corpus)
#   10m    10 000 000 games, on demand (hours; ~25 GB of disk): its own figures, each against its
#          peer and against the newest 1m run (GAMEFS_BENCH_10M_GAMES=N: N games instead, to
#          check the mode on a small database). Its corpus is that of a tenth as many games written ten times
#          (GAMEFS_BENCH_10M_REPEAT=1 generates it whole). Where the plain copy has no room (10
#          million files take ~50 GB), it is kept on ext4 with 2 KiB blocks in an image (~25
#          GB); where not even that fits, `ls -l` is compared with a sparse copy (same names
#          and sizes, no blocks; GAMEFS_BENCH_SPARE_GIB: disk left free, default 4)
# The table goes to stdout and the run is written as a new file of contrib/bench/runs/, from
# which the top table of BENCHMARKS.md is made again (--no-append: neither).
#
# Environment: GAMEFS_BENCH_DATA (corpora, databases; default /work/bench-data),
# GAMEFS_BENCH_MNT (mountpoints; default /work/bench-mnt), CARGO_TARGET_DIR (default
# /work/target-bench), BENCH_RUNS (runs per figure, default 3), GAMEFS_BIN, GAMEFS_COMMIT,
# GAMEFS_BUILD and GAMEFS_PGO (below).
# Needs: scid (tkscid, sc_import in /usr/games), fuse3, GNU time (/usr/bin/time), python3.
# Figure 18 (ChessBase) times cbh2pgn 0.2.0 beside gamefs when it is on PATH (pip install cbh2pgn==0.2.0).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
mode=${1:-quick}
[ $# -gt 0 ] && shift
case "$mode" in
quick) games=10000 ;;
full) games=100000 ;;
1m) games=1000000 ;;
10m) games=${GAMEFS_BENCH_10M_GAMES:-10000000}
     # the 1m corpus written ten times (events renamed per copy): generating ten million games
     # takes two hours on one core
     set -- --repeat "${GAMEFS_BENCH_10M_REPEAT:-10}" "$@" ;;
*) echo "usage: contrib/bench/run.sh quick|full|1m|10m [bench.py options]" >&2; exit 2 ;;
esac

PATH="$PATH:/usr/games"
export PATH
for tool in tkscid sc_import python3 cargo; do
    command -v "$tool" >/dev/null 2>&1 || { echo "run.sh: $tool not found (apt-get install scid python3 cargo)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "run.sh: /usr/bin/time not found (apt-get install time)" >&2; exit 1; }

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/work/target-bench}"
mnt="${GAMEFS_BENCH_MNT:-/work/bench-mnt}"
mkdir -p "$mnt"
# Whatever happens, leave no mount behind.
cleanup() {
    for m in $(awk -v root="$mnt/" 'index($2, root) == 1 { print $2 }' /proc/mounts); do
        umount -l "$m" 2>/dev/null || true
    done
}
trap cleanup EXIT INT TERM

# GAMEFS_BIN=path: use that gamefs binary instead of building the checkout (e.g. one built from
# a clean `git archive` while the working tree is being edited; GAMEFS_COMMIT names its commit).
# The checkout is built as it is installed: contrib/dev/release (profile-guided when it can be;
# GAMEFS_PGO=0 for a plain release build). How the binary was built goes into the record.
if [ -z "${GAMEFS_BIN:-}" ]; then
    GAMEFS_BIN=$("$repo/contrib/dev/release")
fi
build=$(cat "$GAMEFS_BIN.build" 2>/dev/null || echo "${GAMEFS_BUILD:-not recorded (set GAMEFS_BUILD)}")
(cd "$here/gen" && CARGO_TARGET_DIR="$CARGO_TARGET_DIR/bench-gen" cargo build --release --quiet)

python3 "$here/bench.py" --games "$games" \
    --gamefs "$GAMEFS_BIN" --build "$build" \
    --gen "$CARGO_TARGET_DIR/bench-gen/release/gamefs-bench-gen" \
    --runs "${BENCH_RUNS:-3}" --mode "$mode" "$@"
