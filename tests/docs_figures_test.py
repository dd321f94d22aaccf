#!/usr/bin/python3
"""Every figure the README and docs/PERFORMANCE.md quote agrees with its source.

What it checks, on the Markdown tables of the documents given (README.md,
docs/PERFORMANCE.md):

1. Tables quoted from a report. A table whose lead-in (the text between the
   heading or table before it and the table itself) names a benchmark report,
   `bench/report/DIR/REPORT.md` or `bench/report/DIR/`, quotes that report:
   its columns must be columns of one table of the report (same header text),
   its rows rows of that table (same label, and the same `n` and `batch` where
   the table has those columns), and every figure equal to the report's. A
   cell may drop trailing figures of a report cell that holds several
   ("1.78 us, 0.047" of "1.78 us, 0.047 rd, 44.9% hit"), never change one.
   Where several tables of the report have those columns (the storage
   report's 10^6 and 10^7 runs), the one whose section heading (before any
   parenthesis) the lead-in names is meant.
2. Tables quoted in both documents. Tables of different documents whose first
   header cell is the same (the table's subject, e.g. "filters (10^6 keys,
   mapped)") quote the same figures: every cell with the same row label and
   column header in both must hold the same figures (one may drop trailing
   figures of the other: "0.0270" of "0.0270 (68% fewer)").
3. Matching by label must be unambiguous: a row label (with its `n`, `batch`)
   appears once in a table, and a header once. A row whose first cell is
   empty continues the label of the row above.

Numbers are compared as numbers: "10^6" equals "1,000,000", "25 us" equals
"25.0 us"; a cell's figures are the numbers in it, in order (marks such as
a check mark and units are ignored). Prose is not checked: quote a figure in
a table, or keep it in one document only.

Usage: docs_figures_test.py [--root DIR | --root-of FILE] DOC.md...
Report paths are relative to DIR, the repository root (default "."); with
--root-of, the directory of FILE after following symlinks: under Bazel, the
checkout that the runfiles' README.md links to. (//bench does not export the
reports, so the Bazel test reads them from the checkout; it is tagged
"external" so that Bazel never caches its result over a changed report.)
Exits 1 naming every disagreement.
"""

import os
import re
import sys

KEY_HEADERS = ("n", "batch")
FENCE = re.compile(r"^\s*(```+|~~~+)")
SEPARATOR = re.compile(r"^\|(\s*:?-+:?\s*\|)+\s*$")
REPORT_REF = re.compile(r"bench/report/(?:([A-Za-z0-9_.-]+)/(?:REPORT\.md)?|REPORT\.md)")
NUMBER = re.compile(r"10\^(\d+)|[-+]?\d+(?:,\d{3})*(?:\.\d+)?")


def norm(text):
    text = text.replace("`", "").replace("**", "")
    return re.sub(r"\s+", " ", text).strip().lower()


def numbers(cell):
    """The figures of a cell, in order, as floats."""
    out = []
    for m in NUMBER.finditer(cell.replace("\u2212", "-")):
        if m.group(1) is not None:
            out.append(10.0 ** int(m.group(1)))
        else:
            out.append(float(m.group(0).replace(",", "")))
    return out


def split_row(line):
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|"):
        line = line[:-1]
    return [c.strip() for c in re.split(r"(?<!\\)\|", line)]


class Table:
    def __init__(self, path, line, lead_in, heading, header, rows):
        self.path, self.line, self.lead_in, self.heading = path, line, lead_in, heading
        self.header = header
        self.rows = rows  # (line number, cells)

    def where(self):
        return "%s:%d" % (self.path, self.line)


