#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Figure 1 for several gamefs builds at once: `gamefs export` of each database by each binary
and SCID's `sc_base export`, interleaved round by round (a drifting machine slows all alike),
wall time and CPU time (user + system) of each; prints a markdown table.

compare_exports.py --bin NAME=GAMEFS ... --db NAME=SCID_BASE ... [--rounds N] [--tcl SCRIPT]

The wall ratio is figure 1's; the CPU ratio says what the export costs when the machine is
busy (gamefs renders on every core, SCID on one). Used to compare PGO trainings and changes to
the export (BENCHMARKS.md). Every build must write the same bytes for a database (compared in
the first round): a change that speeds up the export must not change its text.
"""

import argparse
import hashlib
import os
import resource
import statistics
import subprocess
import tempfile
import time

from bench import TCL_EXPORT_BASE  # figure 1's SCID export


def run(cmd):
    """Wall and CPU seconds of one command."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def pairs(items):
    return dict(item.split("=", 1) for item in items)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", action="append", required=True, help="NAME=PATH of a gamefs binary")
    ap.add_argument("--db", action="append", required=True, help="NAME=PATH of a SCID base")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    bins, dbs = pairs(args.bin), pairs(args.db)
    os.environ["PATH"] += ":/usr/games"
    with tempfile.TemporaryDirectory() as tmp:
        tcl, out = os.path.join(tmp, "export.tcl"), os.path.join(tmp, "out.pgn")
        with open(tcl, "w") as f:
            f.write(TCL_EXPORT_BASE)
        res, digests = {}, {}
        for r in range(args.rounds):
            for dn, db in dbs.items():
                for bn, b in bins.items():
                    res.setdefault((dn, bn), []).append(run([b, "export", db, "-o", out]))
                    if r == 0:
                        with open(out, "rb") as f:
                            digests.setdefault(dn, {})[bn] = hashlib.file_digest(f, "sha256").hexdigest()
                res.setdefault((dn, "SCID"), []).append(run(["tkscid", tcl, db, out]))
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    print(f"{args.rounds} rounds, interleaved; load average at the end {load}\n")
    for dn, by_bin in digests.items():
        same = len(set(by_bin.values())) == 1
        print(f"- {dn}: the builds' exports are {'byte-identical' if same else 'DIFFERENT'}"
              f" (sha256 {' / '.join(f'{bn} {d[:12]}' for bn, d in by_bin.items())})")
    print()
    print("| database | build | wall median (min–max) | CPU median | SCID / gamefs, wall | SCID / gamefs, CPU |")
    print("|---|---|---|---|---|---|")
    for dn in dbs:
        scid = res[(dn, "SCID")]
        sw, sc = statistics.median(w for w, _ in scid), statistics.median(c for _, c in scid)
        for bn in list(bins) + ["SCID"]:
            ws, cs = [w for w, _ in res[(dn, bn)]], [c for _, c in res[(dn, bn)]]
            mw, mc = statistics.median(ws), statistics.median(cs)
            print(f"| {dn} | {bn} | {mw:.2f} s ({min(ws):.2f}–{max(ws):.2f}) | {mc:.2f} s | {sw / mw:.2f}× | {sc / mc:.2f}× |")
    differ = [dn for dn, by_bin in digests.items() if len(set(by_bin.values())) > 1]
    if differ:
        raise SystemExit(f"the builds' exports differ: {', '.join(differ)}")


if __name__ == "__main__":
    main()
