#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""gamefs benchmark against Debian SCID 4.7 (tkscid / sc_import). Run it via contrib/bench/run.sh.

bench.py --games N --mode MODE [--import-games M] --gamefs BIN --gen BIN [--runs R] [--data DIR]
         [--mnt DIR] [--no-append] [--label TEXT]

Generates (once, cached in DATA) a deterministic corpus of N random legal games, imports it with
SCID's sc_import and with `gamefs import`, checks both databases hold the same games, then
measures the figures of the benchmark (see BENCHMARKS.md), each the median of R runs with
min-max, prints a table with the ratio to SCID and writes the run as a new file of
contrib/bench/runs/ (runlog.py: the top table of BENCHMARKS.md is made again from those files).
"""

import argparse
import atexit
import datetime
import glob
import io
import itertools
import json
import os
import platform
import random
import re
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import time

import runlog

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SEED = 20240601  # the corpus's seed; the PGO training uses its own (contrib/dev/release)
PLAYER = "Carlsen, Magnus"  # the generator's most frequent player
GREP_WORD = "Carlsen"
VIEW_FOLDERS = ("players", "events", "sites", "years", "eco")  # a chess mount's views (src/collection/chess.rs VIEWS)
MOUNTS = set()  # mountpoints to unmount on the way out
DAEMON_PEAKS = []  # (what, peak RSS KiB) of every gamefs daemon
LOG = []


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# `gamefs import` exits 3 when it stored every game, some with changes (what SCID holds only in
# part, fitted as sc_import fits it: an EventDate beside a Date of unknown year, say).
IMPORTED = (0, 3)


def sh(cmd, timeout=600, check=True, capture=True, env=None, ok=(0,)):
    """Run a shell command (its exit status one of `ok`); return its stdout (text)."""
    p = subprocess.run(
        cmd, shell=True, timeout=timeout, env=env, text=True,
        stdout=subprocess.PIPE if capture else None, stderr=subprocess.PIPE,
    )
    if check and p.returncode not in ok:
        raise RuntimeError(f"command failed ({p.returncode}): {cmd}\n{p.stderr[-2000:]}")
    return p.stdout or ""


def q(s):
    return "'" + str(s).replace("'", "'\\''") + "'"


def timed(cmd, timeout=900, ok=(0,)):
    """Wall time of one shell command (output into a pipe, read here)."""
    t0 = time.perf_counter()
    out = sh(cmd, timeout=timeout, ok=ok)
    return time.perf_counter() - t0, out


# ------------------------------------------------------------------ mounts


def is_mounted(mnt):
    mnt = os.path.realpath(mnt)
    with open("/proc/self/mountinfo") as f:
        return any(line.split()[4] == mnt for line in f)


def unmount(mnt, proc=None):
    # (right after `ls -l` of ten million games, `umount -l` took more than 30 s)
    subprocess.run(["umount", "-l", mnt], timeout=600, stderr=subprocess.DEVNULL)
    MOUNTS.discard(mnt)
    if proc is not None:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.terminate()
            proc.wait(timeout=10)


def unmount_all():
    for m in list(MOUNTS):
        unmount(m)


def daemon_pid(mnt):
    """The pid of the gamefs process serving mnt (scan /proc for our own daemon)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        # the detached daemon's argv may differ from ours ("gamefs DB MNT …", mount(8) style)
        if argv and os.path.basename(argv[0]).startswith(b"gamefs") and mnt.encode() in argv:
            return int(pid)
    return None


def rss_anon(pid):
    """The anonymous memory process `pid` holds now (KiB): its own, not the pages of files it
    maps (the index's, which the page cache holds and VmHWM counts too); 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def vm_hwm(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def forget_sizes():
    """As on a new user's first mount: no game sizes kept by an earlier mount (gamefs keeps them
    in $XDG_CACHE_HOME/gamefs, which main() points into the data directory)."""
    shutil.rmtree(os.path.join(os.environ["XDG_CACHE_HOME"], "gamefs"), ignore_errors=True)


class ForegroundMount:
    """`/usr/bin/time -v gamefs mount -f DB MNT` in the background; peak RSS when it ends.
    `opts`: more `-o` words; the sizes kept by earlier mounts are forgotten unless keep_sizes."""

    def __init__(self, gamefs, db, mnt, what, ro=False, opts=(), keep_sizes=False):
        self.mnt, self.what = mnt, what
        self.rss_file = mnt.rstrip("/") + ".time"
        os.makedirs(mnt, exist_ok=True)
        if not keep_sizes:
            forget_sizes()
        args = ["/usr/bin/time", "-v", "-o", self.rss_file, gamefs, "mount", db, mnt, "-f"]
        words = (["ro"] if ro else []) + list(opts)
        if words:
            args += ["-o", ",".join(words)]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        MOUNTS.add(mnt)
        deadline = time.time() + 120
        while not is_mounted(mnt):
            if self.proc.poll() is not None:
                raise RuntimeError(f"gamefs mount failed: {self.proc.stderr.read().decode()}")
            if time.time() > deadline:
                raise RuntimeError("gamefs mount: not ready after 120 s")
            time.sleep(0.002)

    def close(self):
        unmount(self.mnt, self.proc)
        DAEMON_PEAKS.append((self.what, max_rss(self.rss_file)))


def max_rss(time_v_file):
    with open(time_v_file) as f:
        m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", f.read())
    return int(m.group(1)) if m else 0


# ------------------------------------------------------------------ SCID (tkscid Tcl)

TCL_OPEN = r"""
proc ::progressCallBack {args} {}
if {[catch {sc_base open [lindex $argv 0]} b]} {
    if {![string is integer -strict $b]} { puts stderr "cannot open: $b"; exit 1 }
}
"""

TCL_CREATE = r"""
if {[catch {sc_base create [lindex $argv 0]} b]} { puts stderr "sc_base create failed: $b"; exit 1 }
sc_base close $b
exit 0
"""

TCL_COUNT = TCL_OPEN + r"""puts [sc_base numGames $b]
exit 0
"""

# open the base (timed in-process too), nothing else
TCL_OPEN_ONLY = r"""
set t0 [clock microseconds]
""" + TCL_OPEN + r"""
puts [expr {[clock microseconds] - $t0}]
exit 0
"""

TCL_EXPORT_LOOP = TCL_OPEN + r"""
set f [open [lindex $argv 1] w]
fconfigure $f -encoding utf-8 -translation lf
set n [sc_base numGames $b]
set last [expr {[llength $argv] > 2 ? [lindex $argv 2] : $n}]
for {set i 1} {$i <= $last} {incr i} {
    if {[catch {sc_game load $i}]} { continue }
    puts $f [sc_game pgn -tags 1 -comments 1 -variations 1 -symbols 0 -width 1000000]
}
close $f
exit 0
"""

TCL_EXPORT_BASE = TCL_OPEN + r"""
sc_base export filter PGN [lindex $argv 1] -append 0 -starttext "" -endtext "" \
    -comments 1 -variations 1 -space 0 -symbols 0 -indentC 0 -indentV 0 -column 0 \
    -noMarkCodes 0 -convertNullMoves 0
exit 0
"""

# header search for a player (as White, then OR as Black: -ignore does not work in 4.7.4), then
# list the games found; microseconds per run
TCL_PLAYER = TCL_OPEN + r"""
set name [lindex $argv 1]
set runs [lindex $argv 2]
for {set r 0} {$r < $runs} {incr r} {
    set t0 [clock microseconds]
    set f [sc_filter new $b]
    sc_filter search $b $f header -white $name
    sc_filter search $b $f header -filter OR -black $name
    set c [sc_filter count $b $f]
    set l [sc_base gameslist $b 0 $c $f N+]
    set t [expr {[clock microseconds] - $t0}]
    puts "$t $c [llength $l]"
    sc_filter release $b $f
}
exit 0
"""


def tcl(script_text, *args, timeout=1800):
    path = os.path.join(DATA, "bench.tcl")
    with open(path, "w") as f:
        f.write(script_text)
    return sh("tkscid " + q(path) + " " + " ".join(q(a) for a in args), timeout=timeout)


def tcl_file(name, text):
    path = os.path.join(DATA, name)
    with open(path, "w") as f:
        f.write(text)
    return path


# ------------------------------------------------------------------ statistics / table


def stat(xs):
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "runs": len(xs)}


def fmt_s(st, unit="s"):
    if st is None:
        return "—"
    if unit == "s":
        f = lambda v: f"{v * 1000:.0f} ms" if v < 1 else f"{v:.2f} s"  # noqa: E731
        g = lambda v: f"{v * 1000:.0f}" if v < 1 else f"{v:.2f}"  # noqa: E731
        return f"{f(st['median'])} ({g(st['min'])}–{g(st['max'])})"
    if unit in ("ms", "µs"):
        return f"{st['median']:.1f} {unit} ({st['min']:.1f}–{st['max']:.1f})"
    if unit in ("MiB", "B"):
        return f"{st['median']:.0f} {unit}"
    return str(st)


ROWS = []


RAW = {}  # key -> [median, unit] (unit "s", "ms" or "MiB"): kept in the run file


def row(num, what, gf, peer, ratio_txt, target, met, unit="s", peer_name="", key=None):
    """One row of the table; met None: no target (a floor, or a figure shown for comparison).
    `key` names the figure in the run's raw figures (what the 10m mode compares with 1m)."""
    if target == "—" and peer is not None and "floor" in str(what):
        met = None
    ROWS.append({
        "num": num, "what": what, "gamefs": fmt_s(gf, unit), "peer": fmt_s(peer, unit) if peer else "—",
        "peer_name": peer_name, "ratio": ratio_txt, "target": target,
        "met": "" if met is None else ("met" if met else "MISSED"),
        "raw_gamefs": gf, "raw_peer": peer, "key": key, "unit": unit,
    })
    # logged as it is measured: a later figure's failure must not lose it
    log(f"row: {num} | {what} | {fmt_s(gf, unit)} | {fmt_s(peer, unit) if peer else '—'} {peer_name} | {ratio_txt}")
    if key:
        RAW[key] = [gf["median"], unit]
        if peer:
            RAW[key + "/peer"] = [peer["median"], unit]


def table_md():
    out = ["| # | what | gamefs median (min–max) | peer median (min–max) | gamefs / peer | target | |",
           "|---|---|---|---|---|---|---|"]
    for r in ROWS:
        peer = r["peer"] + (f" — {r['peer_name']}" if r["peer_name"] else "")
        out.append(f"| {r['num']} | {r['what']} | {r['gamefs']} | {peer} | {r['ratio']} | {r['target']} | {r['met']} |")
    return "\n".join(out)


# ------------------------------------------------------------------ steps


def corpus(gen, n, seed, repeat=1):
    """The generated corpus of `n` games (made once in DATA): its path and the generator's
    statistics. `repeat` K > 1: the corpus of n/K games written K times, copy k's Event tags
    ending in " (k)", so that each copy's games are games of their own events (the generator
    makes some 1 300 games a second on one core: ten million would take two hours)."""
    if repeat > 1:
        return repeated_corpus(gen, n, seed, repeat)
    path = os.path.join(DATA, f"corpus-{n}-s{seed}.pgn")
    if not os.path.exists(path):
        log(f"generating {n} games -> {path}")
        t0 = time.perf_counter()
        err = subprocess.run([gen, str(n), "--seed", str(seed), "-o", path + ".tmp"],
                             stderr=subprocess.PIPE, text=True, timeout=3600, check=True).stderr
        os.rename(path + ".tmp", path)
        with open(path + ".stats", "w") as f:
            f.write(err.strip() + f" [{time.perf_counter() - t0:.1f} s]\n")
    with open(path + ".stats") as f:
        return path, f.read().strip()