def parse_tables(path):
    """The tables of a Markdown file, each with its lead-in and section heading."""
    lines = open(path, encoding="utf-8").read().split("\n")
    tables = []
    lead_in, heading = [], ""
    in_fence = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if FENCE.match(line):
            in_fence = not in_fence
            lead_in.append(line)
            i += 1
            continue
        if in_fence:
            lead_in.append(line)
            i += 1
            continue
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
            lead_in = []
            i += 1
            continue
        if (line.startswith("|") and i + 1 < len(lines) and SEPARATOR.match(lines[i + 1].strip())):
            header = split_row(line)
            start = i + 1
            i += 2
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append((i + 1, split_row(lines[i])))
                i += 1
            tables.append(Table(path, start, "\n".join(lead_in), heading, header, rows))
            lead_in = []
            continue
        lead_in.append(line)
        i += 1
    return tables


ONLY_NUMBERS = re.compile(r"^\s*(?:(?:10\^\d+|[-+]?\d+(?:,\d{3})*(?:\.\d+)?)\s*)+$")


def key_value(cell):
    """A label cell as a key: numbers if it holds only numbers ("10^6" and
    "1,000,000" are one key), else its normalized text."""
    return tuple(numbers(cell)) if ONLY_NUMBERS.match(cell) else norm(cell)


def row_keys(table):
    """(line, cells, key) of each row: the key is the label (first cell,
    carried down from the row above when empty) and the `n` and `batch`
    cells."""
    headers = [norm(h) for h in table.header]
    key_cols = [j for j, h in enumerate(headers) if h in KEY_HEADERS and j != 0]
    label, out = "", []
    for line, cells in table.rows:
        cells = cells + [""] * (len(headers) - len(cells))
        if cells[0]:
            label = cells[0]
        out.append((line, cells, (key_value(label),) + tuple(key_value(cells[j]) for j in key_cols)))
    return out


def cells_by_key(table, errors):
    """{(row key, column header): (raw cell, line)} of a table's figure cells."""
    headers = [norm(h) for h in table.header]
    seen = set()
    for h in headers:
        if h in seen:
            errors.append("%s: column %r appears twice" % (table.where(), h))
        seen.add(h)
    key_cols = [0] + [j for j, h in enumerate(headers) if h in KEY_HEADERS and j != 0]
    out, rows_seen = {}, set()
    for line, cells, key in row_keys(table):
        label = cells[0] or key[0]
        if key in rows_seen:
            errors.append("%s:%d: row %r appears twice in its table; give it a label of its own"
                          % (table.path, line, label))
        rows_seen.add(key)
        for j, h in enumerate(headers):
            if j in key_cols:
                continue
            cell = cells[j]
            if not numbers(cell):
                continue
            out[(key, h)] = (cell, line)
    return out


def report_path(table, errors):
    """The report a table's lead-in names, or None."""
    names = set()
    for m in REPORT_REF.finditer(table.lead_in):
        names.add(os.path.join("bench/report", m.group(1) or "", "REPORT.md"))
    if len(names) > 1:
        errors.append("%s: the table's lead-in names several reports (%s); name one"
                      % (table.where(), ", ".join(sorted(names))))
        return None
    return names.pop() if names else None


def show(key):
    """A row key for messages: "label [n=1000000, batch=128]"."""
    label = key[0] if isinstance(key[0], str) else " ".join("%g" % x for x in key[0])
    rest = ["%g" % x[0] if isinstance(x, tuple) and len(x) == 1 else str(x) for x in key[1:]]
    rest = [r for r in rest if r not in ("", "()")]
    return repr(label) + (" [%s]" % ", ".join(rest) if rest else "")


def key_headers(table):
    return {norm(h) for h in table.header[1:] if norm(h) in KEY_HEADERS}


