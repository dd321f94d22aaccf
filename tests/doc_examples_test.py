#!/usr/bin/python3
"""Every C++ example in the documentation is code that the tests compile.

Each ```cpp or ```c++ fenced block of the Markdown files given, and each
"// Example:" comment of the public headers given, must appear in one of the
source files given as consecutive lines, the same up to the indentation of
the whole excerpt, trailing spaces and blank lines around it. The sources
are ones the test suite compiles and runs (examples/quickstart:quickstart_test,
docs/examples:usage_examples_test), so an example that no longer compiles,
or gives other answers, fails there; one edited in the docs alone fails here.

Usage: doc_examples_test.py --docs MD... --sources CC... [--headers H...]
The README must hold at least one C++ block (its first program).
"""

import os
import re
import sys

FENCE = re.compile(r"^\s*(```+|~~~+)\s*([^\s`]*)")


def code_blocks(path):
    """(line number, lines) of each ```cpp / ```c++ block of a Markdown file."""
    blocks = []
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, lang = m.group(1), m.group(2).lower()
        start = i + 1
        i += 1
        # A closing fence: the opening's character only, at least as many.
        while i < len(lines):
            closing = lines[i].strip()
            if len(closing) >= len(fence) and set(closing) == {fence[0]}:
                break
            i += 1
        if lang in ("cpp", "c++", "cc", "cxx"):
            blocks.append((start + 1, lines[start:i]))
        i += 1
    return blocks


def header_examples(path):
    """(line number, lines) of each "// Example:" comment of a header: the
    lines after it that start with "//   ", without that prefix."""
    examples = []
    lines = open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        if line.strip() != "// Example:":
            continue
        body = []
        for following in lines[i + 1:]:
            if not following.startswith("//   "):
                break
            body.append(following[len("//   "):])
        if body:
            examples.append((i + 2, body))
    return examples


def normalized(lines):
    lines = [line.rstrip() for line in lines]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def matches_at(source, i, block):
    """Whether block equals source[i:], indented by what source[i] adds."""
    first = source[i]
    if not first.endswith(block[0]):
        return False
    indent = first[:len(first) - len(block[0])]
    if indent.strip():
        return False
    if i + len(block) > len(source):
        return False
    for j, line in enumerate(block):
        want = indent + line if line else ""
        if source[i + j] != want:
            return False
    return True


def longest_prefix(sources, block):
    """(path, line, count) of the source position matching most leading lines."""
    best = (None, 0, 0)
    for path, source in sources.items():
        for i in range(len(source)):
            n = 0
            while n < len(block) and i + n < len(source) and matches_at(
                    source, i, block[:n + 1]):
                n += 1
            if n > best[2]:
                best = (path, i + 1, n)
    return best


def main(argv):
    groups = {"--docs": [], "--sources": [], "--headers": []}
    current = None
    for arg in argv:
        if arg in groups:
            current = groups[arg]
        elif current is None:
            print(__doc__, file=sys.stderr)
            return 2
        else:
            current.append(arg)
    if not groups["--docs"] or not groups["--sources"]:
        print(__doc__, file=sys.stderr)
        return 2

    sources = {path: normalized(open(path, encoding="utf-8").read().split("\n"))
               for path in groups["--sources"]}
    examples = []
    for path in groups["--docs"]:
        examples += [(path, line, block) for line, block in code_blocks(path)]
    for path in groups["--headers"]:
        examples += [(path, line, block) for line, block in header_examples(path)]

    failures = 0
    readme_blocks = 0
    for path, line, block in examples:
        block = normalized(block)
        if not block:
            continue
        if os.path.basename(path) == "README.md":
            readme_blocks += 1
        if any(matches_at(source, i, block)
               for source in sources.values() for i in range(len(source))):
            continue
        failures += 1
        where, at, n = longest_prefix(sources, block)
        print(f"FAIL: {path}:{line}: this C++ example ({len(block)} lines) is in no "
              "compiled source", file=sys.stderr)
        if where is None:
            print(f"  not even its first line: {block[0]!r}", file=sys.stderr)
        else:
            print(f"  closest: {where}:{at}, whose first {n} lines match; then the "
                  f"example has {block[n]!r}", file=sys.stderr)
    if readme_blocks == 0:
        failures += 1
        print("FAIL: README.md has no C++ example", file=sys.stderr)

    print(f"{len(examples)} C++ examples in {len(groups['--docs'])} documents and "
          f"{len(groups['--headers'])} headers checked against "
          f"{len(sources)} sources: {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
