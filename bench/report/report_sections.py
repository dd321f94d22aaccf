"""The report's Markdown sections: the header (machine, runs), one table
per measure, the FastLocalBloom comparison, the LSM lookups and the
per-SIMD-target table. Part of make_report.py."""

import collections
import datetime
import math
import os
import re

from report_runs import BASELINE, LOOKUP, MACHINE_KEYS, SHOWN_COUNTERS
from report_format import (
    arg_columns, fmt_counter, human_bytes, human_count, md_table, ordered_impls, sig3)


def local_fact(key):
    """What this machine says, for runs recorded before the benchmarks
    stored it themselves (marked as read when the report was made)."""
    try:
        if key == "cpu_model":
            for line in open("/proc/cpuinfo"):
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip() + " (read at report time)"
        if key == "compiler":
            import subprocess
            out = subprocess.run(["gcc", "--version"], capture_output=True, text=True)
            return out.stdout.splitlines()[0] + " (read at report time)"
        if key == "build_flags":
            return ("bazel -c opt (-O2 -DNDEBUG), -std=c++17, no -march: SIMD by "
                    "Highway runtime dispatch")
    except (OSError, IndexError):
        pass
    return "?"


def header_section(contexts, command):
    now = datetime.datetime.now(datetime.timezone.utc)
    out = ["# lsmbloom benchmark report", "",
           f"Generated {now:%Y-%m-%d %H:%M} UTC by `bench/report/make_report.py`."]
    if command:
        out.append(f"Command: `{command}`")
    out.append("")
    if not contexts:
        return out + ["No readable benchmark output.", ""]
    ctx = contexts[0][1]
    caches = []
    for c in ctx.get("caches") or []:
        kind = {"Data": "d", "Instruction": "i"}.get(c.get("type"), "")
        share = c.get("num_sharing", 1) or 1
        caches.append(f"L{c.get('level', '?')}{kind} {human_bytes(c.get('size', 0))}"
                      + (f" (shared by {share})" if share > 1 else ""))
    cpus = f"{ctx.get('num_cpus', '?')} × {ctx.get('mhz_per_cpu', '?')} MHz"
    if "cpu_scaling_enabled" in ctx:
        cpus += f", frequency scaling {'on' if ctx['cpu_scaling_enabled'] else 'off'}"
    machine = [("host", ctx.get("host_name", "?")),
               ("CPU model", ctx.get("cpu_model") or local_fact("cpu_model")),
               ("CPUs", cpus),
               ("caches", ", ".join(caches) or "?"),
               ("compiler", ctx.get("compiler") or local_fact("compiler")),
               ("build", ctx.get("build_flags") or local_fact("build_flags"))]
    if ctx.get("load_avg"):
        machine.append(("load average at start",
                        ", ".join(f"{x:.2f}" for x in ctx["load_avg"])))
    out += ["## Machine", "", md_table(["", ""], machine), ""]
    rows = []
    for source, c in contexts:
        custom = ", ".join(f"{k}={v}" for k, v in c.items() if k not in MACHINE_KEYS)
        rows.append([f"`{source}`", os.path.basename(str(c.get("executable", "?"))),
                     str(c.get("date", "?")), str(c.get("library_build_type", "?")),
                     custom or "—"])
    out += ["## Runs", "",
            md_table(["file", "binary", "date", "benchmark library build",
                      "custom context"], rows), "",
            "\"benchmark library build\" is that of Google Benchmark itself "
            "(Debian's package), not of lsmbloom.", ""]
    return out