def repeated_corpus(gen, n, seed, repeat):
    if n % repeat:
        raise SystemExit(f"--repeat {repeat} does not divide {n} games")
    base, stats = corpus(gen, n // repeat, seed)
    path = os.path.join(DATA, f"corpus-{n}-s{seed}-x{repeat}.pgn")
    if not os.path.exists(path):
        log(f"writing {base} {repeat} times -> {path}")
        with open(base, "rb") as f:
            text = f.read()
        with open(path + ".tmp", "wb") as out:
            out.write(text)
            for k in range(2, repeat + 1):
                out.write(re.sub(rb'(?m)^\[Event "(.*)"\]$',
                                 lambda m: b'[Event "' + m.group(1) + f' ({k})"]'.encode(), text))
        os.rename(path + ".tmp", path)
        with open(path + ".stats", "w") as f:
            f.write(f"{stats} -- written {repeat} times, copy k's events named \"EVENT (k)\"\n")
    with open(path + ".stats") as f:
        return path, f.read().strip()


# Copies of each part of the real-world corpus in its file: some 40 000-50 000 games, so that an
# export takes long enough that starting a process does not decide the ratio (2 211 games held
# out, 17 733 trained on).
REALWORLD_COPIES = {"held-out": 20, "trained": 3}


def realworld(which):
    """One PGN file of the real-world corpus (tests/data/realworld.tar.xz, made once in DATA):
    the folders the PGO training never sees (contrib/dev/pgo-held-out) or all the others, each
    file REALWORLD_COPIES times."""
    path = os.path.join(DATA, f"realworld-{which}.pgn")
    if os.path.exists(path):
        return path
    with open(os.path.join(REPO, "contrib", "dev", "pgo-held-out")) as f:
        held_out = {line.strip() for line in f if line.strip() and not line.startswith("#")}
    d = os.path.join(DATA, "realworld")
    shutil.rmtree(d, ignore_errors=True)
    sh(f"tar -xJf {q(os.path.join(REPO, 'tests', 'data', 'realworld.tar.xz'))} -C {q(DATA)}")
    with open(path + ".tmp", "wb") as out:
        for folder in sorted(os.listdir(d)):
            if (folder in held_out) != (which == "held-out"):
                continue
            for root, _, files in sorted(os.walk(os.path.join(d, folder))):
                for name in sorted(files):
                    if name.endswith(".pgn"):
                        with open(os.path.join(root, name), "rb") as f:
                            out.write((f.read() + b"\n\n") * REALWORLD_COPIES[which])
    shutil.rmtree(d)
    os.rename(path + ".tmp", path)
    return path


def scid_create(db):
    for ext in ("si4", "sn4", "sg4"):
        if os.path.exists(f"{db}.{ext}"):
            os.remove(f"{db}.{ext}")
    tcl(TCL_CREATE, db)


def rm_db(db):
    for ext in ("si4", "sn4", "sg4"):
        if os.path.exists(f"{db}.{ext}"):
            os.remove(f"{db}.{ext}")


def databases(args, pgn, name):
    """SCID's and gamefs's import of the corpus into DATA/name (cached); returns (scid_db,
    gamefs_db, info)."""
    d = os.path.join(DATA, name)
    os.makedirs(d, exist_ok=True)
    scid_db, gf_db = os.path.join(d, "scid"), os.path.join(d, "gamefs")
    info = {}
    stamp = os.path.join(d, "done.json")
    if os.path.exists(stamp) and os.path.getmtime(stamp) > os.path.getmtime(pgn):
        with open(stamp) as f:
            return scid_db, gf_db, json.load(f)
    log(f"importing {pgn} with sc_import and gamefs import")
    rss = os.path.join(d, "import.time")
    scid_create(scid_db)
    # sc_import of a given file (--pgn) may import every game, then fail to print its warnings
    # ("error writing stdout: invalid argument", text in other encodings): the games are counted
    t, _ = timed(f"/usr/bin/time -v -o {q(rss)} sc_import {q(scid_db)} {q(pgn)}", timeout=14400,
                 ok=(0, 1) if args.pgn else (0,))
    info["sc_import_s"], info["sc_import_rss_mib"] = round(t, 2), round(max_rss(rss) / 1024, 1)
    rm_db(gf_db)
    # a given file (--pgn) may hold games SCID 4 cannot hold: gamefs import leaves them out
    # (exit status 4) or stops at the first it cannot read (1)
    t, _ = timed(f"/usr/bin/time -v -o {q(rss)} {q(args.gamefs)} import {q(gf_db)} {q(pgn)} --create -q",
                 timeout=14400, ok=IMPORTED + ((1, 4) if args.pgn else ()))
    info["gamefs_import_s"], info["gamefs_import_rss_mib"] = round(t, 2), round(max_rss(rss) / 1024, 1)
    with open(stamp, "w") as f:
        json.dump(info, f)
    return scid_db, gf_db, info


def verify(args, scid_db, gf_db, n):
    """Both databases hold the same games: counts, gamefs export, SCID's export of a sample."""
    res = {}
    cs = int(tcl(TCL_COUNT, scid_db).strip())
    cg = int(tcl(TCL_COUNT, gf_db).strip())
    res["games (sc_import / gamefs import)"] = f"{cs} / {cg}"
    a, b = os.path.join(DATA, "v-scid.pgn"), os.path.join(DATA, "v-gamefs.pgn")
    if n <= 200_000:
        sh(f"{q(args.gamefs)} export {q(scid_db)} -o {q(a)}", timeout=3600)
        sh(f"{q(args.gamefs)} export {q(gf_db)} -o {q(b)}", timeout=3600)
        same_export = sh(f"cmp -s {q(a)} {q(b)} && echo same || echo DIFFERENT").strip()
        res["gamefs export of both"] = same_export
    else:  # two full exports take minutes; the SCID sample below still compares games
        same_export = "same"
        res["gamefs export of both"] = "skipped (more than 200 000 games)"
    sample = str(min(n, 2000))
    tcl(TCL_EXPORT_LOOP, scid_db, a, sample)
    tcl(TCL_EXPORT_LOOP, gf_db, b, sample)
    key = f"SCID export of games 1–{sample} of both"
    res[key] = sh(f"cmp -s {q(a)} {q(b)} && echo same || echo DIFFERENT").strip()
    if res[key] == "DIFFERENT":
        # known: SCID keeps [SetUp "1"] as an extra tag of FEN games, gamefs import does not
        def lines(path):
            with open(path, "rb") as f:
                return f.read().splitlines()
        la, lb = lines(a), lines(b)
        setup_a = sum(1 for x in la if x.startswith(b"[SetUp "))
        setup_b = sum(1 for x in lb if x.startswith(b"[SetUp "))
        same_rest = [x for x in la if not x.startswith(b"[SetUp ")] == [x for x in lb if not x.startswith(b"[SetUp ")]
        rest = "same" if same_rest else "DIFFERENT"
        if rest == "same":
            res[key] = (f"same except [SetUp \"1\"]: SCID shows it for {setup_a} FEN games of its own import, "
                        f"{setup_b} of gamefs's (gamefs import drops the tag SCID stores)")
    files = []
    for ext in ("si4", "sn4", "sg4"):
        same = subprocess.run(["cmp", "-s", f"{scid_db}.{ext}", f"{gf_db}.{ext}"]).returncode == 0
        files.append(f".{ext} {'identical' if same else 'differ'}")
    res["database files"] = ", ".join(files)
    os.remove(a)
    os.remove(b)
    ok = cs == cg == n and same_export == "same" and "DIFFERENT" not in res[key]
    return ok, res


def drop_caches():
    if os.geteuid() != 0:
        return False
    sh("sync; echo 3 > /proc/sys/vm/drop_caches")
    return True


def bench_export(args, db, runs):
    out = os.path.join(DATA, "export-out.pgn")
    loop = tcl_file("export-loop.tcl", TCL_EXPORT_LOOP)
    base = tcl_file("export-base.tcl", TCL_EXPORT_BASE)
    scripts = (("sc_game pgn loop", loop), ("sc_base export", base))
    # Rounds of one run each, interleaved: a machine whose speed drifts over the minutes
    # (a shared host) then slows every contender alike instead of whichever ran last.
    gf, times = [], {name: [] for name, _ in scripts}
    for _ in range(runs):
        gf.append(timed(f"{q(args.gamefs)} export {q(db)} -o {q(out)}", timeout=3600)[0])
        size_gf = os.path.getsize(out)
        for name, script in scripts:
            times[name].append(timed(f"tkscid {q(script)} {q(db)} {q(out)}", timeout=3600)[0])
    peers = {name: stat(t) for name, t in times.items()}
    os.remove(out)
    best = min(peers, key=lambda k: peers[k]["median"])
    g, p = stat(gf), peers[best]
    speedup = p["median"] / g["median"]
    row(1, f"export all games to PGN ({size_gf / 2**20:.0f} MiB)", g, p, f"{speedup:.2f}× faster" if speedup >= 1 else f"{1 / speedup:.2f}× slower",
        "≥ 5× faster", speedup >= 5, key="export", peer_name=f"SCID {best} (other: {fmt_s(peers[[k for k in peers if k != best][0]])})")


def mount_ls(args, db, folder, runs, flags=""):
    """Times of `gamefs mount DB MNT` (returns when ready) + `ls FLAGS MNT/folder`, the entries,
    the times of the mount alone and `ls`'s own CPU times."""
    mnt = os.path.join(MNT, "m2")
    os.makedirs(mnt, exist_ok=True)
    gf, ready, ls_cpu = [], [], []
    cpu = os.path.join(DATA, "ls.cpu")
    for _ in range(runs):
        MOUNTS.add(mnt)
        forget_sizes()
        t_mount = timed(f"timeout 600 {q(args.gamefs)} mount {q(db)} {q(mnt)}")[0]
        t_ls, out = timed(f"/usr/bin/time -f '%U %S' -o {q(cpu)} timeout 600 ls {flags} {q(mnt)}/{folder} | wc -l")
        gf.append(t_mount + t_ls)
        ready.append(t_mount)
        with open(cpu) as f:
            ls_cpu.append(sum(map(float, f.read().split()[-2:])))
        pid = daemon_pid(mnt)
        if pid:
            DAEMON_PEAKS.append((f"mount + ls {folder}/", vm_hwm(pid)))
        unmount(mnt)
        if pid:
            for _ in range(3000):
                if not os.path.exists(f"/proc/{pid}"):
                    break
                time.sleep(0.01)
    os.remove(cpu)
    return gf, int(out.strip()), ready, ls_cpu


def cold_ls(folder, runs, flags=""):
    """Times of `ls FLAGS folder`, each with the page cache dropped first."""
    times = []
    for _ in range(runs):
        drop_caches()
        times.append(timed(f"ls {flags} {q(folder)} | wc -l")[0])
    return times


def warm_index(db):
    """Read the index and name files of DB into the page cache (not timed), so that opening it
    costs each contender the same: whichever ran first would otherwise pay for reading them
    from the disk (at ten million games a 448 MiB index, which the earlier figures evict)."""
    sh(f"cat {q(db)}.si4 {q(db)}.sn4 > /dev/null")


def bench_mount_ls(args, db, runs, games, pgn):
    warm_index(db)
    gf, nfiles, ready, ls_cpu = mount_ls(args, db, "games", runs)
    script = tcl_file("open.tcl", TCL_OPEN_ONLY)
    warm_index(db)
    peer = [timed(f"tkscid {q(script)} {q(db)}")[0] for _ in range(runs)]
    g, p = stat(gf), stat(peer)
    ratio = g["median"] / p["median"]
    row(2, f"mount ready + first `ls games/` ({nfiles} files)", g, p, f"{ratio:.2f}×", "≤ 2× SCID", ratio <= 2,
        peer_name="tkscid process: `sc_base open`", key="mount_ls_games")
    r = stat(ready)
    row(2, "of which the mount, until ready", r, p, f"{r['median'] / p['median']:.2f}×", "—", None,
        peer_name="tkscid process: `sc_base open`", key="mount_ready")
    # `ls` sorts what it lists: n log n comparisons, its own (user and system) CPU time
    c = stat(ls_cpu)
    row(2, "of which `ls`'s own CPU time (reading the entries, sorting the names)", c, None, "—", "—",
        None, key="mount_ls_cpu")
    # The floor: the same `ls` of a local directory of empty files with the same names (the
    # sparse copy of figure 9 when the plain copy does not fit: its inodes are not spent twice).
    if plain_copy_fits(db, games, pgn):
        plain = plain_names_dir(args, db, "games", lambda m: f"cd {q(m)}/games && ls | "
                                f"(cd {{dest}} && xargs -d '\\n' touch)", files=nfiles)
    else:
        plain = sparse_copy(args, db)
    if plain is None:
        log(f"figure 2′ skipped: {NO_PLAIN_COPY}")
        return nfiles
    f = stat(cold_ls(plain, runs))
    kind = "empty files" if plain_copy_fits(db, games, pgn) else "sparse files (figure 9's floor)"
    row("2′", f"the floor: `ls` of a local directory of {nfiles} {kind} with the same names, page cache dropped",
        g, f, f"{g['median'] / f['median']:.2f}×", "—", True, peer_name="plain directory")
    # `ls -U` lists in folder order, unsorted: what the listing itself costs, without `ls`'s
    # n log n sort (most of `ls`'s time at ten million names), beside the same on the floor.
    warm_index(db)
    unsorted = stat(mount_ls(args, db, "games", runs, flags="-U")[0])
    fu = stat(cold_ls(plain, runs, flags="-U"))
    row(2, "mount ready + first `ls -U games/` (unsorted), against the floor's `ls -U`", unsorted, fu,
        f"{unsorted['median'] / fu['median']:.2f}×", "—", None, peer_name="plain directory",
        key="mount_ls_unsorted")
    return nfiles


NO_PLAIN_COPY = ""  # why the last plain copy asked for was not made (no room)


# left free on the data directory's disk (the machine may be shared): GAMEFS_BENCH_SPARE_GIB
SPARE_BYTES = int(float(os.environ.get("GAMEFS_BENCH_SPARE_GIB", "4")) * 2**30)


def room_for(files, size, empty=False, where=None):
    """Whether DATA's file system has room for `files` more files of `size` bytes in all (each
    file takes a block at least, unless `empty`), keeping SPARE_BYTES and a tenth of the inodes
    free; else sets NO_PLAIN_COPY to say why."""
    global NO_PLAIN_COPY
    st = os.statvfs(where or DATA)
    need_bytes = (0 if empty else files * st.f_bsize) + size
    free_bytes, free_files = st.f_bavail * st.f_frsize, st.f_favail
    if need_bytes > free_bytes - SPARE_BYTES or files > free_files - st.f_files // 10:
        NO_PLAIN_COPY = (f"{files} files, {need_bytes / 2**30:.1f} GiB on disk, do not fit in {DATA} "
                         f"({free_bytes / 2**30:.1f} GiB, {free_files} inodes free; "
                         f"{SPARE_BYTES / 2**30:g} GiB and a tenth of the inodes kept free)")
        return False
    return True


def plain_names_dir(args, db, what, fill, files=0):
    """A local directory (made once, cached in DATA) holding what `fill` copies out of a read-only
    mount of `db`: the floor a real directory sets for the same listing (None: no room for
    `files` files)."""
    dest = os.path.join(DATA, f"floor-{os.path.basename(os.path.dirname(db))}-{what.replace('/', '_')}")
    if not os.path.exists(dest + ".done") and not room_for(files, files * 64, empty=True):
        return None
    if not os.path.exists(dest + ".done"):
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        mnt = os.path.join(MNT, "floor")
        m = ForegroundMount(args.gamefs, db, mnt, "copy names out", ro=True)
        try:
            sh(fill(mnt).replace("{dest}", q(dest)), timeout=7200)
        finally:
            m.close()
        open(dest + ".done", "w").close()
    return dest


GO_POSITIONS_MAX = 100_000


def go_boards(path, count, seed):
    """`count` random legal 9x9 stone layouts as ASCII boards (groups without liberties removed)."""
    rng = random.Random(seed)
    with open(path, "w") as f:
        for _ in range(count):
            board = ["."] * 81
            for i, sq in enumerate(rng.sample(range(81), rng.randint(4, 45))):
                board[sq] = "#" if i % 2 == 0 else "O"
            changed = True
            while changed:
                changed = False
                seen = set()
                for sq in range(81):
                    if board[sq] == "." or sq in seen:
                        continue
                    group, stack, libs = {sq}, [sq], 0
                    while stack:
                        c = stack.pop()
                        x, y = c % 9, c // 9
                        for nx, ny in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)):
                            if 0 <= nx < 9 and 0 <= ny < 9:
                                nb = ny * 9 + nx
                                if board[nb] == ".":
                                    libs += 1
                                elif board[nb] == board[sq] and nb not in group:
                                    group.add(nb)
                                    stack.append(nb)
                    seen |= group
                    if libs == 0:
                        for c in group:
                            board[c] = "."
                        changed = True
            f.write(f"who={rng.choice('BW')}\n")
            f.writelines("".join(board[r * 9:r * 9 + 9]) + "\n" for r in range(9))
            f.write("\n")


def bench_formats(args, pgn, n, scid_db, runs):
    """Figure 8: the Simple Chess Database and 9x9 Go against gamefs's own SCID figures, per item."""
    g = q(args.gamefs)
    out = os.path.join(DATA, "fig8-out")
    scid_exp = [timed(f"{g} export {q(scid_db)} -o {q(out)}", timeout=3600)[0] for _ in range(runs)]
    scid_ml, scid_files, _, _ = mount_ls(args, scid_db, "games", runs)
    # The Simple Chess Database: the same corpus, as close as the format holds it (--lossy).
    d = os.path.join(DATA, f"scdb-{n}")
    x = os.path.join(d, "corpus.dci")
    if not os.path.exists(d + ".done"):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        log(f"importing {pgn} into a Simple Chess Database (--lossy)")
        sh(f"{g} import --create --lossy -q {q(x)} {q(pgn)} 2>/dev/null", timeout=7200, ok=IMPORTED)
        open(d + ".done", "w").close()
    scdb_exp = [timed(f"{g} export {q(x)} -o {q(out)}", timeout=3600)[0] for _ in range(runs)]
    scdb_ml, scdb_files, _, _ = mount_ls(args, x, "games", runs)
    # 9x9 Go: random legal positions (at most GO_POSITIONS_MAX: every add is a durable write).
    ng = min(n, GO_POSITIONS_MAX)
    gdir = os.path.join(DATA, f"go9-{ng}")
    if not os.path.exists(gdir + ".done"):
        shutil.rmtree(gdir, ignore_errors=True)
        os.makedirs(gdir)
        shutil.copy(os.path.join(REPO, "tests", "data", "go9x9", "zobrist_board_81.dat"), gdir)
        boards = os.path.join(DATA, f"go9-{ng}.txt")
        go_boards(boards, ng, args.seed)
        log(f"importing {ng} random 9x9 positions")
        sh(f"{g} go9 import {q(gdir)} {q(boards)} --create > /dev/null", timeout=7200)
        open(gdir + ".done", "w").close()
    go_scan = [timed(f"{g} go9 sgf {q(gdir)} > {q(out)}", timeout=3600)[0] for _ in range(runs)]
    go_items = int(sh(f"grep -c '^(;' {q(out)}").strip())
    go_ml, go_files, _, _ = mount_ls(args, gdir, "positions", runs)
    os.remove(out)
    scid_rate = {"export": (stat(scid_exp), scid_files), "mount": (stat(scid_ml), scid_files)}
    for what, times, items, base in (
            (f"Simple Chess Database: `gamefs export` of {scdb_files} games", scdb_exp, scdb_files, "export"),
            (f"Simple Chess Database: mount + `ls games/` ({scdb_files} files)", scdb_ml, scdb_files, "mount"),
            (f"9x9 Go: `gamefs go9 sgf` of every position ({go_items})", go_scan, go_items, "export"),
            (f"9x9 Go: mount + `ls positions/` ({go_files} files)", go_ml, go_files, "mount")):
        gs = stat(times)
        ps, pitems = scid_rate[base]
        ratio = (gs["median"] / max(items, 1)) / (ps["median"] / max(pitems, 1))
        row(8, what, gs, ps, f"{ratio:.2f}× per item", "within 2× per item", ratio <= 2,
            peer_name=f"gamefs on the SCID database ({pitems} games): "
                      + ("`gamefs export`" if base == "export" else "mount + `ls games/`"))


def grep_cmd(d):
    # counts per file into a pipe (grep -c to /dev/null would be short-cut), summed by awk
    return f"grep -rc {GREP_WORD} {q(d)} | awk -F: '{{n++; s+=$NF}} END {{printf \"%d %.0f\\n\", n, s}}'"


# How the plain copy is kept when it is not a folder of DATA (a block of 4 KiB a file has no
# room): ext4 with 2 KiB blocks in an image file read by direct I/O (no second copy of the texts
# in the page cache through the image file). Not 1 KiB blocks: a folder's three-level index of
# them was full at 9,999,683 of the ten million names (ENOSPC).
COMPACT_BLOCK = 2048
COMPACT_COPY = "on ext4 with 2 KiB blocks in a loop-mounted image: no room for a block of 4 KiB a file"