def check_against_report(rel, table, report_tables, errors):
    headers = {norm(h) for h in table.header}
    wanted_keys = key_headers(table)
    candidates = [t for t in report_tables
                  if headers <= {norm(h) for h in t.header} and wanted_keys <= key_headers(t)
                  and norm(t.header[0]) == norm(table.header[0])]
    if len(candidates) > 1:
        lead = norm(table.lead_in)
        named = [t for t in candidates if norm(re.sub(r"\(.*", "", t.heading)) in lead]
        candidates = named if named else candidates
    if not candidates:
        errors.append("%s: quotes %s, but no table there has the columns %s"
                      % (table.where(), rel, ", ".join(repr(h) for h in table.header)))
        return
    if len(candidates) > 1:
        errors.append("%s: quotes %s, whose tables at lines %s all have its columns; name the "
                      "section in the lead-in" % (table.where(), rel,
                                                  ", ".join(str(t.line) for t in candidates)))
        return
    source = candidates[0]
    ours = cells_by_key(table, errors)
    theirs = cells_by_key(source, [])
    # Rows of the doc table that are missing from the report, figures or not.
    source_rows = {key for _, _, key in row_keys(source)}
    for _, _, key in row_keys(table):
        if _pad_key(key, table, source) not in source_rows:
            errors.append("%s: row %s is not in %s (table at line %d)"
                          % (table.where(), show(key), rel, source.line))
    for (key, h), (cell, line) in sorted(ours.items(), key=lambda kv: kv[1][1]):
        got = theirs.get((_pad_key(key, table, source), h))
        if got is None:
            errors.append("%s:%d: %s, column %r: %s has no figure there"
                          % (table.path, line, show(key), h, rel))
            continue
        if not same_figures(cell, got[0]):
            errors.append("%s:%d: %s, column %r: %r, but %s:%d says %r"
                          % (table.path, line, show(key), h, cell, rel, got[1], got[0]))


def _pad_key(key, table, source):
    """A doc row key in the order of the source table's key columns (an omitted
    `batch` column counts as empty)."""
    ours = [norm(h) for h in table.header[1:] if norm(h) in KEY_HEADERS]
    theirs = [norm(h) for h in source.header[1:] if norm(h) in KEY_HEADERS]
    values = dict(zip(ours, key[1:]))
    return (key[0],) + tuple(values.get(h, "") for h in theirs)


def same_figures(ours, theirs):
    a, b = numbers(ours), numbers(theirs)
    if len(a) > len(b):
        return False
    return all(abs(x - y) <= 1e-9 * max(1.0, abs(y)) for x, y in zip(a, b))


def main(argv):
    root, docs = ".", []
    args = argv[1:]
    while args:
        a = args.pop(0)
        if a == "--root":
            root = args.pop(0)
        elif a == "--root-of":
            root = os.path.dirname(os.path.realpath(args.pop(0)))
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            docs.append(a)
    if not docs:
        print(__doc__)
        return 2
    errors = []
    tables = {doc: parse_tables(doc) for doc in docs}
    reports = {}
    checked = 0
    for doc in docs:
        for table in tables[doc]:
            rel = report_path(table, errors)
            if rel is None:
                continue
            path = os.path.join(root, rel)
            if not os.path.exists(path):
                errors.append("%s: quotes %s, which does not exist" % (table.where(), rel))
                continue
            if rel not in reports:
                reports[rel] = parse_tables(path)
            check_against_report(rel, table, reports[rel], errors)
            checked += 1
    # Tables with the same subject in two documents.
    compared = 0
    for i, a in enumerate(docs):
        for b in docs[i + 1:]:
            for ta in tables[a]:
                for tb in tables[b]:
                    if norm(ta.header[0]) != norm(tb.header[0]) or not norm(ta.header[0]):
                        continue
                    ca, cb = cells_by_key(ta, errors), cells_by_key(tb, errors)
                    for k in sorted(set(ca) & set(cb), key=lambda k: ca[k][1]):
                        compared += 1
                        x, y = ca[k][0], cb[k][0]
                        if not (same_figures(x, y) or same_figures(y, x)):
                            errors.append("%s:%d and %s:%d: %s, column %r: %r against %r"
                                          % (a, ca[k][1], b, cb[k][1], show(k[0]), k[1],
                                             ca[k][0], cb[k][0]))
    for e in dict.fromkeys(errors):
        print("FAIL " + e)
    print("%d tables checked against reports, %d figures compared across documents, %d problems"
          % (checked, compared, len(dict.fromkeys(errors))))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
