#!/usr/bin/python3
"""Benchmark report for lsmbloom: Google Benchmark JSON in, Markdown + PNG out.

Usage: make_report.py --out DIR [--command "..."] RAW.json [RAW2.json ...]

Benchmark names follow BM_<Measure>_<Impl>[/simd:<target>]/<args>, e.g.
BM_QueryAbsentBatch_Lsmbloom/1000000/32. DIR/REPORT.md contains:
  * a header: the machine (host, CPUs, MHz, caches) from each file's context,
    the Google Benchmark library's build type, custom context keys such as
    lsmbloom_simd, the dates of the runs and the command that made them;
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
"""

import argparse
import collections
import datetime
import json
import math
import os
import re
import statistics
import sys

BASELINE = "Lsmbloom"
MODEL_COUNTERS = ("fpr_model", "fpr_standard", "fpr_mean_fill")
SHOWN_COUNTERS = ("bits_per_key", "fpr", "fp_reads_per_lookup", "filter_MB") + MODEL_COUNTERS
PLOT_NAMES = re.compile(r"(.+_vs_n|simd_targets|fpr_vs_bits|lookup_vs_peers)\.png$")
# lookup_bench's measures: point lookups in an LSM tree, against its peers.
LOOKUP = re.compile(r"(Multi)?Get(Absent|Present)")
# Fields of a benchmark entry that are not user counters.
NOT_COUNTERS = {
    "family_index", "per_family_instance_index", "repetitions",
    "repetition_index", "threads", "iterations", "real_time", "cpu_time",
    "items_per_second", "bytes_per_second",
}
# Context keys shown in the machine table; the rest are custom keys.
MACHINE_KEYS = {"cpu_model", "compiler", "build_flags", 
    "date", "host_name", "executable", "num_cpus", "mhz_per_cpu",
    "cpu_scaling_enabled", "caches", "load_avg", "library_build_type",
    "json_schema_version", "library_version",
}

Run = collections.namedtuple(
    "Run", "measure impl target args ns bps counters reps source label")


# ---- Reading ----------------------------------------------------------------

def parse_name(name):
    """BM_<Measure>_<Impl>[/simd:t][/tag]/<args> -> (measure, impl, target, args)."""
    base, *parts = name.split("/")
    body = base[3:] if base.startswith("BM_") else base
    measure, _, impl = body.rpartition("_")
    if not measure:
        measure, impl = body, "-"
    target, args, tags = None, [], []
    for p in parts:
        if p.startswith("simd:"):
            target = p[5:]
        elif re.fullmatch(r"-?\d+", p):
            args.append(int(p))
        elif re.fullmatch(r"(iterations|min_time|repeats):\S+", p):
            pass  # How it was run, not what: not part of the label.
        else:
            tags.append(p)  # threads:2, real_time, ...: kept in the impl label
    if tags:
        impl = impl + " " + ",".join(tags)
    return measure, impl, target, tuple(args)


def median_of(entries, key):
    values = [e[key] for e in entries
              if isinstance(e.get(key), (int, float)) and math.isfinite(e[key])]
    return statistics.median(values) if values else None


def make_run(run_name, entries, source):
    measure, impl, target, args = parse_name(run_name)
    if impl == "-" and entries[0].get("label"):
        impl = str(entries[0]["label"])  # a name without _<Impl>: SetLabel's
    ips = median_of(entries, "items_per_second")
    ns = 1e9 / ips if ips else None
    keys = {k for e in entries for k, v in e.items()
            if k not in NOT_COUNTERS and isinstance(v, (int, float))
            and not isinstance(v, bool)}
    counters = {k: median_of(entries, k) for k in keys}
    reps = max(e.get("repetitions", 1) or 1 for e in entries)
    label = str(entries[0].get("label") or "").strip()
    return Run(measure, impl, target, args, ns, median_of(entries, "bytes_per_second"),
               counters, reps, source, label)