def plain_copy(args, db, games, pgn):
    """A plain local directory holding the rendered games of `db`, the same names and bytes
    (copied out of a read-only mount once, kept): the floor of figures 3 and 9, as (directory,
    how it is kept: "" in DATA, else COMPACT_COPY). In DATA when it has room for a block per
    file (10 million games take ~50 GiB), else on a 2 KiB-block file system (~25 GiB); (None,
    None) when neither fits."""
    name = f"plain-{os.path.basename(os.path.dirname(db))}"
    plain = os.path.join(DATA, name)
    # the rendered text is about as big as the corpus it was imported from
    if os.path.exists(os.path.join(plain, ".done")) or room_for(games, os.path.getsize(pgn)):
        return copy_games_out(args, db, plain), ""
    log(f"no plain copy in {DATA}: {NO_PLAIN_COPY}")
    compact = f"compact-{os.path.basename(os.path.dirname(db))}"
    image_made = os.path.exists(os.path.join(DATA, f"{compact}.ext4"))
    # the text, a block's slack, an inode and a directory entry a file (on 1 KiB blocks ten
    # million games took 2.0 KB each, their text 1.27 KB)
    if not image_made and not room_for(0, os.path.getsize(pgn) + games * 1536, empty=True):
        log(f"no compact copy either: {NO_PLAIN_COPY}")
        return None, None
    dest = os.path.join(big_folder_fs(compact, block_size=COMPACT_BLOCK, direct_io=True), name)
    return copy_games_out(args, db, dest), COMPACT_COPY


def copy_games_out(args, db, dest):
    """DEST/games: the games/ folder of a read-only mount of `db`, copied once (DEST/.done says
    the copy is whole)."""
    if not os.path.exists(os.path.join(dest, ".done")):
        log(f"copying the rendered games out of the mount to {dest}")
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        mnt = os.path.join(MNT, "copy")
        m = ForegroundMount(args.gamefs, db, mnt, "copy games out", ro=True)
        try:
            sh(f"cp -r {q(mnt)}/games {q(dest)}/games", timeout=14400)
        finally:
            m.close()
        open(os.path.join(dest, ".done"), "w").close()
    return os.path.join(dest, "games")


def plain_copy_fits(db, games, pgn):
    """Whether the plain copy of `db` in DATA is made or has room (else NO_PLAIN_COPY says why)."""
    plain = os.path.join(DATA, f"plain-{os.path.basename(os.path.dirname(db))}")
    return os.path.exists(os.path.join(plain, ".done")) or room_for(games, os.path.getsize(pgn))


def big_folder_fs(name, block_size=4096, direct_io=False):
    """A directory on a file system that holds ten million files in one folder: ext4 with
    `large_dir` and blocks of `block_size` in an image file of DATA (sparse; mounted by loop at
    DATA/NAME.fs until the run ends, read by direct I/O if `direct_io`). Without `large_dir`
    (most ext4 file systems, this machine's too) a folder's index is full at some six million
    entries of these names: ENOSPC."""
    image, mnt = os.path.join(DATA, f"{name}.ext4"), os.path.join(DATA, f"{name}.fs")
    if not os.path.exists(image):
        with open(image + ".tmp", "wb") as f:
            f.truncate(64 << 30)  # sparse: only what is written takes room
        sh(f"mkfs.ext4 -q -F -m 0 -b {block_size} -N 12000000 -O large_dir,^has_journal {q(image)}.tmp",
           timeout=600)
        os.rename(image + ".tmp", image)
    os.makedirs(mnt, exist_ok=True)
    if not is_mounted(mnt):
        if direct_io:
            dev = sh(f"losetup --find --show --direct-io=on {q(image)}").strip()
            sh(f"mount {q(dev)} {q(mnt)}")
            atexit.register(lambda: subprocess.run(["losetup", "-d", dev], check=False))
        else:
            sh(f"mount -o loop {q(image)} {q(mnt)}")
        atexit.register(lambda: subprocess.run(["umount", mnt], check=False))  # runs first
    return mnt


def sparse_copy(args, db):
    """When the plain copy does not fit: a local directory of the same names, each file as long
    as its game but holding no blocks (truncated to its size), made once in DATA. `ls` and
    `ls -l` read names and inodes, never the data, so it is the same floor for them as the plain
    copy. None when not even its inodes fit."""
    name = f"sparse-{os.path.basename(os.path.dirname(db))}"
    dest = os.path.join(big_folder_fs(name), name)
    if not os.path.exists(dest + ".done"):
        shutil.rmtree(dest, ignore_errors=True)
        mnt = os.path.join(MNT, "sparse")
        m = ForegroundMount(args.gamefs, db, mnt, "copy names and sizes out", ro=True)
        try:
            games = os.path.join(mnt, "games")
            names = os.listdir(games)
            if not room_for(len(names), len(names) * 64, empty=True, where=os.path.dirname(dest)):
                return None
            log(f"making {dest}: {len(names)} empty files as long as the games")
            wait_sizes_known(mnt, len(names), timeout=14400)
            os.makedirs(dest)
            with os.scandir(games) as it:
                for e in it:
                    fd = os.open(os.path.join(dest, e.name), os.O_CREAT | os.O_WRONLY, 0o644)
                    try:
                        os.ftruncate(fd, e.stat().st_size)
                    finally:
                        os.close(fd)
        finally:
            m.close()
        open(dest + ".done", "w").close()
    return dest


def bench_grep(args, db, runs, games, pgn):
    mnt = os.path.join(MNT, "m3")
    pdir, kept = plain_copy(args, db, games, pgn)
    dropped = False
    cold_g, warm_g, cold_p, warm_p = [], [], [], []
    # At ten million games the page cache holds neither side's texts (12 GiB, and an inode
    # each): the second grep found nothing cached and took longer than the first (1356 s
    # against 1240 s, the run of 2026-11-27 00:56), so the 10m mode times the first only.
    warm = args.mode != "10m"
    for _ in range(runs):
        dropped = drop_caches()
        m = ForegroundMount(args.gamefs, db, mnt, "grep", ro=True)
        try:
            t, out_g = timed(grep_cmd(f"{mnt}/games"), timeout=14400)
            cold_g.append(t)
            for _ in range(1 if warm else 0):
                warm_g.append(timed(grep_cmd(f"{mnt}/games"), timeout=14400)[0])
        finally:
            m.close()
    for _ in range(runs if pdir else 0):
        drop_caches()
        t, out_p = timed(grep_cmd(pdir), timeout=14400)
        cold_p.append(t)
        for _ in range(1 if warm else 0):
            warm_p.append(timed(grep_cmd(pdir), timeout=14400)[0])
    same = "no plain copy to compare with" if not pdir else (
        "same as plain" if out_g.strip() == out_p.strip() else "DIFFERENT from plain")
    files, hits = out_g.split()
    how = "drop_caches + fresh mount" if dropped else "fresh mount (not root: page cache not dropped)"
    for label, g, p, lim in (("cold", cold_g, cold_p, 8), ("warm", warm_g, warm_p, 3)):
        if not g:
            continue
        g, p = stat(g), stat(p) if p else None
        ratio = g["median"] / p["median"] if p else None
        row(3, f"`grep -rc {GREP_WORD}` games/, {label}" + (f" ({how}; {files} files, {hits} hits, {same})" if label == "cold" else ""),
            g, p, f"{ratio:.2f}×" if p else "—", f"≤ {lim}×", ratio <= lim if p else None,
            peer_name=(f"grep on plain copy ({kept})" if kept else "grep on plain copy") if p
            else f"no plain copy: {NO_PLAIN_COPY}", key=f"grep_{label}")
    if not pdir:
        # No room for the plain copy: the floor of reading the same text, as one file.
        one = []
        for _ in range(runs):
            drop_caches()
            one.append(timed(f"grep -c {GREP_WORD} {q(pgn)}", timeout=7200, ok=(0, 1))[0])
        g, f = stat(cold_g), stat(one)
        row("3′", f"the corpus PGN as one file: `grep -c {GREP_WORD}`, page cache dropped "
            f"({os.path.getsize(pgn) / 2**30:.1f} GiB; no room for a plain copy of the {files} files)",
            g, f, f"{g['median'] / f['median']:.2f}×", "—", None, peer_name="grep on one plain file")


def bench_player(args, db, runs):
    mnt = os.path.join(MNT, "m4")
    d = os.path.join(mnt, "players", PLAYER)
    cold, warm = [], []
    for _ in range(runs):
        m = ForegroundMount(args.gamefs, db, mnt, "ls -l player", ro=True)
        try:
            t, out = timed(f"ls -l {q(d)} | wc -l")
            cold.append(t)
            warm.append(timed(f"ls -l {q(d)} | wc -l")[0])
        finally:
            m.close()
    entries = int(out.strip()) - 1  # "total" line
    script = tcl_file("player.tcl", TCL_PLAYER)
    lines = sh(f"tkscid {q(script)} {q(db)} {q(PLAYER)} {runs}").strip().splitlines()
    peer = [int(x.split()[0]) / 1e6 for x in lines]
    found = lines[0].split()[1]
    for label, g in (("cold (fresh mount)", cold), ("warm", warm)):
        g, p = stat(g), stat(peer)
        speed = p["median"] / g["median"]
        row(4, f"`ls -l players/{PLAYER}/` {label}" + (f" ({entries} entries; SCID finds {found})" if label.startswith("cold") else ""),
            g, p, f"{speed:.2f}× faster" if speed >= 1 else f"{1 / speed:.2f}× slower", "≤ 0.1 s and ≥ 3× faster",
            g["median"] <= 0.1 and speed >= 3, peer_name="SCID header search + gameslist (in-process)",
            key="ls_l_player_" + label.split()[0])
    # The floor: `ls -l` of a local directory holding the same symlinks.
    plain = plain_names_dir(args, db, f"players/{PLAYER}",
                            lambda m: f"cp -rP {q(d.replace(mnt, m))}/. {{dest}}/", files=entries)
    if plain is None:
        log(f"figure 4′ skipped: {NO_PLAIN_COPY}")
        return
    fcold, fwarm = [], []
    for _ in range(runs):
        drop_caches()
        fcold.append(timed(f"ls -l {q(plain)} | wc -l")[0])
        fwarm.append(timed(f"ls -l {q(plain)} | wc -l")[0])
    for label, g, f in (("cold", cold, fcold), ("warm", warm, fwarm)):
        g, f = stat(g), stat(f)
        row("4′", f"the floor, {label}: `ls -l` of a local directory holding the same {entries} symlinks"
            + (", page cache dropped" if label == "cold" else ""),
            g, f, f"{g['median'] / f['median']:.2f}×", "—", True, peer_name="plain directory")


def bench_import(args, pgn, n, runs):
    d = os.path.join(DATA, "import")
    os.makedirs(d, exist_ok=True)
    db = os.path.join(d, "x")
    peer, gfi, gcp = [], [], []
    for _ in range(runs):
        scid_create(db)
        peer.append(timed(f"sc_import {q(db)} {q(pgn)}", timeout=7200)[0])
        rm_db(db)
        gfi.append(timed(f"{q(args.gamefs)} import {q(db)} {q(pgn)} --create -q", timeout=7200, ok=IMPORTED)[0])
        rm_db(db)
        sh(f"{q(args.gamefs)} create {q(db)}")
        mnt = os.path.join(MNT, "m5")
        m = ForegroundMount(args.gamefs, db, mnt, "cp import")
        try:
            gcp.append(timed(f"cp {q(pgn)} {q(mnt)}/games/import.pgn", timeout=7200)[0])
            count = int(sh(f"ls {q(mnt)}/games | wc -l").strip())
        finally:
            m.close()
        rm_db(db)
    p = stat(peer)
    for label, g in (("`gamefs import`", gfi), ("`cp` into MOUNT/games/", gcp)):
        g = stat(g)
        ratio = g["median"] / p["median"]
        row(5, f"bulk import of {n} games: {label}" + (f" ({count} games after)" if label.startswith("`cp") else ""),
            g, p, f"{ratio:.2f}×", "≤ 1× SCID", ratio <= 1, peer_name="`sc_import`")


def edit_a_game(mnt, names, rnd, tag):
    """A random game of MNT/games whose movetext ends with a move (not a comment or a
    variation), and its text with a comment `{bench-save-TAG}` added after its last move (any
    earlier bench comment removed): (path, new text)."""
    while True:
        path = os.path.join(mnt, "games", rnd.choice(names))
        with open(path, "rb") as f:
            text = f.read()
        text = re.sub(rb"\{bench-save-[^}]*\}\s*", b"", text)
        res = re.search(rb'\[Result "([^"]*)"\]', text).group(1)
        k = text.rstrip().rfind(res)
        if re.search(rb"[^\s)}]\s+$", text[:k]):
            return path, text[:k] + f"{{bench-save-{tag}}} ".encode() + text[k:]


def save(path, text):
    """Rewrite a game file as an editor does: open O_TRUNC, write, close."""
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
    try:
        os.write(fd, text)
    finally:
        os.close(fd)


