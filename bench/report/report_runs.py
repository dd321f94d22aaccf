"""Benchmark JSON read into runs: Google Benchmark's entries, one Run per
benchmark (the median of its repetitions), and the constants naming what a
run measures. Part of make_report.py."""

import collections
import json
import math
import os
import re
import statistics


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
