"""The report's plots (matplotlib, imported on first use): ns/key against
n, the LSM lookups, the SIMD targets and FPR against bits/key. Part of
make_report.py."""

import collections
import re
import sys

from report_runs import BASELINE, MODEL_COUNTERS
from report_format import arg_columns, human_bytes, human_count, ordered_impls, sig3
from report_sections import lookup_groups


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