def bench_saves(args, db, runs, nsaves=200):
    """Rewrite one game (open O_TRUNC, write, close) nsaves times per run, on a copy of the DB."""
    d = os.path.join(DATA, "work")
    os.makedirs(d, exist_ok=True)
    work = copy_db(db, os.path.join(d, "db"))
    mnt = os.path.join(MNT, "m6")
    m = ForegroundMount(args.gamefs, work, mnt, "saves (writable)")
    p50s, p99s, failed = [], [], []
    try:
        names = sorted(os.listdir(os.path.join(mnt, "games")))
        rnd = random.Random(42)
        for r in range(runs):
            lat = []
            for i in range(nsaves):
                path, new = edit_a_game(mnt, names, rnd, f"{r}.{i}")
                t0 = time.perf_counter()
                try:
                    save(path, new)
                except OSError as e:
                    failed.append(f"run {r} save {i}: {os.path.basename(path)}: {e.strerror}")
                    log(f"save failed: {failed[-1]}")
                    continue
                lat.append((time.perf_counter() - t0) * 1000)
                if i == 0:
                    with open(path, "rb") as f:
                        if f"bench-save-{r}.{i}".encode() not in f.read():
                            raise RuntimeError(f"save did not stick: {path}")
            lat.sort()
            p50s.append(lat[len(lat) // 2])
            p99s.append(lat[min(len(lat) - 1, int(len(lat) * 0.99))])
    finally:
        m.close()
    p50, p99 = stat(p50s), stat(p99s)
    fails = f"; {len(failed)} saves FAILED, first: {failed[0]}" if failed else ""
    row(6, f"save latency p50 ({nsaves} saves per run, write + close{fails})", p50, None, "—", "p50 ≤ 20 ms",
        p50["median"] <= 20 and not failed, unit="ms", key="save_p50")
    row(6, "save latency p99", p99, None, "—", "p99 ≤ 100 ms", p99["median"] <= 100, unit="ms", key="save_p99")
    shutil.rmtree(d)


def copy_db(db, dest):
    """A copy of the SCID database `db` at `dest` (a base path), to write to."""
    for ext in ("si4", "sn4", "sg4"):
        shutil.copyfile(f"{db}.{ext}", f"{dest}.{ext}")
    return dest


def ls_l_cmd(d):
    # every line of `ls -l` into a pipe; the number of files and the sum of their sizes
    # (%.0f: mawk prints a sum past 2^31 as 1.27561e+10)
    return f"ls -l {q(d)} | awk '/^-/ {{n++; s+=$5}} END {{printf \"%d %.0f\\n\", n, s}}'"


def bench_ls_l(args, db, runs, games, pgn):
    """Figure 9: `ls -l games/` right after a fresh mount (no kept sizes), cold, with the
    background size fill and without it (-o lazy_sizes), and after a remount (the sizes the
    fresh mount kept), against the plain copy, cold; and a plain `ls` followed by `ls -l`
    right after a fresh mount, against the same two over the plain copy."""
    (pdir, kept), sparse = plain_copy(args, db, games, pgn), False
    if pdir is None:
        pdir, sparse = sparse_copy(args, db), True
    # without the fill a fresh `ls -l` of ten million games renders them all, one at a time
    # (some 11 minutes); the 1m run shows what the fill is worth
    variants = [("fill", (), False), ("kept", (), True), ("ls_first", (), False)] + \
        ([] if args.mode == "10m" else [("lazy", ("lazy_sizes",), False)])
    mnt = os.path.join(MNT, "m9")
    times = {"fill": [], "kept": [], "lazy": [], "ls_first": [], "plain": [], "plain_ls_first": []}
    outs = {}
    dropped = False

    def listing(name, d):
        # the `ls` a reader runs before `ls -l` (names only) is timed with it
        return (f"ls {q(d)} >/dev/null && " if name.endswith("ls_first") else "") + ls_l_cmd(d)

    for _ in range(runs):  # in turn, so that a drifting machine slows all alike
        for name, opts, keep in variants:
            dropped = drop_caches()
            m = ForegroundMount(args.gamefs, db, mnt, "ls -l games/" + (" -o lazy_sizes" if opts else ""),
                                ro=True, opts=opts, keep_sizes=keep)
            try:
                t, outs[name] = timed(listing(name, f"{mnt}/games"), timeout=7200)
                times[name].append(t)
            finally:
                m.close()
        for name in ("plain", "plain_ls_first") if pdir else ():
            drop_caches()
            t, outs[name] = timed(listing(name, pdir), timeout=7200)
            times[name].append(t)
    files, total = outs["fill"].split()
    ref = outs.get("plain", outs["fill"])
    copy = "the sparse copy" if sparse else "the plain copy"
    same = (f"same files and sizes as {copy}" if pdir else "no plain copy to compare with") \
        if all(outs[name] == ref for name, _, _ in variants) else "DIFFERENT sizes"
    how = "page cache dropped" if dropped else "not root: page cache not dropped"
    p = stat(times["plain"]) if pdir else None
    copy_kept = " (the same names and sizes, no blocks, on a loop-mounted ext4 with large_dir: no room for the texts)" \
        if sparse else f" ({kept})" if kept else ""
    peer_name = f"`ls -l` of {copy}, cold{copy_kept}" if p else f"no plain copy: {NO_PLAIN_COPY}"
    p_first = stat(times["plain_ls_first"]) if pdir else None
    for what, name, target, key in (
            (f"`ls -l games/` right after a fresh mount, cold ({how}; {files} files, {int(total) / 2**20:.0f} MiB, "
             f"{same})", "fill", "≤ 1× plain directory", "ls_l_games_fresh"),
            ("the same after a remount (sizes kept by the mount before), cold", "kept", "≤ 1× plain directory",
             "ls_l_games_remount"),
            ("a plain `ls games/` and then `ls -l games/` right after a fresh mount, cold, against the same two "
             "over the plain copy", "ls_first", "≤ 1× plain directory", "ls_then_ls_l_games_fresh"),
            (f"the same right after a fresh mount with `-o lazy_sizes` (no background size fill; "
             f"the fill makes it {stat(times['lazy'])['median'] / stat(times['fill'])['median']:.2f}× faster)"
             if times["lazy"] else "", "lazy", "—", "ls_l_games_fresh_lazy")):
        if not times[name]:
            continue
        g = stat(times[name])
        p = p_first if name == "ls_first" else stat(times["plain"]) if pdir else None
        ratio = g["median"] / p["median"] if p else None
        met = None if target == "—" else (ratio is not None and ratio <= 1 and same.startswith("same"))
        peer = peer_name.replace("`ls -l` of", "`ls` and then `ls -l` of", 1) if name == "ls_first" else peer_name
        row(9, what, g, p, f"{ratio:.2f}×" if p else "—", target, met, peer_name=peer, key=key)


def wait_sizes_known(mnt, games, timeout=3600):
    """Wait until the mount's background fill knows every game's size (.gamefs/stats)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        with open(os.path.join(mnt, ".gamefs", "stats")) as f:
            m = re.search(r"^sizes_known: (\d+)$", f.read(), re.M)
        if m and int(m.group(1)) >= games:
            return
        time.sleep(0.2)
    raise RuntimeError(f"{mnt}: the sizes of {games} games not known after {timeout} s")


def bench_remount(args, db, runs):
    """Figure 10: remount + `ls -l games/` (cold) of a writable copy after one save, against the
    same remount with no save since the last unmount: the kept sizes survive a save."""
    d = os.path.join(DATA, "remount")
    os.makedirs(d, exist_ok=True)
    work = copy_db(db, os.path.join(d, "db"))
    mnt = os.path.join(MNT, "m10")
    forget_sizes()

    def remount_ls_l(what):
        drop_caches()
        t0 = time.perf_counter()
        m = ForegroundMount(args.gamefs, work, mnt, what, keep_sizes=True)
        try:
            out = sh(ls_l_cmd(f"{mnt}/games"), timeout=7200)
            return time.perf_counter() - t0, out
        finally:
            m.close()

    # Learn every size once (the background fill), and keep them at the unmount.
    m = ForegroundMount(args.gamefs, work, mnt, "remount: first mount", keep_sizes=True)
    try:
        names = sorted(os.listdir(os.path.join(mnt, "games")))
        wait_sizes_known(mnt, len(names))
    finally:
        m.close()
    rnd = random.Random(10)
    base, after = [], []
    for r in range(runs):
        t, out_base = remount_ls_l("remount + ls -l")
        base.append(t)
        m = ForegroundMount(args.gamefs, work, mnt, "remount: one save", keep_sizes=True)
        try:
            path, new = edit_a_game(mnt, names, rnd, f"remount-{r}")
            save(path, new)
        finally:
            m.close()
        t, out_after = remount_ls_l("remount + ls -l after a save")
        after.append(t)
    shutil.rmtree(d)
    g, p = stat(after), stat(base)
    ratio = g["median"] / p["median"]
    files = out_after.split()[0]
    row(10, f"remount + `ls -l games/` after one save, cold ({files} files; sizes kept by the mount before)",
        g, p, f"{ratio:.2f}×", "≤ 1.2×", ratio <= 1.2, peer_name="the same remount with no save",
        key="remount_ls_l_after_save")


def corpus_import_rows(n, info):
    """Figure 11: the import of the corpus the run's databases were made from (once, cached
    with them; a single measure): time and peak RSS against sc_import's."""
    for what, key, unit, target in (("time", "s", "s", "≤ 1× SCID"), ("peak RSS", "rss_mib", "MiB", "—")):
        g, p = info.get(f"gamefs_import_{key}"), info.get(f"sc_import_{key}")
        if g is None or p is None:
            continue  # databases made before the import's peak RSS was recorded
        g, p = stat([g]), stat([p])
        ratio = g["median"] / p["median"]
        row(11, f"import of the {n}-game corpus into an empty database, {what} (once, when the databases were made)",
            g, p, f"{ratio:.2f}×", target, None if target == "—" else ratio <= 1, unit=unit,
            peer_name="`sc_import`", key=f"corpus_import_{key}")


GROWTH_FROM = ("1m", 1_000_000)


def growth_rows(n):
    """Figure 12 (10m mode): how each figure of this run grew from the newest 1m run that has
    it; linear or better is the target (×10 from 1M to 10M; ×n/1M on a scaled run)."""
    mode, base = GROWTH_FROM
    scale = n / base
    for r in list(ROWS):
        if not r["key"] or r["num"] == 12:
            continue
        old = runlog.newest_raw(mode, r["key"])
        what = f"growth from 1M games, figure {r['num']}: {r['what'].split(' (')[0]}"
        if old is None:
            row(12, what, r["raw_gamefs"], None, "—", f"≤ ×{scale:g}", None, unit=r["unit"],
                peer_name=f"no {mode} run has this figure yet")
            continue
        (value, unit), run = old
        if unit != r["unit"]:
            continue
        p = stat([value])
        growth = r["raw_gamefs"]["median"] / value
        row(12, what, r["raw_gamefs"], p, f"×{growth:.2f}", f"≤ ×{scale:g} (linear)", growth <= scale,
            unit=unit, peer_name=f"the {mode} run of {run['when']}")
        # the peer's own growth, beside: what the machine does to a plain directory or to SCID
        old_peer = run["raw"].get(r["key"] + "/peer")
        if r["raw_peer"] and old_peer and old_peer[1] == unit:
            row(12, f"{what}: its peer, {r['peer_name']}", r["raw_peer"], stat([old_peer[0]]),
                f"×{r['raw_peer']['median'] / old_peer[0]:.2f}", "—", None, unit=unit,
                peer_name=f"the same peer in the {mode} run of {run['when']}")


def bench_rss(args, db, runs):
    script = tcl_file("player-rss.tcl", TCL_PLAYER)
    peer = []
    for _ in range(runs):
        f = os.path.join(DATA, "scid.time")
        sh(f"/usr/bin/time -v -o {q(f)} tkscid {q(script)} {q(db)} {q(PLAYER)} 1")
        peer.append(max_rss(f) / 1024)
    what, peak = max(DAEMON_PEAKS, key=lambda x: x[1])
    g = {"median": peak / 1024, "min": peak / 1024, "max": peak / 1024, "runs": len(DAEMON_PEAKS)}
    p = stat(peer)
    ratio = g["median"] / p["median"]
    row(7, f"daemon peak RSS over all of the above ({len(DAEMON_PEAKS)} mounts; peak in: {what})", g, p, f"{ratio:.2f}×",
        "≤ 256 MiB and ≤ 2× SCID", g["median"] <= 256 and ratio <= 2, unit="MiB", key="peak_rss",
        peer_name="tkscid with the base open + a header search")


# ------------------------------------------------------------------ the position index (13)

# SCID's answer for each position named on the command line (moves in SAN joined by "/", "-"
# for the start): board search (Exact, no variations) then tree statistics, timed in-process,
# `runs` passes in one process (the first cold, the others warm).
# argv: the base, the passes, White's name whose games alone count (`-`: every game), then
# the lines of moves.
TCL_TREE = TCL_OPEN + r"""
set runs [lindex $argv 1]
set white [lindex $argv 2]
for {set r 0} {$r < $runs} {incr r} {
    foreach line [lrange $argv 3 end] {
        sc_game new
        if {$line ne "-"} { foreach m [split $line /] { sc_move addSan $m } }
        set t0 [clock microseconds]
        sc_search board RESET E false false
        if {$white ne "-"} { sc_search header -filter AND -white "\"$white\"" }
        sc_tree stats $b dbfilter
        set t [expr {[clock microseconds] - $t0}]
        puts "$r $line $t [sc_filter count]"
    }
}
exit 0
"""




# One board search + tree statistics right after the base is opened and the page cache
# dropped: SCID's cold answer for a position (its filters read the game file from disk).
TCL_TREE_COLD = TCL_OPEN + r"""
sc_game new
set line [lindex $argv 1]
if {$line ne "-"} { foreach m [split $line /] { sc_move addSan $m } }
exec sh -c "sync; echo 3 > /proc/sys/vm/drop_caches"
set t0 [clock microseconds]
sc_search board RESET E false false
sc_tree stats $b dbfilter
puts "[expr {[clock microseconds] - $t0}] [sc_filter count]"
exit 0
"""


def scid_tree_times(out):
    """SCID's answers to the tree script (`TCL_TREE`): per line of moves, the
    times of the passes after the first (cold) one, in seconds, and the games it found."""
    times, found = {}, {}
    for line in out.strip().splitlines():
        r, moves, micros, count = line.split()
        found[moves] = count
        if int(r) > 0:
            times.setdefault(moves, []).append(int(micros) / 1e6)
    return times, found


def tree_txt_rows(num, shown, warm, cold, found, scid, scid_found, peer_name, key, past=None):
    """The rows of `tree.txt` reads: for each position `shown[p]` (its path), read warm (beside
    SCID's time for it) and cold; `key(p, "warm" or "cold")` names the figure in the raw
    figures. Position `past`, past the opening the index lists, is found by a scan whose
    target is SCID's search (issue 51), judged by the rows of that search: its cold read is
    shown, not judged against the lookups' 100 ms."""
    ms = lambda xs: stat([x * 1000 for x in xs])  # noqa: E731
    for p, path in shown.items():
        g, sc = ms(warm[p]), ms(scid[p])
        speed = sc["median"] / g["median"]
        same = "same as SCID" if found[p] == scid_found.get(p) else f"SCID finds {scid_found.get(p)}"
        row(num, f"`{path}/tree.txt` read, warm ({found[p]} games; {same})", g, sc,
            f"{speed:.1f}× faster" if speed >= 1 else f"{1 / speed:.2f}× slower", "≥ 10× faster", speed >= 10,
            unit="ms", peer_name=peer_name, key=key(p, "warm"))
        c = ms(cold[p])
        scanned = p == past
        row(num, f"`{path}/tree.txt` read, cold (caches dropped, a new mount of the kept index)", c, None, "—",
            "a scan past the opening: ≤ 1× SCID, rows below" if scanned else "< 100 ms",
            None if scanned else c["median"] < 100, unit="ms", key=key(p, "cold"))


def tree_positions(mnt, plies=10):
    """The positions figure 13 reads in the opening: the start, 1.e4, 1.e4 c5 and a line of
    `plies` plies (each ply the first move folder `ls` shows: a position few games reach), as
    paths under tree/."""
    paths = ["tree", "tree/e4", "tree/e4/c5"]
    deep = "tree"
    for _ in range(plies):
        moves = sorted(e for e in os.listdir(os.path.join(mnt, deep))
                       if e not in ("games", "tree.txt", "position.fen", "all.pgn"))
        if not moves:
            break
        deep += "/" + moves[0]
    return [p for p in paths if os.path.isdir(os.path.join(mnt, p))] + [deep]


def home_squares_emptied(fen):
    """How many of the 16 home squares of the pawns (White's second rank, Black's seventh)
    have no pawn of their side in position `fen`."""
    ranks = fen.split()[0].split("/")
    expand = lambda r: "".join("." * int(c) if c.isdigit() else c for c in r)  # noqa: E731
    return 16 - expand(ranks[6]).count("P") - expand(ranks[1]).count("p")


def past_the_opening(mnt, most=60):
    """A path under tree/ to a position past the opening (more than 10 home squares emptied:
    the index lists none of them, a search finds their games), walking pawn moves first (the
    first in `ls` order), or none if no game gets there within `most` plies."""
    path = "tree"
    for _ in range(most):
        with open(os.path.join(mnt, path, "position.fen")) as f:
            if home_squares_emptied(f.read()) > 10:
                return [path]
        moves = sorted(e for e in os.listdir(os.path.join(mnt, path))
                       if e not in ("games", "tree.txt", "position.fen", "all.pgn"))
        if not moves:
            return []
        pawn = [m for m in moves if re.fullmatch(r"[a-h][1-8]|[a-h]x[a-h][1-8]", m)]
        path += "/" + (pawn or moves)[0]
    return []


def read_timed(path):
    """The time to open and read the file at `path` here (as SCID's figures are taken in its
    process: no program started), and its text."""
    t0 = time.perf_counter()
    with open(path) as f:
        text = f.read()
    return time.perf_counter() - t0, text


def wait_stats(mnt, line, timeout=3600):
    """Wait until the mount's `.gamefs/stats` holds `line` (what the mount finds in the
    background, once found)."""
    t0 = time.perf_counter()
    while line not in open(os.path.join(mnt, ".gamefs", "stats")).read():
        if time.perf_counter() - t0 > timeout:
            raise RuntimeError(f"no `{line}` in .gamefs/stats after {timeout} s")
        time.sleep(0.05)


def wait_tree_ready(mnt, timeout=36000, anon_peak=None):
    """Seconds until the mount's `.gamefs/stats` says the position index is ready; with
    `anon_peak` (a list), the most anonymous memory the mount held meanwhile (KiB, sampled at
    each look) is appended to it."""
    t0 = time.perf_counter()
    pid, peak = None, 0
    while "position_index: ready" not in open(os.path.join(mnt, ".gamefs", "stats")).read():
        if time.perf_counter() - t0 > timeout:
            raise RuntimeError(f"the position index not ready after {timeout} s")
        if anon_peak is not None:
            pid = pid or daemon_pid(mnt)
            peak = max(peak, rss_anon(pid) if pid else 0)
        time.sleep(0.05)
    if anon_peak is not None:
        anon_peak.append(peak)
    return time.perf_counter() - t0


def bench_slice_tree(args, db, runs):
    """Figure 15: the tree of one player's games as White (`players/NAME/white/tree/`) against
    SCID's board search ANDed with its header search (`-white NAME`) and tree statistics: each
    `tree.txt` read warm on a mount of the kept index, and cold (caches dropped, a new mount
    of it)."""
    mnt = os.path.join(MNT, "m15")
    side = os.path.join("players", PLAYER, "white")
    lines = ["-", "e4", "e4/c5", "d4"]
    path = lambda line: os.path.join(side, "tree", *([] if line == "-" else line.split("/")))  # noqa: E731
    warm, cold, found = {}, {}, {}
    m = ForegroundMount(args.gamefs, db, mnt, "slice tree: building or mapping the index", ro=True,
                        opts=("lazy_sizes",))
    try:
        wait_tree_ready(mnt)
    finally:
        m.close()
    for _ in range(runs):
        m = ForegroundMount(args.gamefs, db, mnt, "slice tree: a mount of the kept index", ro=True,
                            opts=("lazy_sizes",), keep_sizes=True)
        try:
            wait_tree_ready(mnt)
            for line in lines:
                p = os.path.join(mnt, path(line), "tree.txt")
                drop_caches()
                t, text = read_timed(p)
                cold.setdefault(line, []).append(t)
                warm.setdefault(line, []).append(read_timed(p)[0])
                total = re.search(r"^TOTAL:\s+(\d+)", text, re.M)
                found[line] = total.group(1) if total else "0"
        finally:
            m.close()
    script = tcl_file("tree.tcl", TCL_TREE)
    out = sh(f"tkscid {q(script)} {q(db)} {runs + 1} {q(PLAYER)} " + " ".join(q(v) for v in warm),
             timeout=36000)
    scid, scid_found = scid_tree_times(out)
    tree_txt_rows(15, {line: path(line) for line in warm}, warm, cold, found, scid, scid_found,
                  "SCID `sc_search board` AND `sc_search header -white` + `sc_tree stats` (in-process, warm)",
                  lambda line, kind: f"slice_tree_txt_{kind}_{line}")


def bench_all_pgn(args, db, runs):
    """Figure 14: `grep -c` over the root's `all.pgn` (every game as one file) against
    `gamefs export | grep -c` of the same database: the issue's "at export speed". The sizes
    and the position index are made once by a first mount and kept, as after any earlier
    mount; each run drops the caches and times both in turn."""
    mnt = os.path.join(MNT, "m14")
    pattern = "'^\\[Event '"
    m = ForegroundMount(args.gamefs, db, mnt, "all.pgn: first mount, learning sizes", ro=True, keep_sizes=False)
    try:
        wait_sizes_known(mnt, int(tcl(TCL_COUNT, db).strip()), timeout=36000)
        # The position index too, or every later mount would build it while grep reads.
        wait_tree_ready(mnt)
    finally:
        m.close()
    grep_all, exports, counts = [], [], set()
    for _ in range(runs):
        drop_caches()
        t, out = timed(f"{q(args.gamefs)} export -q {q(db)} | grep -c {pattern}", timeout=36000)
        exports.append(t)
        counts.add(("export", out.strip()))
        drop_caches()
        m = ForegroundMount(args.gamefs, db, mnt, "all.pgn: grep -c", ro=True, opts=("lazy_sizes",),
                            keep_sizes=True)
        try:
            t, out = timed(f"grep -c {pattern} {q(os.path.join(mnt, 'all.pgn'))}", timeout=36000)
            grep_all.append(t)
            counts.add(("all.pgn", out.strip()))
        finally:
            m.close()
    found = {v for _, v in counts}
    same = f"{found.pop()} games in both" if len(found) == 1 else f"DIFFERENT: {sorted(counts)}"
    g, e = stat(grep_all), stat(exports)
    ratio = g["median"] / e["median"]
    row(14, f"`grep -c '^\\[Event ' all.pgn` at the root, caches dropped, sizes kept from an earlier mount ({same})",
        g, e, f"{ratio:.2f}×", "≤ 1.1× (export speed)", ratio <= 1.1 and same.endswith("both"), key="all_pgn_grep",
        peer_name="`gamefs export \\| grep -c`, caches dropped")


# tkscid SCRIPT DB KIND RUNS COLD ARGS...: SCID's search of KIND (`material`, `header`) for
# each of ARGS (a Tcl list of its options), RUNS passes, the page cache dropped before each
# search when COLD is 1; a line "PASS MICROSECONDS COUNT" a search
TCL_SEARCH = TCL_OPEN + r"""
set kind [lindex $argv 1]
set runs [lindex $argv 2]
set cold [lindex $argv 3]
for {set r 0} {$r < $runs} {incr r} {
    foreach a [lrange $argv 4 end] {
        if {$cold} { exec sh -c "sync; echo 3 > /proc/sys/vm/drop_caches" }
        set t0 [clock microseconds]
        sc_search $kind -filter RESET {*}$a
        puts "$r [expr {[clock microseconds] - $t0}] [sc_filter count]"
    }
}
exit 0
"""

# Figure 17's questions: a query folder naming an ending, and the balance in SCID's material
# search ("pieces": pawns 0-8 a side)
ENDINGS = ["material=KRPvKR", "material=KPvK", "pieces=KRvKR", "pieces=KvK", "pieces=KQvKQ"]


def scid_material_args(query):
    """SCID's `sc_search material` options for an ending query of `ENDINGS` (`material=X`:
    every count exact; `pieces=X`: the pieces exact, pawns 0 to 8), colours as named."""
    field, name = query.split("=")
    white, black = name.split("v")
    args = []
    for side, text in (("w", white), ("b", black)):
        for piece, letter in (("q", "Q"), ("r", "R"), ("b", "B"), ("n", "N"), ("p", "P")):
            n = text.count(letter)
            args.append(f"-{side}{piece} {{0 8}}" if letter == "P" and field == "pieces" else f"-{side}{piece} {{{n} {n}}}")
    return " ".join(args)


def kept_bytes(suffix):
    """The bytes of the newest file kept beside a position index with `suffix` (`.endings`,
    `.headers`: `positions-*SUFFIX` in gamefs's cache folder), or None."""
    home = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    found = glob.glob(os.path.join(home, "gamefs", "**", "*" + suffix), recursive=True)
    return os.path.getsize(max(found, key=os.path.getmtime)) if found else None


TCL_TWINS = TCL_OPEN + r"""
set t0 [clock microseconds]
set n [sc_base duplicates $b \
    -colors No -event No -site Yes -round Yes -year Yes -month Yes -day No \
    -result No -eco No -moves Yes -players No -skipshort Yes -setfilter No \
    -usefilter No -comments Yes -variations Yes -delete Shorter]
puts "[expr {[clock microseconds] - $t0}] $n"
exit 0
"""

# games of the corpus imported a second time into the copy figure 19 searches for twins
TWIN_COPIES = 5000


def twins_database(args, db):
    """The database of figure 19: a copy of `db` (SCID 4) with its first `TWIN_COPIES` games
    imported again at its end (`gamefs export` of them, `gamefs import`), so that each is one
    of a pair of twins; made once and kept (`done.json`)."""
    d = os.path.join(DATA, f"twins-{os.path.basename(os.path.dirname(db))}")
    base = os.path.join(d, "db")
    if os.path.exists(os.path.join(d, "done.json")):
        return base
    os.makedirs(d, exist_ok=True)
    for ext in ("si4", "sn4", "sg4"):
        shutil.copyfile(f"{db}.{ext}", f"{base}.{ext}")
    pgn = os.path.join(d, "copies.pgn")
    games, out = 0, []
    with open(pgn, "w", encoding="utf-8") as f:
        text = sh(f"{q(args.gamefs)} export {q(db)}.si4 | head -c 20000000", timeout=3600)
        for chunk in text.split("\n\n[Event ")[:TWIN_COPIES]:
            out.append(chunk if chunk.startswith("[Event ") else "[Event " + chunk)
        games = len(out)
        f.write("\n\n".join(out).rstrip() + "\n\n")
    sh(f"{q(args.gamefs)} import {q(base)} {q(pgn)}", timeout=3600, ok=(0, 3))
    with open(os.path.join(d, "done.json"), "w") as f:
        json.dump({"copies": games}, f)
    return base


def bench_twins(args, db, runs):
    """Figure 19: twins (issue 54), on a copy of the database with its first `TWIN_COPIES`
    games imported again (`twins_database`). `ls twins/` on a new mount of the kept position
    index (the twins found after the index and kept beside it, `INDEX.twins`), cold (page
    cache dropped) once the index is ready; and found from nothing (`-o tree=off`: nothing
    kept, found at the first visit), cold; against SCID's twin detection with the settings
    its "Delete twin games" dialog starts with (`sc_base duplicates`, as
    tests/oracle/twins_scid.tcl calls it), cold (page cache dropped), each run on a fresh copy
    of the index file (it marks the twins it deletes)."""
    base = twins_database(args, db)
    mnt = os.path.join(MNT, "m19")
    m = ForegroundMount(args.gamefs, base, mnt, "twins: building or mapping the index", ro=True,
                        opts=("lazy_sizes",))
    try:
        wait_tree_ready(mnt)
        groups = len(os.listdir(os.path.join(mnt, "twins")))
    finally:
        m.close()
    def listed_cold(what, opts, ready):
        """Seconds of `ls twins/` on a new mount with `opts`, the page cache dropped (once the
        index is ready when `ready`)."""
        m = ForegroundMount(args.gamefs, base, mnt, f"twins: {what}", ro=True, opts=opts, keep_sizes=True)
        try:
            if ready:
                wait_tree_ready(mnt)
            drop_caches()
            t0 = time.perf_counter()
            os.listdir(os.path.join(mnt, "twins"))
            return time.perf_counter() - t0
        finally:
            m.close()

    kept, scratch = [], []
    for _ in range(runs):
        kept.append(listed_cold("kept", ("lazy_sizes",), True))
        scratch.append(listed_cold("found", ("lazy_sizes", "tree=off"), False))
    # Read before the saves' mount, which forgets what earlier mounts kept (`forget_sizes`).
    size = kept_bytes(".twins")
    after_save = listed_after_saves(args, base, runs)
    script = tcl_file("twins.tcl", TCL_TWINS)
    scid = os.path.join(os.path.dirname(base), "scid")
    cold, deleted = [], None
    for _ in range(runs):
        for ext in ("si4", "sn4", "sg4"):
            shutil.copyfile(f"{base}.{ext}", f"{scid}.{ext}")
        drop_caches()
        micros, deleted = sh(f"tkscid {q(script)} {q(scid)}", timeout=36000).split()
        cold.append(int(micros) / 1e6)
    said = sh(f"{q(args.gamefs)} twins {q(base)} 2>&1", timeout=3600).strip().splitlines()[-1]
    ours = re.search(r"would mark (\d+) deleted", said)
    ours = ours.group(1) if ours else "?"
    ms = lambda xs: stat([x * 1000 for x in xs])  # noqa: E731
    g, sc, f = ms(kept), ms(cold), ms(scratch)
    for what, found, target, met, key in (
            ("cold, a new mount of the kept index once it is ready (the twins kept beside it)", g,
             "< 100 ms and ≥ 10× faster (issue 54)", None, "twins_kept_cold"),
            ("found from nothing (`-o tree=off`: none kept), cold", f, "—", None, "twins_found_cold"),
            ("after a save on a writable mount (a copy, `-o tree=off`), brought up to date", ms(after_save),
             "< 100 ms (issue 54: updated by saves at once)", None, "twins_after_save")):
        speed = sc["median"] / found["median"]
        if args.mode == "10m" and met is None and target != "—":
            # Issue 54 sets its targets at a million games; here a million groups are listed.
            target = "— (issue 54's target is at 1M games)"
        elif key == "twins_kept_cold":
            met = found["median"] < 100 and speed >= 10
        elif key == "twins_after_save":
            met = found["median"] < 100
        row(19, f"`ls twins/` ({groups} groups; `gamefs twins --delete` would delete {ours}, SCID deletes "
            f"{deleted}), {what}", found, sc,
            f"{speed:.1f}× faster" if speed >= 1 else f"{1 / speed:.2f}× slower", target, met, unit="ms",
            peer_name="SCID `sc_base duplicates` (the dialog's defaults), the page cache dropped", key=key)
    if size is not None:
        games = int(tcl(TCL_COUNT, base).strip())
        row(19, f"twins kept beside the position index (`INDEX.twins`), bytes a game ({games} games, "
            f"{groups} groups)", stat([size / games]), None, "—", "—", None, unit="B", key="twins_bytes")


def listed_after_saves(args, base, runs):
    """Seconds of `ls twins/` right after each of `runs` saves of one game (its round changed,
    taking it out of its group, and back, bringing it in; each checked), on a writable mount of a scratch
    copy of `base` with `-o tree=off` (the twins found at the first visit, then brought up to
    date after each save, `FoundSlot::revise`)."""
    copy = os.path.join(os.path.dirname(base), "saved")
    for ext in ("si4", "sn4", "sg4"):
        shutil.copyfile(f"{base}.{ext}", f"{copy}.{ext}")
    mnt = os.path.join(MNT, "m19w")
    m = ForegroundMount(args.gamefs, copy, mnt, "twins: after saves", opts=("lazy_sizes", "tree=off"))
    times = []
    try:
        games = os.path.join(mnt, "games")
        os.listdir(os.path.join(mnt, "twins"))
        # The first game: the corpus's first games are imported again at its end (its twin).
        name = sorted(os.listdir(games))[0]
        stem = name[:-len(".pgn")]
        text = open(os.path.join(games, name), encoding="utf-8").read()
        # Another round takes it out of its group; its text back with a comment before its
        # moves brings it back as the group's better copy (of copies as long, a commented one
        # ranks first), so the group is named after it.
        commented = text.replace("\n\n", "\n\n{gamefs bench} ", 1)
        for k in range(runs):
            out = k % 2 == 0
            edited = re.sub(r'^\[Round "[^"]*"\]$', '[Round "gamefs-bench"]', text, count=1,
                            flags=re.M) if out else commented
            with open(os.path.join(games, name), "w", encoding="utf-8") as f:
                f.write(edited)
            t0 = time.perf_counter()
            listed = os.listdir(os.path.join(mnt, "twins"))
            times.append(time.perf_counter() - t0)
            if (stem in listed) == out:
                raise RuntimeError(f"twins after save {k + 1}: the group named after the saved game is "
                                   + ("still there" if out else "missing"))
    finally:
        m.close()
        for ext in ("si4", "sn4", "sg4"):
            os.remove(f"{copy}.{ext}")
    return times


def query_counts(args, db, runs, name, queries, on_cold_mount=None):
    """Each query folder of `queries` (its `count`) read on a new mount of the kept index of
    `db`, cold (the page cache dropped before each) and with the files cached (a second new
    mount: the answer not remembered), `runs` times: the times by query, cold and cached, and
    what each count says. `on_cold_mount(mnt)` runs first on each cold mount, the caches
    dropped."""
    mnt = os.path.join(MNT, f"m-{name}")
    m = ForegroundMount(args.gamefs, db, mnt, f"{name}: building or mapping the index", ro=True,
                        opts=("lazy_sizes",))
    try:
        wait_tree_ready(mnt)
        # What the mount finds after the position index (the header index, the twins) found
        # and kept now: the mounts measured below map it, and find nothing under the reads.
        open(os.path.join(mnt, "query", queries[0], "count")).read()
        os.listdir(os.path.join(mnt, "twins"))
        wait_stats(mnt, "header_index: ready")
    finally:
        m.close()
    cold, cached, found = {}, {}, {}
    for _ in range(runs):
        for kind in ("cold", "cached"):
            m = ForegroundMount(args.gamefs, db, mnt, f"{name}: {kind}", ro=True, opts=("lazy_sizes",),
                                keep_sizes=True)
            try:
                wait_tree_ready(mnt)
                # The kept header index is mapped right after the position index.
                wait_stats(mnt, "header_index: ready")
                if kind == "cold" and on_cold_mount:
                    drop_caches()
                    on_cold_mount(mnt)
                for query in queries:
                    if kind == "cold":
                        drop_caches()
                    t, text = read_timed(os.path.join(mnt, "query", query, "count"))
                    (cold if kind == "cold" else cached).setdefault(query, []).append(t)
                    found[query] = text.strip()
            finally:
                m.close()
    return cold, cached, found


def scid_searches(db, runs, kind, arguments):
    """SCID's search of `kind` (`sc_search KIND -filter RESET ARGS`) for each of `arguments`
    (each a string of its options) in `db`, in-process: the times by index of `arguments`,
    warm (after a first search of each) and cold (the page cache dropped before each, a new
    process each run), and the count each finds."""
    script = tcl_file("search.tcl", TCL_SEARCH)
    quoted = " ".join(q(a) for a in arguments)
    warm, cold, found = {}, {}, {}
    lines = sh(f"tkscid {q(script)} {q(db)} {kind} {runs + 1} 0 {quoted}", timeout=36000).split("\n")
    for i, line in enumerate(x for x in lines if x.strip()):
        r, micros, count = line.split()
        found[i % len(arguments)] = count
        if int(r) > 0:
            warm.setdefault(i % len(arguments), []).append(int(micros) / 1e6)
    for _ in range(runs):
        lines = sh(f"tkscid {q(script)} {q(db)} {kind} 1 1 {quoted}", timeout=36000).split("\n")
        for i, line in enumerate(x for x in lines if x.strip()):
            cold.setdefault(i, []).append(int(line.split()[1]) / 1e6)
    return warm, cold, found


def query_rows(num, queries, ours, theirs, search, key, mode):
    """The rows of figure `num`: each query folder's count read cold and cached (`ours`, from
    [`query_counts`]) against SCID's `search` for the same question (`theirs`, from
    [`scid_searches`], in the order of `queries`); their raw figures named `KEY_cold_QUERY`
    and `KEY_cached_QUERY`. Issue 54's target is at a million games: in the 10m `mode`
    the rows state it without judging it."""
    cold, cached, found = ours
    scid_warm, scid_cold, scid_found = theirs
    ms = lambda xs: stat([x * 1000 for x in xs])  # noqa: E731
    for i, query in enumerate(queries):
        same = "same as SCID" if found[query] == scid_found.get(i) else f"SCID finds {scid_found.get(i)}"
        for kind, mine, peer_times, peer in (
                ("cold (the page cache dropped; gamefs: a new mount of the kept index)", cold, scid_cold,
                 f"SCID `sc_search {search}`, the page cache dropped"),
                ("with the files in the page cache (gamefs: a new mount, the answer not remembered)", cached,
                 scid_warm, f"SCID `sc_search {search}` (in-process, warm)")):
            g, sc = ms(mine[query]), ms(peer_times[i])
            speed = sc["median"] / g["median"]
            row(num, f"`query/{query}/count` ({found[query]} games; {same}), {kind}", g, sc,
                f"{speed:.1f}× faster" if speed >= 1 else f"{1 / speed:.2f}× slower",
                *(("— (issue 54's target, < 100 ms and ≥ 10× faster, is at 1M games)", None) if mode == "10m"
                  else ("< 100 ms and ≥ 10× faster (issue 54)", g["median"] < 100 and speed >= 10)), unit="ms",
                peer_name=peer, key=f"{key}_{'cold' if mine is cold else 'cached'}_{query}")


def bench_endings(args, db, runs):
    """Figure 17: endings (issue 54). Each query folder of `ENDINGS` (its `count`), cold and
    cached ([`query_counts`]), against SCID's material search for the same balance, cold and
    warm; `endings/` listed cold; the endings table's bytes a game."""
    games = int(tcl(TCL_COUNT, db).strip())
    listing = []

    def list_endings(mnt):
        t0 = time.perf_counter()
        names = os.listdir(os.path.join(mnt, "endings"))
        listing.append((time.perf_counter() - t0, len(names)))

    ours = query_counts(args, db, runs, "endings", ENDINGS, on_cold_mount=list_endings)
    theirs = scid_searches(db, runs, "material", [scid_material_args(query) for query in ENDINGS])
    size = kept_bytes(".endings")
    if size is not None:
        row(17, f"endings kept beside the position index (`INDEX.endings`), bytes a game ({games} games)",
            stat([size / games]), None, "—", "—", None, unit="B", key="endings_bytes")
    lc = stat([t * 1000 for t, _ in listing])
    row(17, f"`ls endings/` ({listing[-1][1]} endings), cold (caches dropped, a new mount of the kept index)",
        lc, None, "—", "< 100 ms", lc["median"] < 100, unit="ms", key="endings_ls_cold")
    query_rows(17, ENDINGS, ours, theirs, "material", "ending", args.mode)


# Figure 20's questions: header queries, each with SCID's header search options for the same
# question (as tests/query_oracle.rs pairs them; docs/guide/searching.md): a player, a player
# as White over a period, both ratings over a period, an opening's wins, an event's short games,
# two sites' draws
HEADER_QUERIES = [
    ("player=carlsen", "-player carlsen"),
    ("white=carlsen,year=2010-", "-white carlsen -date {2010.??.?? 2047.12.31}"),
    ("elo=2600-,year=2015-", "-elo {2600 9999} -date {2015.??.?? 2047.12.31}"),
    ("eco=B90-B99,result=1-0", "-eco {B90 B99} -result 1"),
    ("event=gibraltar,moves=-30", "-event gibraltar -length {0 60}"),
    ("site=NOR+BRA,result=draw", "-site NOR -site| BRA -result ="),
]


def bench_header_queries(args, db, runs):
    """Figure 20: header queries (issue 54). Each query folder of `HEADER_QUERIES` (its
    `count`), cold and cached ([`query_counts`]), against SCID's header search for the same
    question, cold and warm."""
    queries = [query for query, _ in HEADER_QUERIES]
    ours = query_counts(args, db, runs, "queries", queries)
    theirs = scid_searches(db, runs, "header", [scid for _, scid in HEADER_QUERIES])
    query_rows(20, queries, ours, theirs, "header", "query", args.mode)
    size = kept_bytes(".headers")
    if size is not None:
        games = int(tcl(TCL_COUNT, db).strip())
        row(20, f"header index kept beside the position index (`INDEX.headers`), bytes a game ({games} games)",
            stat([size / games]), None, "—", "—", None, unit="B", key="headers_bytes")


def bench_tree(args, db, runs):
    """Figure 13: the position index (tree/, positions/) against `gamefs export` and SCID's
    board search + tree statistics. The build is timed on a mount with no kept index
    (`-r -o lazy_sizes`: the build alone), beside an export of the same database; `tree.txt` is
    read warm on that mount and cold (caches dropped) on a mount of the kept index."""
    mnt = os.path.join(MNT, "m13")
    cache = os.environ["XDG_CACHE_HOME"]
    builds, exports, anon_build, anon_base, cold, index_bytes = [], [], [], [], {}, []
    warm, listing = {}, {"tree/games": [], "games": []}
    found, past = {}, None
    searched = {"cold": [], "cached": [], "scid_cold": []}
    for _ in range(runs):
        # Both read the database from disk: the cold reads of the run before dropped it.
        drop_caches()
        exports.append(timed(f"{q(args.gamefs)} export -q -o /dev/null {q(db)}", timeout=36000)[0])
        for f in glob.glob(os.path.join(cache, "gamefs", "positions-*")):
            os.remove(f)
        sh("sync")
        drop_caches()
        m = ForegroundMount(args.gamefs, db, mnt, "tree: the first mount, building the index", ro=True,
                            opts=("lazy_sizes",))
        try:
            # What the mount holds besides the build (the store's index and names, and the
            # views, which the first `ls` of each view folder makes: 256 MiB at ten million
            # games): the build's memory is what it adds to that. The build has begun
            # meanwhile (some 20 MiB in those seconds at ten million games).
            for view in VIEW_FOLDERS:
                os.listdir(os.path.join(mnt, view))
            pid = daemon_pid(mnt)
            anon_base.append(rss_anon(pid) / 1024 if pid else 0)
            peak = []
            builds.append(wait_tree_ready(mnt, anon_peak=peak))
            stats = open(os.path.join(mnt, ".gamefs", "stats")).read()
            per_game = re.search(r"^position_index_bytes_per_game: (\d+)", stats, re.M)
            index_bytes.append(int(per_game.group(1)) if per_game else 0)
            anon_build.append(peak[0] / 1024)
            past = next(iter(past_the_opening(mnt)), None)
            positions = tree_positions(mnt) + ([past] if past else [])
            for p in positions:
                text = read_timed(os.path.join(mnt, p, "tree.txt"))[1]
                warm.setdefault(p, []).append(read_timed(os.path.join(mnt, p, "tree.txt"))[0])
                total = re.search(r"^TOTAL:\s+(\d+)", text, re.M)
                found[p] = total.group(1) if total else "0"
            for folder in listing:
                t, out = timed(f"ls -f {q(os.path.join(mnt, folder))} | wc -l")
                listing[folder].append(t / max(1, int(out.strip()) - 2))
        finally:
            m.close()
        # The kept index, mapped by a new mount, every cache dropped.
        m = ForegroundMount(args.gamefs, db, mnt, "tree: a mount of the kept index", ro=True,
                            opts=("lazy_sizes",), keep_sizes=True)
        try:
            wait_tree_ready(mnt)
            drop_caches()
            for p in positions:
                cold.setdefault(p, []).append(read_timed(os.path.join(mnt, p, "tree.txt"))[0])
        finally:
            m.close()
        if past:
            # A search past the opening, each side cold (the page cache dropped, nothing of
            # the answer in memory) and with the files in the page cache (a new mount: the
            # answer is not remembered, SCID's base is in memory), as SCID's board search runs.
            searched["cold"].append(cold[past][-1])
            m = ForegroundMount(args.gamefs, db, mnt, "tree: the search past the opening, files cached",
                                ro=True, opts=("lazy_sizes",), keep_sizes=True)
            try:
                wait_tree_ready(mnt)
                searched["cached"].append(read_timed(os.path.join(mnt, past, "tree.txt"))[0])
            finally:
                m.close()
            script = tcl_file("tree-cold.tcl", TCL_TREE_COLD)
            micros, scid_past_found = sh(f"tkscid {q(script)} {q(db)} {q(past[len('tree/'):])}",
                                         timeout=36000).split()
            searched["scid_cold"].append(int(micros) / 1e6)
    g, e = stat(builds), stat(exports)
    ratio = g["median"] / e["median"]
    row(13, "position index built after the first mount (`-r -o lazy_sizes`), against `gamefs export -q -o /dev/null`",
        g, e, f"{ratio:.2f}×", "≤ 1.5× export (issue 51)", ratio <= 1.5, key="tree_build", peer_name="`gamefs export`")
    scid_bytes = sum(os.path.getsize(db + ext) for ext in (".si4", ".sg4", ".sn4"))
    per_game = stat(index_bytes)
    scid_per_game = scid_bytes / max(1, int(tcl(TCL_COUNT, db).strip()))
    row(13, "position index on disk, bytes a game (`.gamefs/stats`), against the SCID database of the same games",
        per_game, stat([scid_per_game]), f"{per_game['median'] / scid_per_game:.2f}×", "≤ 150 B and ≤ SCID's",
        per_game["median"] <= 150 and per_game["median"] <= scid_per_game, unit="B", key="tree_index_bytes",
        peer_name="the SCID database (si4 + sg4 + sn4)")
    added = stat([b - k for b, k in zip(anon_build, anon_base)])
    row(13, "memory the build adds: the building mount's most anonymous memory (RssAnon, sampled every 50 ms) "
        "less its own once mounted and its views made (the store's index and names, the views' tables; "
        "mapped index pages left out: the page cache's)",
        added, None, "—", "≤ 100 MB", added["median"] <= 100 / 1.048576, unit="MiB", key="tree_build_memory")
    # SCID: the same positions, `runs` + 1 passes in one process; the first (cold) is left out.
    lines = {p: "-" if p == "tree" else p[len("tree/"):] for p in positions}
    script = tcl_file("tree.tcl", TCL_TREE)
    out = sh(f"tkscid {q(script)} {q(db)} {runs + 1} - " + " ".join(q(v) for v in lines.values()), timeout=36000)
    by_line, found_by_line = scid_tree_times(out)
    path_of = lambda moves: "tree" if moves == "-" else "tree/" + moves  # noqa: E731
    scid = {path_of(m): v for m, v in by_line.items()}
    scid_found = {path_of(m): v for m, v in found_by_line.items()}
    tree_txt_rows(13, {p: p for p in positions}, warm, cold, found, scid, scid_found,
                  "SCID `sc_search board` + `sc_tree stats` (in-process, warm)",
                  lambda p, kind: f"tree_txt_{kind}_{len(p.split('/')) - 1}", past=past)
    if past:
        ms = lambda xs: stat([x * 1000 for x in xs])  # noqa: E731
        same = "same as SCID" if found[past] == scid_past_found else f"SCID finds {scid_past_found}"
        for what, ours, theirs, peer_name, key in (
                ("cold (the page cache dropped; gamefs: a new mount of the kept index)", searched["cold"],
                 searched["scid_cold"], "SCID `sc_search board` + `sc_tree stats`, the page cache dropped "
                 "after opening the base", "past_opening_search_cold"),
                ("with the files in the page cache (gamefs: a new mount, the answer not remembered)",
                 searched["cached"], scid[past], "SCID `sc_search board` + `sc_tree stats` (in-process, warm)",
                 "past_opening_search_cached")):
            g, sc = ms(ours), ms(theirs)
            ratio = g["median"] / sc["median"]
            row(13, f"search past the opening, `{past}/tree.txt` ({found[past]} games; {same}), {what}", g, sc,
                f"{ratio:.2f}×", "≤ 1× SCID (issue 51: a scan at least as fast as SCID's board search)",
                ratio <= 1, unit="ms", peer_name=peer_name, key=key)
    t, f = stat(listing["tree/games"]), stat(listing["games"])
    row(13, "`ls -f tree/games` against `ls -f games`, per entry", {k: (v * 1e6 if k != "runs" else v) for k, v in t.items()},
        {k: (v * 1e6 if k != "runs" else v) for k, v in f.items()}, f"{t['median'] / f['median']:.2f}×",
        "about `games/`", t["median"] <= 1.5 * f["median"], unit="µs", peer_name="`ls -f games`", key="tree_games_ls")


# ------------------------------------------------------------------ ChessBase (18)

CB_SOURCE = os.path.join(REPO, "tests", "data", "chessbase", "twic1134")  # The Week in Chess 1134
CB_FILES = ("cbh", "cbg", "cbp", "cbt", "cbc", "cbs", "cbe", "cbj")  # what gamefs reads (no .cba)
CBH_RECORD = 46  # the .cbh's header and each of its records
CBJ_HEADER = 32
CB_MIN_GAMES = 100_000  # figure 18's base holds about this many games at least
# cbh2pgn decodes some 2,000 games a second: over the big base only up to this many games
CBH2PGN_MAX_GAMES = 100_000
CBH2PGN_VERSION = "0.2.0"


def chessbase_copies(n):
    """How many times figure 18 writes TWIC 1134's game records: about CB_MIN_GAMES games, or
    the run's game count when that is more (6,117 × 16 = 97,872 in the quick and full modes)."""
    games = (os.path.getsize(CB_SOURCE + ".cbh") - CBH_RECORD) // CBH_RECORD
    return max(1, round(CB_MIN_GAMES / games), round(n / games))


def chessbase_base(args, copies):
    """The ChessBase base of figure 18 and its SCID 4 copy (made once in DATA), as a dict:
    `cbh` (the base's .cbh), `scid` (the SCID 4 base path), `games`, `copies`, `check` (what
    `gamefs check` said), `convert_s` (the time `gamefs convert` took).

    How it is made: the .cbh of tests/data/chessbase/twic1134 (a 46-byte header, then 6,117
    46-byte game records) is written with its game records repeated `copies` times, each copy
    byte for byte the original record, so game k + i × 6,117 points at the same .cbg move
    record (and players, tournament, annotator, source) as game k; the header's two "next game
    id" fields (offsets 6 and 40, big-endian, Morphy's notes: morphy-cbh/docs/cbh-format/games.md)
    are set to games + 1. The .cbj (extended headers: each game's teams; a 32-byte header, then
    one record per .cbh record, their length at offset 4) has its records repeated likewise, so
    that record i still names game i's teams, and its record count (offset 8, little-endian) set
    to the new count. The .cbg, .cbp, .cbt, .cbc, .cbs and .cbe are copied as they are: every
    game of a copy reads the same moves, names and teams as the game it copies. The made base is
    checked with `gamefs check` (exit status 0: no problem found), and copied into SCID 4 with
    `gamefs convert BASE.cbh SCID` (SCID's own count of the copy must be the base's count)."""
    src_games = (os.path.getsize(CB_SOURCE + ".cbh") - CBH_RECORD) // CBH_RECORD
    d = os.path.join(DATA, f"chessbase-twic1134-x{copies}")
    stamp = os.path.join(d, "done.json")
    if os.path.exists(stamp) and os.path.getmtime(stamp) > max(
            os.path.getmtime(f"{CB_SOURCE}.{ext}") for ext in CB_FILES):
        with open(stamp) as f:
            return json.load(f)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    base, scid = os.path.join(d, f"twic1134x{copies}"), os.path.join(d, "scid")
    games = src_games * copies
    log(f"figure 18: writing TWIC 1134's {src_games} game records {copies} times -> {base}.cbh")
    with open(CB_SOURCE + ".cbh", "rb") as f:
        cbh = f.read()
    if struct.unpack_from(">H", cbh, 3)[0] != CBH_RECORD:
        raise RuntimeError(f"{CB_SOURCE}.cbh: records not of {CBH_RECORD} bytes")
    head, records = bytearray(cbh[:CBH_RECORD]), cbh[CBH_RECORD:CBH_RECORD * (src_games + 1)]
    for at in (6, 40):  # the id of the next game to be added
        if struct.unpack_from(">I", head, at)[0] != src_games + 1:
            raise RuntimeError(f"{CB_SOURCE}.cbh: offset {at} does not say {src_games + 1}")
        struct.pack_into(">I", head, at, games + 1)
    with open(base + ".cbh", "wb") as f:
        f.write(head)
        for _ in range(copies):
            f.write(records)
    with open(CB_SOURCE + ".cbj", "rb") as f:
        cbj = f.read()
    jhead = bytearray(cbj[:CBJ_HEADER])
    length, count = struct.unpack_from("<II", jhead, 4)
    jrecords = cbj[CBJ_HEADER:CBJ_HEADER + src_games * length]
    if count != src_games or len(jrecords) != src_games * length:
        raise RuntimeError(f"{CB_SOURCE}.cbj: {count} records of {length} bytes, not {src_games}")
    struct.pack_into("<I", jhead, 8, games)
    with open(base + ".cbj", "wb") as f:
        f.write(jhead)
        for _ in range(copies):
            f.write(jrecords)
    for ext in CB_FILES:
        if ext not in ("cbh", "cbj"):
            shutil.copyfile(f"{CB_SOURCE}.{ext}", f"{base}.{ext}")
    p = subprocess.run([args.gamefs, "check", base + ".cbh"], text=True, timeout=3600,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    said = " ".join(p.stdout.split())
    if p.returncode != 0:
        raise RuntimeError(f"gamefs check {base}.cbh: exit status {p.returncode}: {said[-2000:]}")
    log(f"figure 18: gamefs check: {said}")
    log(f"figure 18: gamefs convert {base}.cbh -> SCID 4 {scid}")
    t = timed(f"{q(args.gamefs)} convert -q {q(base + '.cbh')} {q(scid)}", timeout=7200)[0]
    in_scid = int(tcl(TCL_COUNT, scid).strip())
    if in_scid != games:
        raise RuntimeError(f"the SCID 4 copy of {base}.cbh holds {in_scid} games, not {games}")
    info = {"cbh": base + ".cbh", "scid": scid, "games": games, "copies": copies,
            "src_games": src_games, "check": said or "no problem", "convert_s": round(t, 3)}
    with open(stamp, "w") as f:
        json.dump(info, f)
    return info


TAG_LINE = re.compile(rb'^\[[A-Za-z0-9_]+ "')


def pgn_games(path):
    """The games of a PGN file, each as (its tags as a set, its movetext's words): what two
    renderings of the same games share whatever their tags' order and line breaks."""
    tags, words = set(), []
    with open(path, "rb") as f:
        for line in f:
            if TAG_LINE.match(line):
                if words:
                    yield tags, words
                    tags, words = set(), []
                tags.add(line.strip())
            else:
                words.extend(line.split())
    if tags or words:
        yield tags, words


def same_games(a, b):
    """Whether the PGN files a and b hold the same games in the same order (`pgn_games`), and
    if not, the first game that differs."""
    n = 0
    for n, (x, y) in enumerate(itertools.zip_longest(pgn_games(a), pgn_games(b)), 1):
        if x != y:
            return False, f"game {n} differs"
    return True, f"{n} games"


CHESSBASE_INFO = ""  # how figure 18's bases were made and checked, for the run's record


def cbh2pgn_cmd():
    """The `cbh2pgn` program (PyPI cbh2pgn 0.2.0, an independent ChessBase reader), or None
    with why not."""
    prog = os.environ.get("GAMEFS_BENCH_CBH2PGN") or shutil.which("cbh2pgn")
    if not prog:
        return None, f"cbh2pgn not found (pip install cbh2pgn=={CBH2PGN_VERSION})"
    version = sh(f"{q(prog)} --version", check=False).strip()
    if version != f"cbh2pgn {CBH2PGN_VERSION}":
        return None, f"{prog} says {version!r}, not cbh2pgn {CBH2PGN_VERSION}"
    return prog, version


def bench_chessbase(args, n, runs):
    """Figure 18 (issue 52): a ChessBase base against a SCID 4 base of the same games. The base
    is TWIC 1134 (tests/data/chessbase/twic1134, 6,117 games) with its game records written K
    times (`chessbase_base`: about 100,000 games, or the run's count when more), its SCID 4 copy
    made by `gamefs convert`. In turn (each run in the other order than the one before), each
    run: a fresh read-only mount (no kept sizes) + the first `ls -l games/`, page cache dropped
    and again with the files cached; `gamefs export` of each (files cached, as figure 1);
    `cat all.pgn | wc -c` at the root of a new mount whose sizes an earlier mount kept (as
    figure 14), page cache dropped, and again on that mount.
    Then an independent reader, cbh2pgn 0.2.0 (`cbh2pgn convert BASE.cbh -o FILE`), against
    `gamefs export` of the same base: TWIC 1134 itself and, up to CBH2PGN_MAX_GAMES games, the
    big base (informative, no target).

    Caveat: whatever K, the big base's move file (.cbg) is TWIC 1134's, 0.5 MB, where the SCID 4
    copy's .sg4 holds every game's moves: read cold, the ChessBase base has K times fewer move
    bytes to fetch from disk, and its decoder meets the same 6,117 records over and over."""
    global CHESSBASE_INFO
    cb = chessbase_base(args, chessbase_copies(n))
    CHESSBASE_INFO = (f"tests/data/chessbase/twic1134 with its {cb['src_games']} game records (.cbh) and extended "
                      f"headers (.cbj) written {cb['copies']} times, the header counts set to {cb['games']} "
                      f"(bench.py `chessbase_base`); `gamefs check`: {cb['check']}; SCID 4 copy by `gamefs convert` "
                      f"({cb['convert_s']:.2f} s once), SCID counts {cb['games']} games")
    cbh, scid, games = cb["cbh"], cb["scid"], cb["games"]
    g = q(args.gamefs)
    mnt = os.path.join(MNT, "m18")
    os.makedirs(mnt, exist_ok=True)
    bases = (("cb", cbh), ("scid", scid))

    def in_turn(r):
        """The two bases in run `r`'s order: the first of one run is the second of the next,
        so that neither is always measured right after the other."""
        return bases if r % 2 == 0 else bases[::-1]

    what_base = f"TWIC 1134's {cb['src_games']} games ×{cb['copies']} = {games} games"
    peer_name = "gamefs on the SCID 4 copy of the same games (`gamefs convert`)"

    def fresh_mount_ls_l(db, cold):
        """Seconds from a fresh read-only mount (no kept sizes; `gamefs mount` returns when
        ready) to the end of its first `ls -l games/`; the files and their bytes."""
        forget_sizes()
        if cold:
            drop_caches()
        MOUNTS.add(mnt)
        t0 = time.perf_counter()
        sh(f"timeout 600 {g} mount -o ro {q(db)} {q(mnt)}")
        out = sh(ls_l_cmd(os.path.join(mnt, "games")), timeout=7200)
        t = time.perf_counter() - t0
        pid = daemon_pid(mnt)
        if pid:
            DAEMON_PEAKS.append(("ChessBase figure: mount + ls -l games/", vm_hwm(pid)))
        unmount(mnt)
        for _ in range(3000 if pid else 0):
            if not os.path.exists(f"/proc/{pid}"):
                break
            time.sleep(0.01)
        return t, out

    # (1) mount + the first `ls -l games/`, cold and warm
    ls_times = {(b, kind): [] for b, _ in bases for kind in ("cold", "warm")}
    ls_out = {}
    for r in range(runs):
        for kind in ("cold", "warm"):
            for b, db in in_turn(r):
                if kind == "warm":  # every file of the base in the page cache
                    sh(f"cat {q(db)}.* > /dev/null" if b == "scid" else
                       f"cat {q(cbh[:-len('.cbh')])}.cb? > /dev/null")
                t, ls_out[b] = fresh_mount_ls_l(db, kind == "cold")
                ls_times[(b, kind)].append(t)
    files, size = ls_out["cb"].split()
    scid_files, scid_size = ls_out["scid"].split()
    if int(files) != games or int(scid_files) != games:
        raise RuntimeError(f"`ls -l games/` lists {files} ChessBase and {scid_files} SCID 4 files, not {games}")
    for kind, how in (("cold", "page cache dropped"), ("warm", "the base's files cached")):
        gs, ps = stat(ls_times[("cb", kind)]), stat(ls_times[("scid", kind)])
        ratio = gs["median"] / ps["median"]
        extra = (f"; {what_base}: {files} files, {int(size) / 2**20:.1f} MiB; in SCID 4 "
                 f"{int(scid_size) / 2**20:.1f} MiB") if kind == "cold" else ""
        row(18, f"ChessBase: a fresh mount + first `ls -l games/`, {kind} ({how}; no kept sizes{extra})",
            gs, ps, f"{ratio:.2f}×", "≤ 1× SCID 4", ratio <= 1, peer_name=peer_name,
            key=f"chessbase_mount_ls_l_{kind}")

    # (2) gamefs export of each
    out = {b: os.path.join(DATA, f"fig18-export-{b}.pgn") for b, _ in bases}
    exports = {b: [] for b, _ in bases}
    for r in range(runs):
        for b, db in in_turn(r):
            exports[b].append(timed(f"{g} export -q {q(db)} -o {q(out[b])}", timeout=7200)[0])
    counts = {b: int(sh(f"grep -c '^\\[Event ' {q(out[b])}").strip()) for b, _ in bases}
    same_text = sh(f"cmp -s {q(out['cb'])} {q(out['scid'])} && echo same || echo different").strip()
    same, which = same_games(out["cb"], out["scid"])
    sizes = {b: os.path.getsize(out[b]) for b, _ in bases}
    for path in out.values():
        os.remove(path)
    gs, ps = stat(exports["cb"]), stat(exports["scid"])
    ratio = gs["median"] / ps["median"]
    text = (f"the same text, {sizes['cb'] / 2**20:.1f} MiB" if same_text == "same" else
            f"{sizes['cb'] / 2**20:.1f} and {sizes['scid'] / 2**20:.1f} MiB: "
            + ("the same tags and moves, in another tag order and other line breaks" if same else
               f"DIFFERENT games ({which})"))
    row(18, f"ChessBase: `gamefs export` ({counts['cb']} games, SCID 4 {counts['scid']}; {text})", gs, ps,
        f"{ratio:.2f}×", "≤ 1× SCID 4", ratio <= 1 and counts["cb"] == counts["scid"] == games and same,
        peer_name="`gamefs export` of the SCID 4 copy", key="chessbase_export")

    # (3) `cat all.pgn`: sizes learnt and kept by a first mount of each (as figure 14); no
    # position index (`tree=off`), which the later mounts would otherwise build while cat reads
    forget_sizes()
    for b, db in bases:
        m = ForegroundMount(args.gamefs, db, mnt, "ChessBase figure: all.pgn, learning sizes", ro=True,
                            opts=("tree=off",), keep_sizes=True)
        try:
            wait_sizes_known(mnt, games, timeout=7200)
        finally:
            m.close()
    cats = {(b, kind): [] for b, _ in bases for kind in ("cold", "warm")}
    cat_bytes = {}
    for r in range(runs):
        for b, db in in_turn(r):
            drop_caches()
            m = ForegroundMount(args.gamefs, db, mnt, "ChessBase figure: cat all.pgn", ro=True,
                                opts=("lazy_sizes", "tree=off"), keep_sizes=True)
            try:
                cmd = f"cat {q(os.path.join(mnt, 'all.pgn'))} | wc -c"
                t, o = timed(cmd, timeout=7200)
                cats[(b, "cold")].append(t)
                t, o2 = timed(cmd, timeout=7200)
                cats[(b, "warm")].append(t)
                cat_bytes[b] = {o.strip(), o2.strip()}
            finally:
                m.close()
    cat_same = (f"{int(next(iter(cat_bytes['cb']))) / 2**20:.1f} MiB, as `gamefs export` writes"
                if cat_bytes["cb"] == {str(sizes["cb"])} and cat_bytes["scid"] == {str(sizes["scid"])}
                else f"bytes read: ChessBase {sorted(cat_bytes['cb'])}, SCID 4 {sorted(cat_bytes['scid'])}, "
                     f"export {sizes['cb']} / {sizes['scid']}: DIFFERENT")
    for kind, how in (("cold", "page cache dropped, a new mount of the kept sizes"),
                      ("warm", "again on the same mount")):
        gs, ps = stat(cats[("cb", kind)]), stat(cats[("scid", kind)])
        ratio = gs["median"] / ps["median"]
        row(18, f"ChessBase: `cat all.pgn \\| wc -c` at the root, {kind} ({how}"
            + (f"; {cat_same})" if kind == "cold" else ")"), gs, ps, f"{ratio:.2f}×", "≤ 1× SCID 4",
            ratio <= 1 and not cat_same.endswith("DIFFERENT"), peer_name=peer_name,
            key=f"chessbase_all_pgn_{kind}")

    # (4) an independent reader, cbh2pgn, against gamefs export of the same base
    prog, why = cbh2pgn_cmd()
    targets = [(CB_SOURCE + ".cbh", cb["src_games"], "TWIC 1134 itself")]
    if games <= CBH2PGN_MAX_GAMES:
        targets.append((cbh, games, f"the base of {games} games above"))
    if not prog:
        row(18, f"ChessBase: an independent reader, cbh2pgn {CBH2PGN_VERSION}: not run", None, None, "—", "—",
            None, peer_name=why)
        return
    o_gf, o_peer = os.path.join(DATA, "fig18-gamefs.pgn"), os.path.join(DATA, "fig18-cbh2pgn.pgn")
    for path, count, name in targets:
        gf, peer, errors = [], [], ""
        for _ in range(runs):
            gf.append(timed(f"{g} export -q {q(path)} -o {q(o_gf)}", timeout=7200)[0])
            t0 = time.perf_counter()
            p = subprocess.run([prog, "convert", path, "-o", o_peer], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, timeout=7200)
            peer.append(time.perf_counter() - t0)
            if p.returncode != 0:
                raise RuntimeError(f"cbh2pgn convert {path}: exit status {p.returncode}: {p.stderr[-2000:]}")
            errors = p.stderr.strip().splitlines()[0] if p.stderr.strip() else ""
        found = int(sh(f"grep -c '^\\[Event ' {q(o_peer)}").strip())
        said = f"cbh2pgn writes {found} games" + (f", says: {errors}" if errors else "")
        gs, ps = stat(gf), stat(peer)
        speed = ps["median"] / gs["median"]
        row(18, f"ChessBase: `gamefs export` of {name} ({count} games; {said}), against an independent reader",
            gs, ps, f"{speed:.1f}× faster" if speed >= 1 else f"{1 / speed:.2f}× slower", "—", None,
            peer_name=f"`cbh2pgn convert BASE.cbh -o FILE` ({why}, PyPI)",
            key="chessbase_cbh2pgn_" + ("twic1134" if count == cb["src_games"] else "big"))
    for path in (o_gf, o_peer):
        if os.path.exists(path):
            os.remove(path)


# ------------------------------------------------------------------ main


TWIC_ZIPS = 100  # figure 16: as many zips as a year and a bit of The Week in Chess
TWIC_GAMES = 22_400  # ... of 224 games each (the issue's measure); fewer when the corpus is smaller


def twic_zips(pgn, n):
    """Figure 16's data (made once in DATA): the corpus's first games split into TWIC_ZIPS PGN
    files (`pgn/twicNNNN.pgn`), each zipped as The Week in Chess publishes it
    (`zips/twicNNNNg.zip`, deflated); returns the folder and, per file, its games' byte ranges."""
    games = min(n, TWIC_GAMES)
    per = games // TWIC_ZIPS
    d = os.path.join(DATA, f"twic-zips-{games}")
    ranges = []
    done = os.path.join(d, "ranges.json")
    if os.path.exists(done):
        with open(done) as f:
            return d, json.load(f)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "pgn"))
    os.makedirs(os.path.join(d, "zips"))
    texts, cur = [], []
    with open(pgn, "rb") as f:
        for line in f:
            if line.startswith(b"[Event ") and cur:
                texts.append(b"".join(cur))
                cur = []
                if len(texts) == per * TWIC_ZIPS:
                    break
            cur.append(line)
    if cur and len(texts) < per * TWIC_ZIPS:
        texts.append(b"".join(cur))
    for i in range(TWIC_ZIPS):
        name = f"twic{1400 + i}"
        at, spans = 0, []
        with open(os.path.join(d, "pgn", name + ".pgn"), "wb") as out:
            for text in texts[i * per:(i + 1) * per]:
                out.write(text)
                spans.append([at, len(text)])
                at += len(text)
        ranges.append([name, spans])
        sh(f"cd {q(os.path.join(d, 'pgn'))} && zip -q {q(os.path.join(d, 'zips', name + 'g.zip'))} {q(name + '.pgn')}")
    with open(done, "w") as f:
        json.dump(ranges, f)
    return d, ranges


