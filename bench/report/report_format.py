"""Numbers and tables as the report writes them: significant digits, byte
and key counts, the argument columns of a measure, Markdown tables. Part of
make_report.py."""

import math

from report_runs import BASELINE


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