def measure_section(measure, runs):
    impls = ordered_impls(runs)
    nargs = max(len(r.args) for r in runs)
    cols = arg_columns(measure, nargs)
    by_key = {(r.args, r.impl): r for r in runs}
    arg_rows = sorted({r.args for r in runs})
    timed = any(r.ns is not None for r in runs)
    others = [i for i in impls if i != BASELINE] if BASELINE in impls else []
    ratios = [o for o in others if any(
        by_key.get((a, o)) and by_key.get((a, BASELINE))
        and by_key[(a, o)].ns and by_key[(a, BASELINE)].ns for a in arg_rows)]
    counters = [(c, i) for c in SHOWN_COUNTERS for i in impls
                if any(c in r.counters for r in runs if r.impl == i)]

    # MB/s beside ns/key for the implementations that report bytes (table build).
    rated = {i for i in impls if any(r.bps for r in runs if r.impl == i)}

    header = [h for h, _ in cols]
    if timed:
        for i in impls:
            header += [f"{i} ns/key"] + ([f"{i} MB/s"] if i in rated else [])
        header += [f"{o} / {BASELINE}" for o in ratios]
    header += [f"{c} {i}" for c, i in counters]
    if len(header) == len(cols):
        return [f"### {measure}", "", "No timing or counters reported.", ""]
    if not cols:
        header.insert(0, "args")
    rows = []
    for a in arg_rows:
        row = [fmt(v) for (_, fmt), v in zip(cols, a)] + [""] * (nargs - len(a))
        row = row or ["—"]
        cell = lambda i: by_key.get((a, i))  # noqa: E731
        if timed:
            for i in impls:
                row.append(sig3(cell(i).ns) if cell(i) else "—")
                if i in rated:
                    row.append(sig3(cell(i).bps / 1e6) if cell(i) and cell(i).bps else "—")
            for o in ratios:
                mine, theirs = cell(BASELINE), cell(o)
                ok = mine and theirs and mine.ns and theirs.ns
                row.append(sig3(theirs.ns / mine.ns) if ok else "—")
        row += [fmt_counter(c, cell(i).counters.get(c)) if cell(i) else "—"
                for c, i in counters]
        rows.append(row)
    return [f"### {measure}", "", md_table(header, rows), ""]


# Targets against the FastLocalBloom baseline (FLB time / lsmbloom time).
FLB_TARGETS = {
    "Build": 1.5, "QueryAbsentHash": 1.3, "QueryAbsentKey": 1.2,
    "QueryPresentKey": 1.2, "QueryAbsentBatch": 1.2,
}