def bench_twic_zips(args, pgn, n, runs, reads=20):
    """Figure 16 (issue 53): a folder of TWIC-like zips. The first mount (nothing unpacked or
    indexed before) + `ls games/`, cold, against `unzip -p Z | grep -c '^\\[Event '` over the
    same zips, cold; a random game's file read, cold, against the same game's bytes read from
    the unpacked PGN file, cold; a remount + `ls games/`, cold."""
    d, ranges = twic_zips(pgn, n)
    zips, plain = os.path.join(d, "zips"), os.path.join(d, "pgn")
    games = sum(len(spans) for _, spans in ranges)
    mnt = os.path.join(MNT, "m16")
    os.makedirs(mnt, exist_ok=True)
    count = f"for z in {q(zips)}/*.zip; do unzip -p \"$z\"; done | grep -c '^\\[Event '"
    first, peer, remount = [], [], []

    def mount_ls(what):
        """Seconds from a mount of the zips, page cache dropped, to its `ls games/`; the names."""
        drop_caches()
        t0 = time.perf_counter()
        m = ForegroundMount(args.gamefs, zips, mnt, f"a folder of zips: {what}", keep_sizes=True)
        try:
            names = sorted(os.listdir(os.path.join(mnt, "games")))
            return time.perf_counter() - t0, names
        finally:
            m.close()

    read_gf, read_plain = [], []
    rnd = random.Random(16)
    for _ in range(runs):
        forget_sizes()  # the kept unpackings and indexes too: a first mount
        drop_caches()
        t, out = timed(count)
        if int(out.strip()) != games:
            raise RuntimeError(f"unzip | grep counted {out.strip()} games, not {games}")
        peer.append(t)
        t, names = mount_ls("first mount")
        first.append(t)
        listed = len(names)
        t, again = mount_ls("remount")
        remount.append(t)
        listed_again = len(again)
        if listed != games or listed_again != games:
            raise RuntimeError(f"games/ of the zips lists {listed} then {listed_again} games, not {games}")
        # A random game of each of `reads` zips drawn at random: its file in games/
        # (`twic1400--0001 …`), and its bytes in the unpacked PGN file, each read with the page
        # cache dropped. On a mount that reads no game in the background (no size fill, no
        # position index), and of another zip each time: what a daemon has mapped stays in
        # memory when the page cache is dropped.
        by_prefix = {}
        for name in names:
            by_prefix.setdefault(name.split(" ", 1)[0], name)
        m = ForegroundMount(args.gamefs, zips, mnt, "a folder of zips: games read", keep_sizes=True,
                            opts=("lazy_sizes", "tree=off"))
        try:
            os.listdir(os.path.join(mnt, "games"))
            for member, spans in rnd.sample(ranges, min(reads, len(ranges))):
                k = rnd.randrange(len(spans))
                name = by_prefix[f"{member}--{k + 1:04}"]
                drop_caches()
                read_gf.append(read_timed(os.path.join(mnt, "games", name))[0])
                drop_caches()
                t0 = time.perf_counter()
                with open(os.path.join(plain, member + ".pgn"), "rb") as f:
                    f.seek(spans[k][0])
                    f.read(spans[k][1])
                read_plain.append(time.perf_counter() - t0)
        finally:
            m.close()
    g, p = stat(first), stat(peer)
    ratio = g["median"] / p["median"]
    row(16, f"first mount + `ls games/` of a folder of {TWIC_ZIPS} zips ({games} games), cold",
        g, p, f"{ratio:.2f}×", "≤ 1.3×", ratio <= 1.3, peer_name="`unzip -p` of each zip into `grep -c '^\\[Event '`",
        key="twic_zips_first_mount")
    g, p = stat(read_gf), stat(read_plain)
    g, p = ({k: v * 1000 if k != "runs" else v for k, v in x.items()} for x in (g, p))
    ratio = g["median"] / p["median"]
    row(16, f"a random game's file read from the zips' mount, cold ({len(read_gf)} reads)", g, p, f"{ratio:.2f}×",
        "≤ 2×", ratio <= 2, unit="ms", peer_name="the same game's bytes read from the unpacked PGN file",
        key="twic_zips_game_read")
    g = stat(remount)
    row(16, "remount + `ls games/` of the zips, cold", g, None, "—", "< 1 s", g["median"] < 1,
        key="twic_zips_remount")