def load(paths):
    """Returns (contexts [(file, ctx)], runs, errors [(file, name, msg)], notes)."""
    contexts, runs, errors, notes = [], [], [], []
    for path in paths:
        source = os.path.basename(path)
        try:
            with open(path) as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            notes.append(f"`{source}` could not be read and was skipped: {e}")
            continue
        if not isinstance(data, dict):
            notes.append(f"`{source}` is not Google Benchmark JSON; skipped.")
            continue
        ctx = data.get("context")
        contexts.append((source, ctx if isinstance(ctx, dict) else {}))
        medians = collections.defaultdict(list)
        plain = collections.defaultdict(list)
        for b in data.get("benchmarks") or []:
            if not isinstance(b, dict):
                continue
            name = b.get("name", "?")
            run_name = b.get("run_name") or re.sub(
                r"_(mean|median|stddev|cv)$", "", name)
            if b.get("error_occurred") or b.get("skipped"):
                msg = b.get("error_message") or b.get("skip_message") or ""
                errors.append((source, name, msg))
            elif b.get("run_type") == "aggregate":
                if b.get("aggregate_name") == "median":
                    medians[run_name].append(b)
            else:
                plain[run_name].append(b)
        for run_name in list(dict.fromkeys(list(plain) + list(medians))):
            entries = medians.get(run_name) or plain[run_name]
            runs.append(make_run(run_name, entries, source))
    # One line per failing benchmark, not per repetition.
    return contexts, runs, list(dict.fromkeys(errors)), notes


def dedupe(runs, notes):
    """Keeps the last run of each (measure, impl, target, args)."""
    seen, clashes = {}, collections.Counter()
    for r in runs:
        key = (r.measure, r.impl, r.target, r.args)
        if key in seen:
            clashes[(seen[key].source, r.source)] += 1
        seen[key] = r
    for (first, later), count in clashes.items():
        notes.append(f"{count} benchmark(s) appear in both `{first}` and "
                     f"`{later}`; those of `{later}` are used.")
    return list(seen.values())


# ---- Formatting -------------------------------------------------------------

def sig3(x):
    if x is None or not math.isfinite(x):
        return "—"
    s = f"{x:#.3g}"
    return f"{float(s):.0f}" if "e+" in s else s.rstrip(".")


def fmt_counter(name, v):
    if v is None:
        return "—"
    return sig3(100 * v) + "%" if name.startswith("fpr") else sig3(v)


def human_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:g} {unit}"
        n /= 1024


def human_count(n):
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= div:
            return f"{n / div:.3g}{suffix}"
    return f"{n:.3g}"


def arg_columns(measure, count):
    """[(header, formatter)] for a measure's numeric arguments."""
    if measure == "Fpr":
        cols = [("bits/key", lambda v: sig3(v / 1000))]
    else:
        cols = [("n", lambda v: f"{v:,}"), ("batch", str)]
    cols += [(f"arg{i + 1}", str) for i in range(len(cols), count)]
    return cols[:count]


def ordered_impls(runs):
    impls = list(dict.fromkeys(r.impl for r in runs))
    return sorted(impls, key=lambda i: (i != BASELINE, impls.index(i)))


def md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |"
              for row in rows]
    return "\n".join(lines)


def cache_marks(contexts):
    """[(label, bytes, keys at 10 bits/key)] for L1d, L2, L3 of the first context."""
    for _, ctx in contexts:
        marks = []
        for c in ctx.get("caches") or []:
            level, size = c.get("level"), c.get("size")
            if not size or c.get("type") == "Instruction" or level not in (1, 2, 3):
                continue
            label = "L1d" if level == 1 else f"L{level}"
            marks.append((label, size, size * 8 / 10))
        if marks:
            return sorted(marks, key=lambda m: m[1])
    return []


# ---- Report sections --------------------------------------------------------

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


# ---- Plots ------------------------------------------------------------------

_pyplot = None


def pyplot():
    """matplotlib.pyplot (Agg backend), imported on first use: --help and
    argument errors work without matplotlib; a missing one is one line."""
    global _pyplot
    if _pyplot is None:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot
        except ImportError as e:
            sys.exit(f"make_report: the plots need matplotlib, which {sys.executable} "
                     f"cannot import ({e}); install python3-matplotlib "
                     "(apt-get install -y python3-matplotlib) and run /usr/bin/python3")
        _pyplot = matplotlib.pyplot
    return _pyplot


