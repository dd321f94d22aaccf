#!/usr/bin/env python3
"""Counts one `bazel test` run's test cases for tools/test.sh.

Reads Bazel's log (which targets ran, failed, timed out or had no status)
and each target's test.xml (gtest's cases). Prints one line,
"passed failed skipped", for test.sh's tally; appends the failed targets to
--failures and every skipped case, with its reason, to --skips.

A skipped case whose reason names a capability this machine has (--has:
io_uring, o_direct, avx2) is counted as failed, not skipped, when --strict:
CI must not print a green tally with the io_uring engine untested on a
machine that runs io_uring. A target with no status, or one that crashed
or timed out before writing its cases, counts as one failure.
"""

import argparse
import os
import re
import sys
import xml.etree.ElementTree as ET

# What a skip message says when it lacks a capability (the tests' own
# wording: "io_uring unavailable here", "direct reads unavailable here",
# "this CPU has no AVX2").
CAPABILITY_OF_REASON = [
    ("io_uring", re.compile(r"io_uring", re.I)),
    ("o_direct", re.compile(r"direct read|O_DIRECT", re.I)),
    ("avx2", re.compile(r"AVX2", re.I)),
]

BAD = ("FAILED", "TIMEOUT", "NO STATUS", "FLAKY", "INCOMPLETE")


def targets(log_text):
    """(ran, bad, built_badly): target sets from Bazel's summary lines."""
    status = r"(?:\(cached\)\s+)?(" + "|".join(BAD) + r"|PASSED)"
    ran, bad = set(), set()
    for target, word in re.findall(r"^(//\S+)\s+" + status, log_text, re.M):
        ran.add(target)
        if word in BAD:
            bad.add(target)
    built_badly = set(re.findall(r"^(//\S+)\s+FAILED TO BUILD", log_text, re.M))
    return ran - built_badly, bad, built_badly


def skip_reason(case):
    """The reason of a skipped gtest case, or None if it was not skipped."""
    skipped = case.find("skipped")
    if case.get("result") != "skipped" and skipped is None:
        return None
    if skipped is not None:
        reason = skipped.get("message") or (skipped.text or "")
    else:
        reason = ""
    # gtest writes "file:line\nmessage": keep the message.
    lines = [l for l in reason.strip().splitlines() if l.strip()]
    return lines[-1].strip() if lines else "(no reason given)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", help="bazel test's output")
    parser.add_argument("testlogs", help="bazel-testlogs of that run")
    parser.add_argument("--suite", required=True, help="name of the run, for messages")
    parser.add_argument("--failures", required=True, help="file to append failures to")
    parser.add_argument("--skips", required=True, help="file to append skips to")
    parser.add_argument("--has", default="", help="capabilities this machine has, comma-separated")
    parser.add_argument("--strict", action="store_true",
                        help="a skip for a capability in --has is a failure")
    args = parser.parse_args()

    has = {c for c in args.has.split(",") if c}
    text = open(args.log, errors="replace").read()
    ran, bad, built_badly = targets(text)
    passed = failed = skipped = 0
    failure_lines, skip_lines = [], []
    for target in sorted(ran):
        # "//:t" has an empty package: joining "/t" would discard testlogs.
        package, _, name = target[2:].partition(":")
        log_path = os.path.join(args.testlogs, package, name, "test.log")
        cases = fails = skips = 0
        try:
            root = ET.parse(os.path.join(args.testlogs, package, name, "test.xml")).getroot()
            for case in root.iter("testcase"):
                if case.get("status") == "notrun":
                    continue  # DISABLED_ tests: not run, not claimed.
                cases += 1
                if case.find("failure") is not None or case.find("error") is not None:
                    fails += 1
                    continue
                reason = skip_reason(case)
                if reason is None:
                    continue
                label = f"{target} {case.get('classname')}.{case.get('name')}: {reason}"
                lacked = [c for c, pattern in CAPABILITY_OF_REASON if pattern.search(reason)]
                if args.strict and any(c in has for c in lacked):
                    fails += 1
                    failure_lines.append(
                        f"{args.suite}: {label} (skipped, but this machine has {', '.join(lacked)})")
                else:
                    skips += 1
                    skip_lines.append(label)
        except (OSError, ET.ParseError):
            pass
        if target in bad and fails == 0:
            fails, cases = 1, max(cases, 1)  # Crashed, timed out or no status.
        if fails or target in bad:
            failure_lines.append(f"{args.suite}: {target} ({log_path})")
        passed += cases - fails - skips
        failed += fails
        skipped += skips
    failed += len(built_badly)
    failure_lines += [f"{args.suite}: {t} failed to build" for t in sorted(built_badly)]
    if not ran and not built_badly and "ERROR:" in text:
        failed += 1
        failure_lines.append(f"{args.suite}: bazel failed before running a test")
    with open(args.failures, "a") as out:
        out.writelines(line + "\n" for line in failure_lines)
    with open(args.skips, "a") as out:
        out.writelines(line + "\n" for line in skip_lines)
    print(passed, failed, skipped)
    return 0


if __name__ == "__main__":
    sys.exit(main())