def flb_section(plain, per_target):
    """The ratio of FLB's time to lsmbloom's, same run, per measure and n."""
    by_key = {(r.measure, r.impl, r.args): r for r in plain}
    rows = []
    for (measure, impl, args), flb in sorted(by_key.items()):
        if impl != "Flb" or not flb.ns:
            continue
        if measure == "QueryAbsentBatch" and args[1:] not in ((8,), (32,), (128,)):
            continue
        target = FLB_TARGETS.get(measure)
        if measure == "QueryAbsentBatch" and args[1:] == (8,):
            target = None
        # Builds also through AddKeys (all keys in one call, as FLB's build
        # takes them), beside FLB's same build.
        variants = [(measure, measure)]
        if measure == "Build":
            variants.append(("BuildAddKeys", "Build, one AddKeys call"))
            variants.append(("BuildInlineHashChunks",
                             "Build, KeyHashInline + AddHashes (opt-in tier)"))
        for mine_measure, label in variants:
            cells = []
            for mine in ("Lsmbloom", "LsmbloomAvx2Site", "LsmbloomAvx512Site", "LsmbloomInline"):
                r = by_key.get((mine_measure, mine, args))
                if r and r.ns:
                    ratio = flb.ns / r.ns
                    met = "" if target is None else (" ✓" if ratio >= target else " ✗")
                    cells += [sig3(r.ns), sig3(ratio) + met]
                else:
                    cells += ["—", "—"]
            if mine_measure != measure and cells[0] == "—":
                continue
            rows.append([label, f"{args[0]:,}", str(args[1]) if len(args) > 1 else "",
                         sig3(flb.ns)] + cells + [f"≥ {target}" if target else "—"])
    if not rows:
        return []
    md = ["## Against FastLocalBloom", "",
          "FLB is bench/flb, a baseline of RocksDB's FastLocalBloom written here "
          "from its design, its AVX2 variant compiled with -mavx2 -mbmi2 and its "
          "probe inlined into the benchmark loop. Three ways to call lsmbloom: "
          "`Lsmbloom`, the public reader API from code built without -m flags "
          "(one call per key into the kernel picked at run time; batches: one "
          "call per batch); `LsmbloomAvx2Site`, the same API from code compiled "
          "with FLB's flags (-mavx2 -mbmi2), where MayMatchHash inlines its AVX2 "
          "probe; `LsmbloomAvx512Site`, the same API from code compiled with "
          "-march=x86-64-v4 (what -march=native gives on a CPU with AVX-512), "
          "where it inlines its AVX-512 probe; `LsmbloomInline`, the probe of lsmbloom/filter/blocked_bloom-inl.h "
          "in a loop compiled per SIMD target (AVX-512 where the CPU has it). "
          "Ratio = FLB ns / lsmbloom ns (> 1: lsmbloom is faster), same run; "
          "✓/✗ against the target.", "",
          md_table(["measure", "n", "batch", "FLB ns/key", "API ns/key",
                    "FLB / API", "AVX2 site ns/key", "FLB / AVX2 site",
                    "AVX-512 site ns/key", "FLB / AVX-512 site",
                    "inline ns/key", "FLB / inline", "target"],
                   rows), ""]
    # Accuracy at equal bits/key: the difference in standard deviations of
    # the two samples of absent keys (target: lsmbloom no worse than 2 sigma).
    frows = []
    for (measure, impl, args), flb in sorted(by_key.items()):
        mine = by_key.get((measure, "Lsmbloom", args))
        if measure != "Fpr" or impl != "Flb" or not mine:
            continue
        p, q = mine.counters.get("fpr"), flb.counters.get("fpr")
        n = mine.counters.get("absent_keys") or flb.counters.get("absent_keys")
        if p is None or q is None or not n:
            continue
        sigma = math.sqrt(p * (1 - p) / n + q * (1 - q) / n)
        z = (p - q) / sigma if sigma > 0 else 0.0
        frows.append([sig3(args[0] / 1000), f"{100 * p:.4f}%", f"{100 * q:.4f}%",
                      f"{z:+.2f}" + (" ✓" if z <= 2 else " ✗"), f"{n:,.0f}"])
    if frows:
        md += ["False-positive rates at equal bits/key (lsmbloom's k from its model, "
               "FLB's from its table):", "",
               md_table(["bits/key", "lsmbloom FPR", "FLB FPR",
                         "difference in sigma", "absent keys"], frows), ""]
    # The portable fallback against FLB's portable variant, at the n the
    # per-target runs use.
    scalar = [r for r in per_target if r.target in ("scalar", "emu128")]
    srows = []
    for r in scalar:
        flb = by_key.get((r.measure, "FlbPortable", r.args))
        if flb and flb.ns and r.ns:
            srows.append([f"{r.measure} {r.impl}", f"{r.args[0]:,}",
                          str(r.args[1]) if len(r.args) > 1 else "", r.target,
                          sig3(r.ns), sig3(flb.ns), sig3(flb.ns / r.ns)])
    if srows:
        md += ["Portable code against FLB's portable variant (target ≥ 1.0):", "",
               md_table(["measure", "n", "batch", "lsmbloom target", "lsmbloom ns/key",
                         "FLB portable ns/key", "ratio"], srows), ""]
    return md


# Batched probes against the memory limit (BM_RandomLines: one random 64-byte
# load per item, as many in flight as the core allows).
LIMIT_TARGET = 2.0


