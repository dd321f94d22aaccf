#!/usr/bin/env bash
# Runs every test: the library's (bazel test //...) and the example store's
# (a separate workspace in examples/kvstore). Installs what is missing first.
# Ends with one line "N passed, N failed" counted from the test cases in
# Bazel's test.xml files, not from Bazel's per-target summary.
set -uo pipefail

if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then
  cat <<USAGE
usage: tools/test.sh [extra bazel test flags]
Installs missing Debian packages (tools/setup.sh), runs all tests, prints
"N passed, N failed" and exits non-zero if any test failed.
USAGE
  exit 0
fi

cd "$(dirname "$0")/.."
tools/setup.sh || exit 1

status=0
workspaces=(.)
[[ -f examples/kvstore/WORKSPACE ]] && workspaces+=(examples/kvstore)

logs=()
for ws in "${workspaces[@]}"; do
  log=$(mktemp)
  logs+=("$ws=$log")
  (cd "$ws" && bazel test //... --test_summary=short "$@" 2>&1) | tee "$log"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
done

python3 - "${logs[@]}" <<'PY'
import glob, os, re, sys
import xml.etree.ElementTree as ET

passed = failed = 0
for arg in sys.argv[1:]:
    ws, log = arg.split("=", 1)
    text = open(log, errors="replace").read()
    # Targets Bazel says did not pass (failed, timed out, flaky, no status).
    bad = set(re.findall(r"^(//\S+)\s+(?:FAILED|TIMEOUT|NO STATUS|FLAKY|INCOMPLETE)",
                         text, re.M))
    built_badly = set(re.findall(r"^(//\S+)\s+FAILED TO BUILD", text, re.M))
    ran = set(re.findall(r"^(//\S+)\s+(?:\(cached\)\s+)?(?:PASSED|FAILED|TIMEOUT|FLAKY)",
                         text, re.M))
    testlogs = os.path.join(ws, "bazel-testlogs")
    for target in sorted(ran):
        path = os.path.join(testlogs, target[2:].replace(":", "/"), "test.xml")
        cases = fails = 0
        try:
            root = ET.parse(path).getroot()
            for case in root.iter("testcase"):
                if case.get("status") == "notrun":
                    continue
                cases += 1
                if case.find("failure") is not None or case.find("error") is not None:
                    fails += 1
        except (OSError, ET.ParseError):
            pass
        if target in bad and fails == 0:
            fails = 1  # Crashed or timed out before reporting a failing case.
            cases = max(cases, 1)
        passed += cases - fails
        failed += fails
    failed += len(built_badly)
print(f"{passed} passed, {failed} failed")
PY
for entry in "${logs[@]}"; do rm -f "${entry#*=}"; done
exit $status