# The figures, in the order they run (7 last: the peak RSS over every mount before it): the one
# list of them (`--only`, the default set and the 10m mode's are made from it). Each says what
# it needs: "db" the run's databases (imported from the corpus and checked), "corpus" the
# corpus only, "own" neither (it brings its own data). `c` holds what main() made.
FIGURES = [
    ("1", "db", lambda c: bench_export(c.args, c.scid_db, c.args.runs)),
    ("2", "db", lambda c: bench_mount_ls(c.args, c.scid_db, c.args.runs, c.n, c.pgn)),
    ("3", "db", lambda c: bench_grep(c.args, c.scid_db, c.args.runs, c.n, c.pgn)),
    ("4", "db", lambda c: bench_player(c.args, c.scid_db, c.args.runs)),
    ("5", "db", lambda c: bench_import(c.args, c.ipgn, c.ni, c.args.runs)),
    ("6", "db", lambda c: bench_saves(c.args, c.scid_db, c.args.runs)),
    ("8", "db", lambda c: bench_formats(c.args, c.pgn, c.n, c.scid_db, c.args.runs)),
    ("9", "db", lambda c: bench_ls_l(c.args, c.scid_db, c.args.runs, c.n, c.pgn)),
    ("10", "db", lambda c: bench_remount(c.args, c.scid_db, c.args.runs)),
    ("13", "db", lambda c: bench_tree(c.args, c.scid_db, c.args.runs)),
    ("14", "db", lambda c: bench_all_pgn(c.args, c.scid_db, c.args.runs)),
    ("15", "db", lambda c: bench_slice_tree(c.args, c.scid_db, c.args.runs)),
    ("16", "corpus", lambda c: bench_twic_zips(c.args, c.pgn, c.n, c.args.runs)),
    ("17", "db", lambda c: bench_endings(c.args, c.scid_db, c.args.runs)),
    ("18", "own", lambda c: bench_chessbase(c.args, c.n, c.args.runs)),
    ("19", "db", lambda c: bench_twins(c.args, c.scid_db, c.args.runs)),
    ("20", "db", lambda c: bench_header_queries(c.args, c.scid_db, c.args.runs)),
    ("7", "db", lambda c: bench_rss(c.args, c.scid_db, c.args.runs)),
]
# the figures that are no step of their own: 11 (the corpus import, timed when the run's
# databases are made) and 12 (10m: each figure's growth from the newest 1m run)
FIGURES_MADE_ALONG = {"11": "db", "12": "db"}
# the figures that scale to ten million games (no export, no 100k import, no other formats)
FIGURES_10M = {"2", "3", "4", "6", "9", "13", "14", "15", "17", "19", "20", "7"}


