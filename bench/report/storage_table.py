#!/usr/bin/python3
"""The table of lookup_bench's Storage_ cases, from its JSON output.

One row per case, one column per engine; each cell: wall time per key, device
reads per key and, where a cache was asked, the block cache's hit rate (medians
over repetitions). Usage: storage_table.py RUN.json [RUN.json ...] > table.md
"""

import json
import re
import sys

ENGINES = ["LsmbloomBloom10", "LsmbloomBudgeted", "LsmbloomBudgetedTime", "RocksDbBloom10",
           "RocksDbRibbon10", "LsmbloomMapped"]
ROWS = [
    ("GetAbsent", "Get, absent"),
    ("GetPresent", "Get, present, uniform"),
    ("GetPresentZipf", "Get, present, Zipfian 0.99"),
    ("GetMixed", "Get, half absent, uniform"),
    ("GetMixedZipf", "Get, half absent, Zipfian"),
    ("GetPresentWarm", "Get, 256 hot keys (working set in the cache)"),
    ("MultiGet32InFlight", "MultiGet of 32 present, per key"),
    ("MultiGet32", "MultiGet of 32 present, per key"),
    ("MultiGet32OneAfterAnother", "the same, reads one after another"),
    ("Get32", "32 single Gets, per key"),
]
NAME = re.compile(r"^Storage_([A-Za-z0-9]+)_([A-Za-z0-9]+)/")


def medians(path):
    """{(case, engine): benchmark} for the median aggregates of one run."""
    out = {}
    for b in json.load(open(path))["benchmarks"]:
        if b.get("aggregate_name", "median") != "median":
            continue
        m = NAME.match(b["name"])
        if m:
            out[(m.group(1), m.group(2))] = b
    return out


def cell(b, per):
    text = f"{b['real_time'] / per / 1000:.3g} us"
    if "reads_per_key" in b:
        text += f", {b['reads_per_key']:.3f} rd"
    if b.get("cache_hit_rate", 0) > 0:
        text += f", {100 * b['cache_hit_rate']:.1f}% hit"
    return text


def table(path):
    runs = medians(path)
    lines = []
    device = [b for b in medians_raw(path) if b["name"].startswith("Storage_DeviceRead4KiB")]
    block = [b for b in medians_raw(path) if b["name"].startswith("Storage_ReadDataBlock")]
    if device:
        line = f"One random 4 KiB O_DIRECT read: {device[0]['real_time'] / 1000:.3g} us"
        if block:
            line += (f"; one data block read through a table's file "
                     f"(MeasureFalsePositiveReadNanos): {block[0]['us_per_key']:.3g} us")
        lines.append(line + ".\n")
    engines = [e for e in ENGINES if any(e == eng for (_, eng) in runs)]
    lines.append("| case | " + " | ".join(engines) + " |")
    lines.append("|---|" + "---|" * len(engines))
    seen = set()
    for case, title in ROWS:
        cells = []
        for e in engines:
            b = runs.get((case, e))
            if b is None and case == "MultiGet32InFlight":
                b = runs.get(("MultiGet32", e))  # RocksDB's plain MultiGet.
            per = 32 if case.startswith(("MultiGet32", "Get32")) else 1
            cells.append(cell(b, per) if b is not None else "")
        if any(cells) and title not in seen:
            seen.add(title)
            lines.append(f"| {title} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def medians_raw(path):
    return [b for b in json.load(open(path))["benchmarks"]
            if b.get("aggregate_name", "median") == "median"]


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    for path in argv[1:]:
        print(f"From {path}:\n")
        print(table(path))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
