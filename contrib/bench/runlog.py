#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The benchmark's run logs: one markdown file per run in contrib/bench/runs/, and what is made of
them (the one source of every figure shown elsewhere).

runlog.py [--runs DIR] [--benchmarks FILE]
    Regenerates the index of the runs (DIR/README.md) and the table of the newest figures at the
    top of FILE (BENCHMARKS.md, between the markers below) from the run files.

A run file is named YYYY-MM-DD-HHMM-MODE.md and starts with `## YYYY-MM-DD HH:MM — MODE: …`;
its figures are the rows of its table headed `| # | what | gamefs median …` (the table bench.py
prints); notes written after a run (`### …`) stay in its file. Runs written by bench.py also
carry their raw figures as JSON in a `<!-- figures: … -->` comment, which the 10m mode reads to
say how each figure grew from the newest 1m run.
"""

import argparse
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
RUNS = os.path.join(HERE, "runs")
BENCHMARKS = os.path.join(REPO, "BENCHMARKS.md")
BEGIN, END = "<!-- newest figures: begin (contrib/bench/runlog.py writes this table) -->", "<!-- newest figures: end -->"
MODE_ORDER = ["quick", "full", "1m", "10m"]  # then any other mode (hand-made runs), by name
TABLE_HEAD = "| # | what | gamefs median (min–max) | peer median (min–max) | gamefs / peer | target | |"
HEADING = re.compile(r"^## (\d{4}-\d{2}-\d{2}) (\d{2}):(\d{2}) — ([^:]+):")
FIGURES = re.compile(r"^<!-- figures: (.*) -->$")


def file_name(when, mode):
    """The run file's name: `YYYY-MM-DD-HHMM-MODE.md` (when: a datetime)."""
    return f"{when.strftime('%Y-%m-%d-%H%M')}-{re.sub(r'[^A-Za-z0-9]+', '-', mode).strip('-')}.md"


def parse(path):
    """One run file: its heading's date, time and mode, its table rows (cells) and raw figures."""
    with open(path) as f:
        lines = f.read().splitlines()
    m = HEADING.match(lines[0]) if lines else None
    if not m:
        raise ValueError(f"{path}: the first line is not `## YYYY-MM-DD HH:MM — MODE: …`")
    rows, raw, in_table = [], {}, False
    for line in lines:
        if line.startswith("### "):
            break  # notes after the run: not its figures
        if line == TABLE_HEAD:
            in_table = True
            continue
        if in_table and line.startswith("|"):
            if not line.startswith("|---"):
                rows.append([c.strip() for c in line.strip().strip("|").split(" | ")])
            continue
        in_table = False
        fm = FIGURES.match(line)
        if fm:
            raw = json.loads(fm.group(1))
    return {"file": os.path.basename(path), "when": f"{m.group(1)} {m.group(2)}:{m.group(3)}",
            "mode": m.group(4).strip(), "title": lines[0][3:], "rows": rows, "raw": raw}


def runs(runs_dir=RUNS):
    """Every run, oldest first."""
    out = [parse(os.path.join(runs_dir, f)) for f in sorted(os.listdir(runs_dir))
           if f.endswith(".md") and f != "README.md"]
    return sorted(out, key=lambda r: (r["when"], r["file"]))


def mode_key(mode):
    return (MODE_ORDER.index(mode), "") if mode in MODE_ORDER else (len(MODE_ORDER), mode)


def newest(all_runs):
    """Per mode, per figure number: the rows of the newest run that measured that figure."""
    table = {}
    for run in all_runs:  # oldest first: newer runs overwrite
        by_fig = {}
        for cells in run["rows"]:
            by_fig.setdefault(re.sub(r"′", "", cells[0]), []).append(cells)
        for fig, rows in by_fig.items():
            table.setdefault(run["mode"], {})[fig] = (run, rows)
    return table


def fig_key(fig):
    return (int(fig), "") if fig.isdigit() else (10**6, fig)


def newest_table(all_runs, link_prefix="contrib/bench/runs/"):
    """The markdown table of the newest figure of each mode, each row linking to its run."""
    out = ["| mode | # | what | gamefs median (min–max) | peer median (min–max) | gamefs / peer | target | | run |",
           "|---|---|---|---|---|---|---|---|---|"]
    table = newest(all_runs)
    for mode in sorted(table, key=mode_key):
        for fig in sorted(table[mode], key=fig_key):
            run, rows = table[mode][fig]
            for cells in rows:
                cells = (cells + [""] * 7)[:7]
                out.append(f"| {mode} | " + " | ".join(cells) + f" | [{run['when']}]({link_prefix}{run['file']}) |")
    return "\n".join(out)


def index(all_runs):
    """contrib/bench/runs/README.md: every run, newest first."""
    out = ["# Benchmark runs", "",
           "One file per run of `contrib/bench/run.sh` (named by date, time and mode; newest first), with",
           "the notes written about it. The table at the top of [BENCHMARKS.md](../../../BENCHMARKS.md)",
           "shows the newest figures of each mode; `contrib/bench/runlog.py` writes both from these files.",
           "", "| run | mode | figures |", "|---|---|---|"]
    for run in reversed(all_runs):
        figs = sorted({re.sub(r"′", "", c[0]) for c in run["rows"]}, key=fig_key)
        out.append(f"| [{run['title']}]({run['file']}) | {run['mode']} | {', '.join(figs)} |")
    return "\n".join(out) + "\n"


def regenerate(runs_dir=RUNS, benchmarks=BENCHMARKS):
    """Rewrite the runs' index and the newest-figures table of BENCHMARKS.md from the run files."""
    all_runs = runs(runs_dir)
    with open(os.path.join(runs_dir, "README.md"), "w") as f:
        f.write(index(all_runs))
    with open(benchmarks) as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        raise ValueError(f"{benchmarks}: the markers of the newest-figures table are missing")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    link = os.path.relpath(runs_dir, os.path.dirname(os.path.abspath(benchmarks))) + "/"
    with open(benchmarks, "w") as f:
        f.write(head + BEGIN + "\n" + newest_table(all_runs, link) + "\n" + END + tail)


def write_run(when, mode, text, raw, runs_dir=RUNS, benchmarks=BENCHMARKS):
    """Write a new run (its markdown and raw figures) and regenerate what is made of the runs."""
    os.makedirs(runs_dir, exist_ok=True)
    path = os.path.join(runs_dir, file_name(when, mode))
    with open(path, "w") as f:
        f.write(text.rstrip("\n") + "\n\n<!-- figures: " + json.dumps(raw, sort_keys=True) + " -->\n")
    regenerate(runs_dir, benchmarks)
    return path


def newest_raw(mode, key, runs_dir=RUNS):
    """The raw figure `key` of the newest run of `mode` that has it: (value, run) or None."""
    for run in reversed(runs(runs_dir)):
        if run["mode"] == mode and key in run["raw"]:
            return run["raw"][key], run
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", default=RUNS)
    ap.add_argument("--benchmarks", default=BENCHMARKS)
    args = ap.parse_args()
    regenerate(args.runs, args.benchmarks)


if __name__ == "__main__":
    main()