def limit_section(plain):
    """At the largest n with BM_RandomLines runs: ns/line of the limit and,
    per batch size, the batched probes' ns/key as a ratio to it."""
    limits = {r.args: r for r in plain if r.measure == "RandomLines" and r.ns}
    if not limits:
        return []
    n = max(a[0] for a in limits)
    by_key = {(r.impl, r.args): r for r in plain if r.measure == "QueryAbsentBatch"}
    impls = [i for i in ("Lsmbloom", "Flb") if any(k[0] == i for k in by_key)]
    rows = []
    for args in sorted(a for a in limits if a[0] == n):
        row = [str(args[1]), sig3(limits[args].ns)]
        for i in impls:
            r = by_key.get((i, args))
            if r and r.ns:
                ratio = r.ns / limits[args].ns
                row += [sig3(r.ns), sig3(ratio) + (" ✓" if ratio <= LIMIT_TARGET else " ✗")]
            else:
                row += ["—", "—"]
        rows.append(row)
    header = ["batch", "limit ns/line"]
    for i in impls:
        header += [f"{i} ns/key", f"{i} / limit"]
    return ["## Against the random-line limit", "",
            f"n = {n:,}. The limit: independent random 64-byte loads from a buffer "
            "the size of the filter (10 bits/key), as many in flight as the core "
            "allows (`BM_RandomLines`); a probe reads one line, so no batched probe "
            f"beats it. Ratio = probe ns/key / limit ns/line (target ≤ {LIMIT_TARGET:g}).",
            "", md_table(header, rows), ""]

def lookup_name(measure):
    """'MultiGetAbsent' -> ('MultiGet absent', sort key): Get before MultiGet,
    absent before present."""
    m = LOOKUP.fullmatch(measure)
    return (f"{'MultiGet' if m[1] else 'Get'} {m[2].lower()}",
            (bool(m[1]), m[2] == "Present"))


def lookup_groups(runs):
    """[(label, args, {impl: run})] in Get/MultiGet, absent/present order;
    the label names n only when the runs have several."""
    several = len({r.args for r in runs}) > 1
    groups = {}
    for r in runs:
        groups.setdefault((r.measure, r.args), {})[r.impl] = r
    out = []
    for (measure, args), by_impl in sorted(
            groups.items(), key=lambda g: (g[0][1], lookup_name(g[0][0])[1])):
        label = lookup_name(measure)[0]
        if several and args:
            label += " n=" + " ".join(human_count(a) for a in args)
        out.append((label, args, by_impl))
    return out


def lookup_section(runs, plot):
    """The LSM point lookups (lookup_bench) against the other stores: one table,
    rows Get/MultiGet x absent/present, and its bar chart."""
    impls = ordered_impls(runs)
    groups = lookup_groups(runs)
    nargs = max(len(r.args) for r in runs)
    cols = arg_columns("Get", nargs)
    others = [i for i in impls if i != BASELINE] if BASELINE in impls else []
    both = lambda g, o: (g.get(o) and g.get(BASELINE)  # noqa: E731
                         and g[o].ns and g[BASELINE].ns)
    ratios = [o for o in others if any(both(g, o) for _, _, g in groups)]
    header = (["lookup"] + [h for h, _ in cols] + [f"{i} ns/lookup" for i in impls]
              + [f"{o} / {BASELINE}" for o in ratios])
    rows = []
    for label, args, g in groups:
        row = [label.split(" n=")[0]] + [fmt(v) for (_, fmt), v in zip(cols, args)]
        row += [""] * (nargs - len(args))
        row += [sig3(g[i].ns) if i in g else "—" for i in impls]
        row += [sig3(g[o].ns / g[BASELINE].ns) if both(g, o) else "—" for o in ratios]
        rows.append(row)
    missing = ""
    if any("—" in row for row in rows):
        no_multi = [i for i in impls if not any(
            i in g for label, _, g in groups if label.startswith("MultiGet"))]
        missing = " \"—\": not measured" + (
            " (LevelDB has no MultiGet)." if no_multi == ["LevelDb"] else ".")
    out = ["### LSM point lookups", "",
           "Point lookups in an LSM tree of n keys held in several levels of files "
           "(`lookup_bench`): ns/lookup = 1e9 / items_per_second; a MultiGet's time "
           "is per key of its batch." + missing, "",
           md_table(header, rows), ""]
    shapes = []
    for i in impls:
        labels = list(dict.fromkeys(r.label for r in runs if r.impl == i and r.label))
        if labels:
            shapes.append(f"{i} {' / '.join(labels)}")
    if shapes:
        out += ["Files per level: " + "; ".join(shapes) + ".", ""]
    if plot:
        out += [f"![LSM point lookups: ns per lookup]({plot})", ""]
    return out