def series_label(r, with_n=False):
    """'<Measure> <Impl> [n=..] [batch=..]': the first argument only if with_n."""
    cols = arg_columns(r.measure, len(r.args))
    parts = [f"{h}={human_count(v) if h == 'n' else fmt(v)}"
             for (h, fmt), v in zip(cols, r.args)][0 if with_n else 1:]
    return " ".join([r.measure, r.impl] + parts)


def plot_vs_n(runs, title, marks, path):
    """ns/key against n, a line per series. A measure's Absent and Present
    variants (QueryAbsentBatch, QueryPresentBatch) share a colour; Present
    lines are dashed."""
    plt = pyplot()
    from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter
    series = collections.OrderedDict()
    for r in runs:
        if r.ns is not None and r.args:
            series.setdefault(series_label(r), []).append((r.args[0], r.ns))
    if not series:
        return False
    pair = lambda label: re.sub(r"(Absent|Present)", "", label, count=1)  # noqa: E731
    pairs = list(dict.fromkeys(pair(label) for label in series))
    # Lsmbloom first, each Absent line next to its Present one; colours in that order.
    order = sorted(series, key=lambda label: (
        label.split(" ")[1] != BASELINE, pairs.index(pair(label)), "Present" in label))
    pairs = list(dict.fromkeys(pair(label) for label in order))
    ys_all = [p for pts in series.values() for p in pts]
    fig, ax = plt.subplots(figsize=(9, 5.5))
    colors = plt.get_cmap("tab10" if len(pairs) <= 10 else "tab20").colors
    for label in order:
        xs, ys = zip(*sorted(series[label]))
        ax.plot(xs, ys, marker="o" if label.split(" ")[1] == BASELINE else "s",
                linestyle="--" if "Present" in label.split(" ")[0] else "-",
                label=label, color=colors[pairs.index(pair(label)) % len(colors)])
    ax.set_xscale("log")
    ax.set_yscale("log")
    lo, hi = min(y for _, y in ys_all), max(y for _, y in ys_all)
    ax.set_ylim(min(lo, hi / 10) / 1.2, hi * 1.2)  # a decade at least: no zoom-in
    ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    # Only the cache sizes near the data: a far one would squeeze the lines.
    xs_all = [x for x, _ in ys_all]
    marks = [m for m in marks if min(xs_all) / 5 <= m[2] <= max(xs_all) * 5]
    for label, size, keys in marks:
        ax.axvline(keys, color="grey", linestyle=":", linewidth=1.2)
        ax.text(keys, 1.01, f"{label} {human_bytes(size)}\n{human_count(keys)} keys",
                transform=ax.get_xaxis_transform(), fontsize=8, color="dimgrey",
                va="bottom", ha="center")
    ax.set_xlabel("n (keys)" + ("; dotted: cache sizes as keys at 10 bits/key"
                                if marks else ""))
    ax.set_ylabel("ns/key (log)")
    ax.set_title(title, pad=30 if marks else 6)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return True