def hardware():
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = sh("free -h").rstrip()
    return {"nproc": sh("nproc").strip(), "cpu": cpu, "free -h": mem, "kernel": platform.release()}


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def commit():
    if os.environ.get("GAMEFS_COMMIT"):
        return os.environ["GAMEFS_COMMIT"]
    c = sh(f"git -C {q(REPO)} rev-parse --short HEAD", check=False).strip() or "?"
    dirty = sh(f"git -C {q(REPO)} status --porcelain --untracked-files=no -- src Cargo.toml Cargo.lock", check=False).strip()
    return c + (" (+ uncommitted changes in src/)" if dirty else "")


def main():
    global DATA, MNT
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, required=True)
    ap.add_argument("--import-games", type=int, help="corpus size for figure 5 (default: --games, at most 100000)")
    ap.add_argument("--gamefs", required=True)
    ap.add_argument("--build", default="not recorded", help="how the gamefs binary was built")
    ap.add_argument("--gen", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=SEED, help="the generator's seed (another: a corpus the PGO build never saw)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="the corpus of GAMES/K games written K times (events renamed per copy)")
    ap.add_argument("--pgn", help="measure on this PGN file instead of a generated corpus (e.g. --only 1)")
    ap.add_argument("--realworld", choices=("held-out", "trained"),
                    help="measure on the real-world corpus: the folders the PGO training never sees, or the others")
    ap.add_argument("--data", default=os.environ.get("GAMEFS_BENCH_DATA", "/work/bench-data"))
    ap.add_argument("--mnt", default=os.environ.get("GAMEFS_BENCH_MNT", "/work/bench-mnt"))
    ap.add_argument("--mode", required=True, help="quick, full, 1m or 10m: names the run's file")
    ap.add_argument("--no-append", action="store_true", help="print the table only: no run file")
    ap.add_argument("--label", default="", help="what the run's heading says after the mode (default: N games)")
    ap.add_argument("--only", help="comma-separated figures to run (" + ", ".join(sorted(
        [k for k, _, _ in FIGURES] + list(FIGURES_MADE_ALONG), key=int)) + "), for debugging")
    args = ap.parse_args()
    DATA, MNT = os.path.abspath(args.data), os.path.abspath(args.mnt)
    os.makedirs(DATA, exist_ok=True)
    # gamefs keeps game sizes between mounts in $XDG_CACHE_HOME/gamefs: the benchmark's own,
    # emptied before each mount (forget_sizes) but where a figure measures the kept sizes
    os.environ["XDG_CACHE_HOME"] = os.path.join(DATA, "xdg-cache")
    os.makedirs(MNT, exist_ok=True)
    default = FIGURES_10M if args.mode == "10m" else {k for k, _, _ in FIGURES}
    only = set(args.only.split(",")) if args.only else default
    known = {k: need for k, need, _ in FIGURES} | FIGURES_MADE_ALONG
    unknown = only - set(known)
    if unknown:
        ap.error(f"--only: no figure {', '.join(sorted(unknown))} (figures: {', '.join(sorted(known, key=int))})")
    needs = {known[k] for k in only}
    n = args.games
    started = time.time()
    load_start = loadavg()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        if args.realworld:
            args.pgn = realworld(args.realworld)
        if args.pgn:  # a given file: as many games as SCID takes of it
            pgn = os.path.abspath(args.pgn)
            gen_stats = f"given file {pgn} ({os.path.getsize(pgn) / 2**20:.1f} MiB)"
            scid_db, gf_db, import_info = databases(
                args, pgn, "db-" + re.sub(r"[^A-Za-z0-9.-]+", "-", os.path.basename(pgn)))
            n = int(tcl(TCL_COUNT, scid_db).strip())
        elif "db" not in needs and "corpus" in needs:  # no database needed: neither imported nor checked
            pgn, gen_stats = corpus(args.gen, n, args.seed, args.repeat)
            scid_db, gf_db, import_info = None, None, {}
        elif "db" not in needs:  # figures that bring their own data: no corpus either
            pgn, gen_stats = None, "none (the figures run bring their own data)"
            scid_db, gf_db, import_info = None, None, {}
        else:
            pgn, gen_stats = corpus(args.gen, n, args.seed, args.repeat)
            scid_db, gf_db, import_info = databases(
                args, pgn, f"db-{n}" + ("" if args.seed == SEED else f"-s{args.seed}")
                + ("" if args.repeat == 1 else f"-x{args.repeat}"))
        ok, checks = verify(args, scid_db, gf_db, n) if scid_db else (True, {})
        for k, v in checks.items():
            log(f"check: {k}: {v}")
        if not ok:
            log("WARNING: the two imports do not hold the same games")
        ni = args.import_games or min(n, 100_000)
        ipgn = pgn if ni == n or "5" not in only else corpus(args.gen, ni, args.seed)[0]
        made = argparse.Namespace(args=args, scid_db=scid_db, n=n, pgn=pgn, ipgn=ipgn, ni=ni)
        for key, _, fn in FIGURES:
            if key in only and (key != "7" or DAEMON_PEAKS):
                # Earlier figures' writes (imports, copies) are flushed first: a figure timing
                # fsync (6) or writing a file (1) must not wait for another's writeback.
                sh("sync")
                log(f"figure {key} ...")
                t0 = time.perf_counter()
                fn(made)
                log(f"figure {key} done in {time.perf_counter() - t0:.1f} s")
        corpus_import_rows(n, import_info)
        if args.mode == "10m":
            growth_rows(n)
    finally:
        unmount_all()
    wall = time.time() - started
    hw = hardware()
    sizes = {ext: os.path.getsize(f"{scid_db}.{ext}") if scid_db else 0 for ext in ("si4", "sn4", "sg4")}
    table = table_md()
    print(table)
    print(f"\n(wall time {wall / 60:.1f} min)")
    if not args.no_append:
        now = datetime.datetime.now()
        scid_version = sh("dpkg-query -W -f='${Version}' scid", check=False).strip() or "?"
        f = io.StringIO()
        what = args.label or (f"{n} games of {os.path.basename(pgn)}" if args.pgn else
                              f"{n} games" + ("" if args.seed == SEED else f", seed {args.seed}")
                              + ("" if pgn else " (no corpus made: the figures run bring their own data)"))
        f.write(f"## {now.strftime('%Y-%m-%d %H:%M')} — {args.mode}: {what}\n\n")
        f.write(f"- gamefs commit: {commit()}; SCID: Debian {scid_version}\n")
        f.write(f"- gamefs build: {args.build}\n")
        f.write(f"- hardware: {hw['cpu']}, nproc {hw['nproc']}, kernel {hw['kernel']}\n")
        f.write(f"- load average (1/5/15 min, other programs on the machine): {load_start} at the start, "
                f"{loadavg()} at the end\n")
        f.write("- memory (`free -h`):\n\n```\n" + hw["free -h"] + "\n```\n\n")
        if pgn:
            f.write(f"- data set: {os.path.basename(pgn)} ({os.path.getsize(pgn) / 2**20:.0f} MiB PGN), "
                    f"database .si4/.sn4/.sg4 = {sizes['si4'] / 2**20:.1f}/{sizes['sn4'] / 2**20:.1f}/{sizes['sg4'] / 2**20:.1f} MiB; "
                    f"figure 5 imports {ni} games\n")
            f.write(f"- generator: `{gen_stats}`\n")
            f.write(f"- corpus import (once): sc_import {import_info.get('sc_import_s')} s, gamefs import {import_info.get('gamefs_import_s')} s\n")
            f.write("- same games in both imports: " + "; ".join(f"{k}: {v}" for k, v in checks.items()) + "\n")
        else:
            f.write(f"- data set: {gen_stats}\n")
        if CHESSBASE_INFO:
            f.write(f"- figure 18's bases: {CHESSBASE_INFO}\n")
        ran = f"; figures run: {', '.join(sorted(only, key=int))} (`--only {args.only}`)" if args.only else ""
        f.write(f"- runs per figure: {args.runs} (figure 1 runs gamefs and the SCID exports in turn){ran}; bench wall time {wall / 60:.1f} min\n\n")
        f.write(table + "\n")
        path = runlog.write_run(now, args.mode, f.getvalue(), RAW)
        log(f"wrote {path}; BENCHMARKS.md's newest figures and {runlog.RUNS}/README.md made again")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        unmount_all()