def simd_section(runs, contexts, plot):
    """One row per SIMD target: ns/key of each timed measure, the measured FPR
    of each BM_Fpr run, and a last row scalar / fastest."""
    targets = list(dict.fromkeys(r.target for r in runs))
    columns = collections.OrderedDict()  # (measure, impl, args, kind) -> {target: v}
    for r in runs:
        if r.measure == "Fpr":
            if r.counters.get("fpr") is not None:
                columns.setdefault((r.measure, r.impl, r.args, "fpr"), {})[r.target] = \
                    r.counters["fpr"]
        elif r.ns is not None:
            columns.setdefault((r.measure, r.impl, r.args, "ns"), {})[r.target] = r.ns
    if not columns:
        return []

    def title(measure, impl, args, kind):
        who = "" if impl == BASELINE else f" {impl}"
        desc = [f"{h}={fmt(v)}" for (h, fmt), v in
                zip(arg_columns(measure, len(args)), args)]
        if kind == "fpr":  # "FPR at 10.0 bits/key"
            return " ".join([f"FPR{who}"] + [re.sub(r"^bits/key=(.*)", r"at \1 bits/key", d)
                                              for d in desc])
        return " ".join([measure + who] + desc + ["ns/key"])

    header = ["target"] + [title(*key) for key in columns]
    rows = []
    for t in targets:
        rows.append([f"`{t}`"] + [
            (fmt_counter("fpr", by_t.get(t)) if key[3] == "fpr" else sig3(by_t.get(t)))
            for key, by_t in columns.items()])
    if "scalar" in targets and len(targets) > 1:
        row = ["scalar / fastest"]
        for key, by_t in columns.items():
            timed = [v for v in by_t.values() if v]
            scalar = by_t.get("scalar")
            ok = key[3] == "ns" and scalar and timed
            row.append(sig3(scalar / min(timed)) if ok else "—")
        rows.append(row)
    active = [c["lsmbloom_simd"] for _, c in contexts if "lsmbloom_simd" in c]
    impls = sorted({r.impl for r in runs})
    out = ["## Per SIMD target", "",
           f"Each row: the same work with {' and '.join(impls)}'s kernels pinned to "
           "one target."
           + (f" The unsuffixed runs above used target `{active[0]}`." if active else ""),
           "", md_table(header, rows), ""]
    # The target each kernel family ran unpinned, with the per-target
    # timings it was chosen by (bench_main.cc's lsmbloom_kernel_* context).
    prefix = "lsmbloom_kernel_"
    chosen = next((c for _, c in contexts if any(k.startswith(prefix) for k in c)), {})
    if chosen:
        cost = chosen.get(prefix + "timing_us")
        out += ["Each kernel family's target in the unsuffixed runs (timed at first use "
                "unless pinned: ns/op per target"
                + (f"; the timing took {cost} us of CPU time" if cost else "") + "):", ""]
        out += [f"- `{k[len(prefix):]}`: {v}" for k, v in sorted(chosen.items())
                if k.startswith(prefix) and k != prefix + "timing_us"]
        out += [""]
    for key, by_t in columns.items():
        if key[3] != "fpr":
            continue
        values = set(by_t.values())
        what = title(*key).replace("FPR", "The FPR", 1)
        every = ("every target" if len(by_t) == len(targets)
                 else f"the {len(by_t)} targets measured")
        if len(values) == 1:
            out += [f"{what} is identical on {every} "
                    f"({fmt_counter('fpr', values.pop())}), as it must be: every target "
                    "writes byte-identical filters.", ""]
        else:
            out += [f"{what} differs between targets although every target should "
                    "write byte-identical filters: a bug to look into.", ""]
    if plot:
        out += [f"![ns/key per SIMD target]({plot})", ""]
    return out