def plot_lookups(runs, path):
    """Grouped bars: a group per lookup kind (Get/MultiGet x absent/present),
    a bar per implementation (same colour in every group), ns per lookup."""
    plt = pyplot()
    impls = ordered_impls(runs)
    groups = [(label, {i: r.ns for i, r in g.items() if r.ns})
              for label, _, g in lookup_groups(runs)]
    groups = [(label, by_impl) for label, by_impl in groups if by_impl]
    if not groups:
        return False
    colors = plt.get_cmap("tab10").colors
    width = 0.8 / len(impls)
    fig, ax = plt.subplots(figsize=(max(7, 1.9 * len(groups) + 2), 5))
    drawn = set()
    for x, (_, by_impl) in enumerate(groups):
        present = [i for i in impls if i in by_impl]  # no gap for a missing bar
        for k, impl in enumerate(present):
            bar = ax.bar(x + (k - (len(present) - 1) / 2) * width, by_impl[impl], width,
                         color=colors[impls.index(impl) % 10],
                         label=None if impl in drawn else impl)
            ax.bar_label(bar, labels=[sig3(by_impl[impl])], fontsize=8)
            drawn.add(impl)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([label for label, _ in groups])
    ax.set_ylabel("ns per lookup (lower is better)")
    ns = sorted({r.args[0] for r in runs if r.args})
    ax.set_title("LSM point lookups" + (f", n = {ns[0]:,} keys" if len(ns) == 1 else ""))
    ax.grid(True, axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.margins(y=0.1)
    handles, labels = ax.get_legend_handles_labels()
    order = sorted(range(len(labels)), key=lambda j: impls.index(labels[j]))
    ax.legend([handles[j] for j in order], [labels[j] for j in order], fontsize=9)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return True


def plot_simd(runs, path):
    plt = pyplot()
    targets = list(dict.fromkeys(r.target for r in runs))
    groups = collections.OrderedDict()
    for r in runs:
        if r.ns is not None:
            groups.setdefault(series_label(r, with_n=True), {})[r.target] = r.ns
    if not groups:
        return False
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(targets) + 3), 5))
    width = 0.8 / len(groups)
    for k, (label, by_t) in enumerate(groups.items()):
        xs = [t + (k - (len(groups) - 1) / 2) * width for t in range(len(targets))]
        ys = [by_t.get(t, 0) for t in targets]
        bars = ax.bar(xs, ys, width, label=label)
        ax.bar_label(bars, labels=[sig3(by_t.get(t)) if t in by_t else ""
                                   for t in targets], fontsize=7)
    ax.set_xticks(range(len(targets)))
    ax.set_xticklabels(targets)
    ax.set_ylabel("ns/key (lower is better)")
    ax.set_title("Per SIMD target")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.08),
              ncol=min(3, len(groups)))
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return True


def plot_fpr(runs, path, per_target=()):
    """Measured FPR (points) and model FPRs (curves) against bits/key; the
    per-SIMD-target BM_Fpr runs as large hollow diamonds around their point."""
    plt = pyplot()
    impls = ordered_impls(runs)
    fig, ax = plt.subplots(figsize=(8, 5.5))
    drawn = False
    x = lambda r: r.counters.get("bits_per_key") or (  # noqa: E731
        r.args[0] / 1000 if r.args else None)
    for k, impl in enumerate(impls):
        color = plt.get_cmap("tab10").colors[k % 10]
        rs = sorted((r for r in runs if r.impl == impl),
                    key=lambda r: r.args[:1])
        pts = [(x(r), r.counters.get("fpr")) for r in rs]
        pts = [(a, b) for a, b in pts if a and b and b > 0]
        if pts:
            ax.plot(*zip(*pts), "os^Dv"[k % 5], color=color, label=f"{impl} measured")
            drawn = True
        for model, style in zip(MODEL_COUNTERS, ("-", "--", ":")):
            curve = sorted((x(r), r.counters.get(model)) for r in rs
                           if x(r) and (r.counters.get(model) or 0) > 0)
            if curve:
                ax.plot(*zip(*curve), style, color=color, label=f"{impl} {model}")
                drawn = True
    for impl in dict.fromkeys(r.impl for r in per_target):
        rs = [r for r in per_target if r.impl == impl
              and x(r) and (r.counters.get("fpr") or 0) > 0]
        if rs:
            targets = ", ".join(dict.fromkeys(r.target for r in rs))
            ax.plot([x(r) for r in rs], [r.counters["fpr"] for r in rs], "D",
                    markersize=13, markerfacecolor="none", markeredgecolor="black",
                    label=f"{impl} measured per SIMD target ({targets})")
            drawn = True
    if drawn:
        ax.set_yscale("log")
        ax.set_xlabel("bits/key")
        ax.set_ylabel("false-positive rate (log)")
        ax.set_title("FPR vs bits/key: measured points, model curves")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return drawn


# ---- Main -------------------------------------------------------------------

def family(measure):
    """Measures drawn in one plot against n: Query* (filters), TableGet*
    (table lookups), else itself. The LSM lookups (lookup_bench, one n) and
    Fpr have plots of their own: None."""
    if measure == "Fpr" or LOOKUP.fullmatch(measure):
        return None
    if "FilterMemory" in measure or measure.startswith("Storage_"):
        return None  # lookup_bench's budget and storage runs: one n, a table.
    if measure.startswith("Query"):
        return "Query"
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
