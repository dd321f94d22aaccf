#!/usr/bin/python3
"""Benchmark report for lsmbloom: Google Benchmark JSON in, Markdown + PNG out.

Usage: make_report.py --out DIR [--command "..."] RAW.json [RAW2.json ...]

Benchmark names follow BM_<Measure>_<Impl>[/simd:<target>]/<args>, e.g.
BM_QueryAbsentBatch_Lsmbloom/1000000/32. DIR/REPORT.md contains:
  * a header: the machine (host, CPUs, MHz, caches) from each file's context,
    the Google Benchmark library's build type, custom context keys such as
    lsmbloom_simd, the dates of the runs and the command that made them;
  * batched probes at the largest n as a ratio to BM_RandomLines (random
    64-byte loads, the memory limit) of the same n and batch;
  * one table per measure: rows are the arguments (n, batch; bits/key for
    Fpr), columns the implementations, cells ns/key = 1e9 / items_per_second
    (3 significant digits) and, where bytes_per_second is reported (table
    build), MB/s = bytes_per_second / 1e6 beside it; ratio columns
    <Impl> / Lsmbloom from the same run, and the counters bits_per_key, fpr
    and the model FPRs where present;
  * the LSM point lookups (BM_[Multi]Get{Absent,Present}_<Impl>, lookup_bench)
    in one table, with a grouped bar chart of ns per lookup beside it;
  * a table of the per-SIMD-target runs (.../simd:<target>/...): one row per
    target, ns/key per measure and the FPR of the BM_Fpr runs;
  * plots: ns/key vs n (filter queries, table lookups, builds; log-x, with
    the L1d/L2/L3 sizes marked as keys at 10 bits/key; absent keys solid,
    present keys dashed), ns/key per SIMD target, and measured vs modelled
    FPR against bits/key (with the per-target FPRs) when BM_Fpr_* runs exist;
  * the benchmarks that reported an error (listed, never plotted).
With --benchmark_repetitions the "median" aggregate rows are used; without,
the median of the plain rows of the same name. The plots need matplotlib
(Debian: python3-matplotlib), imported only once the arguments are parsed.

This file puts the report together; its parts are report_runs.py (reading
the JSON), report_format.py (numbers and tables), report_sections.py (the
Markdown sections) and report_plots.py (the plots).
"""

import argparse
import os
import sys

from report_runs import BASELINE, LOOKUP, PLOT_NAMES, dedupe, load
from report_format import cache_marks, md_table
from report_sections import (
    flb_section, header_section, limit_section, lookup_section, measure_section,
    simd_section)
from report_plots import plot_fpr, plot_lookups, plot_simd, plot_vs_n, pyplot


# ---- Main -------------------------------------------------------------------

def family(measure):
    """Measures drawn in one plot against n: Query* (filters, with the
    RandomLines limit), TableGet*
    (table lookups), else itself. The LSM lookups (lookup_bench, one n) and
    Fpr have plots of their own: None."""
    if measure == "Fpr" or LOOKUP.fullmatch(measure):
        return None
    if "FilterMemory" in measure or measure.startswith(("Storage_", "Memory_")):
        # lookup_bench's budget and storage runs, filter_memory_bench's
        # (bench/report/memory_table.py): one n, a table.
        return None
    if measure.startswith("Query") or measure == "RandomLines":
        return "Query"  # the random-line limit drawn under the probes
    return "Get" if "Get" in measure else measure


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="directory for REPORT.md and PNGs")
    ap.add_argument("--command", help="command line shown in the report header")
    ap.add_argument("raw", nargs="+", help="Google Benchmark JSON files")
    opts = ap.parse_args(argv)
    pyplot()  # Every report has plots: fail before reading or writing anything.
    os.makedirs(opts.out, exist_ok=True)

    contexts, runs, errors, notes = load(opts.raw)
    runs = dedupe(runs, notes)
    plain = [r for r in runs if r.target is None]
    per_target = [r for r in runs if r.target is not None]
    marks = cache_marks(contexts)
    written = set()

    def save(name, ok):
        if ok:
            written.add(name)
        return ok

    md = header_section(contexts, opts.command)
    md += flb_section(plain, per_target)
    md += limit_section(plain)
    measures = list(dict.fromkeys(r.measure for r in plain))
    if measures:
        reps = sorted({r.reps for r in plain})
        if reps == [1]:
            how = "Values are from a single run (no repetitions)."
        elif len(reps) == 1:
            how = f"Values are medians of {reps[0]} repetitions."
        else:
            how = f"Values are medians of {reps[0]} to {reps[-1]} repetitions."
        rate = (" MB/s = bytes_per_second / 1e6 (the table build: key and value "
                "bytes written)." if any(r.bps for r in plain) else "")
        md += ["## Results", "",
               "ns/key = 1e9 / items_per_second." + rate + " "
               f"`<Impl> / {BASELINE}` > 1 means {BASELINE} is faster. "
               "fpr is measured on absent keys. " + how, ""]
        lookups = [r for r in plain if LOOKUP.fullmatch(r.measure)]
        for m in measures:
            if not LOOKUP.fullmatch(m):
                md += measure_section(m, [r for r in plain if r.measure == m])
            elif m == lookups[0].measure:  # all of them together, where the first was
                ok = save("lookup_vs_peers.png", plot_lookups(
                    lookups, os.path.join(opts.out, "lookup_vs_peers.png")))
                md += lookup_section(lookups, "lookup_vs_peers.png" if ok else None)

    if per_target:
        ok = save("simd_targets.png",
                  plot_simd(per_target, os.path.join(opts.out, "simd_targets.png")))
        md += simd_section(per_target, contexts, "simd_targets.png" if ok else None)

    plots = []
    families = [f for f in dict.fromkeys(family(m) for m in measures) if f]
    for fam in families:
        name = f"{fam.lower()}_vs_n.png"
        title = {"Query": "Filter queries", "Get": "Table point lookups"}.get(fam, fam)
        fam_runs = [r for r in plain if family(r.measure) == fam]
        if save(name, plot_vs_n(fam_runs, f"{title}: ns/key vs n", marks,
                                os.path.join(opts.out, name))):
            plots.append((f"{title}: ns/key vs n", name))
    fpr_runs = [r for r in plain if r.measure == "Fpr"]
    fpr_targets = [r for r in per_target if r.measure == "Fpr"]
    if (fpr_runs or fpr_targets) and save("fpr_vs_bits.png", plot_fpr(
            fpr_runs, os.path.join(opts.out, "fpr_vs_bits.png"), fpr_targets)):
        plots.append(("FPR vs bits/key", "fpr_vs_bits.png"))
    if plots:
        md += ["## Plots", ""]
        for title, name in plots:
            md += [f"### {title}", "", f"![{title}]({name})", ""]

    if errors:
        md += ["## Errors", "", "These benchmarks reported an error and are "
               "not in the tables or plots.", "",
               md_table(["file", "benchmark", "message"],
                        [[f"`{s}`", f"`{n}`", m or "—"] for s, n, m in errors]), ""]
    if notes:
        md += ["## Notes", ""] + [f"- {n}" for n in notes] + [""]

    # Plots of an earlier report that this data no longer produces would mislead.
    for f in os.listdir(opts.out):
        if PLOT_NAMES.match(f) and f not in written:
            os.remove(os.path.join(opts.out, f))
    with open(os.path.join(opts.out, "REPORT.md"), "w") as f:
        f.write("\n".join(md).rstrip() + "\n")
    print(f"make_report: wrote {os.path.join(opts.out, 'REPORT.md')} and "
          f"{len(written)} plot(s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
