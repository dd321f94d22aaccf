#!/usr/bin/env bash
# Every fuzz target of tests/fuzz/BUILD runs in CI's fuzz stage: fails naming
# any fuzz_target(name = ...) missing from tools/test.sh's fuzz_targets list
# (or listed there but not defined), and any target without a seed corpus
# directory tests/fuzz/corpus/<name>/.
# Usage: fuzz_stage_test.sh BUILD TEST_SH
set -euo pipefail

build=$1
test_sh=$2

# fuzz_target(name = "x") on one line, or fuzz_target( then name = "x".
defined=$(python3 - "$build" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for m in re.finditer(r'fuzz_target\(\s*name\s*=\s*"([^"]+)"', text):
    print(m.group(1))
PY
)
staged=$(sed -n 's/^[[:space:]]*fuzz_targets=(\(.*\))[[:space:]]*$/\1/p' "$test_sh" | tr ' ' '\n' |
  sed '/^$/d')

fail=0
if [[ -z $defined ]]; then
  echo "no fuzz_target found in $build" >&2
  exit 1
fi
if [[ -z $staged ]]; then
  echo "no fuzz_targets=(...) line found in $test_sh" >&2
  exit 1
fi
for t in $defined; do
  if ! grep -qx "$t" <<<"$staged"; then
    echo "fuzz target '$t' (tests/fuzz/BUILD) is missing from fuzz_targets in tools/test.sh" >&2
    fail=1
  fi
  corpus="$(dirname "$build")/corpus/$t"
  if [[ -z $(ls -A "$corpus" 2>/dev/null) ]]; then
    echo "fuzz target '$t' has no seed corpus in tests/fuzz/corpus/$t/" >&2
    fail=1
  fi
done
for t in $staged; do
  if ! grep -qx "$t" <<<"$defined"; then
    echo "tools/test.sh's fuzz_targets names '$t', which tests/fuzz/BUILD does not define" >&2
    fail=1
  fi
done
if ((fail == 0)); then
  echo "all $(wc -w <<<"$defined") fuzz targets are in CI's fuzz stage"
fi
exit $fail
