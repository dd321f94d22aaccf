#!/usr/bin/env python3
"""Summarises kv_bench runs: median ops/s per engine and workload over the
runs, kvstore's ratio to each peer, and a bar chart.

usage: plot.py RESULTS.csv OUT.png SUMMARY.md
"""
import collections
import csv
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

WORKLOADS = ["fillseq", "fillrandom", "readrandom", "readmissing", "readwhilewriting",
             "readwhilewriting_writes"]
ENGINES = ["kvstore", "rocksdb", "leveldb"]


def main():
    path, png, summary = sys.argv[1:4]
    runs = collections.defaultdict(list)
    num = value_size = None
    with open(path) as f:
        for row in csv.DictReader(f):
            runs[(row["engine"], row["workload"])].append(float(row["ops_per_sec"]))
            num, value_size = int(row["num"]), row["value_size"]
    median = {k: statistics.median(v) for k, v in runs.items()}

    lines = [f"# kv_bench: {num:,} keys, {value_size}-byte values",
             "",
             "Median ops/s over the runs (min-max in brackets); ratio = kvstore / peer.",
             "",
             "| workload | kvstore | rocksdb | leveldb | vs rocksdb | vs leveldb |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for w in WORKLOADS:
        cells = []
        for e in ENGINES:
            v = runs.get((e, w))
            cells.append(f"{median[(e, w)]:,.0f} [{min(v):,.0f}-{max(v):,.0f}]" if v else "-")
        ratios = []
        for peer in ENGINES[1:]:
            k, p = median.get(("kvstore", w)), median.get((peer, w))
            ratios.append(f"{k / p:.2f}x" if k and p else "-")
        lines.append(f"| {w} | " + " | ".join(cells + ratios) + " |")
    with open(summary, "w") as f:
        f.write("\n".join(lines) + "\n")

    shown = WORKLOADS[:-1]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    width = 0.8 / len(ENGINES)
    for i, engine in enumerate(ENGINES):
        xs = [w + (i - 1) * width for w in range(len(shown))]
        ys = [median.get((engine, w), 0) / 1e3 for w in shown]
        bars = ax.bar(xs, ys, width, label=engine)
        ax.bar_label(bars, labels=[f"{y:.0f}" for y in ys], fontsize=7)
    ax.set_xticks(range(len(shown)))
    ax.set_xticklabels(shown)
    ax.set_ylabel("thousand ops/s, median of runs (higher is better)")
    ax.set_yscale("log")
    ax.set_title(f"kv_bench: {num:,} keys, {value_size}-byte values, 10 bits/key filters")
    ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
