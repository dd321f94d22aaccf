#!/usr/bin/env bash
# Runs the tests: the library's (bazel test //...) and the example store's
# (a separate workspace in examples/kvstore). Installs what is missing first.
# With --with-sanitizers (what CI runs) also: both suites under ASan+UBSan,
# the concurrency tests under TSan, each fuzzer for 60 seconds, a quick
# smoke run of the benchmark harness, and the CMake build
# (tools/cmake_check.sh: build, CTest, install, find_package, add_subdirectory
# and pkg-config consumers).
# Ends with one line "N passed, N failed" counted from the test cases in
# Bazel's test.xml files (not from Bazel's per-target summary).
set -uo pipefail

usage() {
  cat <<USAGE
usage: tools/test.sh [--with-sanitizers] [extra bazel test flags]
Installs missing Debian packages (tools/setup.sh), runs all tests, prints
"N passed, N failed" and exits non-zero if any test failed.
  --with-sanitizers   also ASan+UBSan, TSan, 60 s of each fuzzer (clang),
                      tools/run_bench.sh --quick into a temporary directory
                      and the CMake stage (tools/cmake_check.sh)
USAGE
}

sanitizers=0
extra=()
for arg in "$@"; do
  case "$arg" in
    -h | --help) usage; exit 0 ;;
    --with-sanitizers) sanitizers=1 ;;
    *) extra+=("$arg") ;;
  esac
done

cd "$(dirname "$0")/.."
root=$PWD
tools/setup.sh || exit 1

tally=$(mktemp)
failures=$(mktemp)  # One line per failed test or stage, repeated at the end.
trap 'rm -f "$tally" "$failures"' EXIT
status=0

# count LOG TESTLOGS: adds "passed failed" for one bazel test run to $tally.
count() {
  python3 - "$1" "$2" "$3" "$failures" >>"$tally" <<'PY'
import os, re, sys
import xml.etree.ElementTree as ET

log, testlogs, suite, failures = sys.argv[1:5]
named = []
text = open(log, errors="replace").read()
bad = set(re.findall(r"^(//\S+)\s+(?:FAILED|TIMEOUT|NO STATUS|FLAKY|INCOMPLETE)", text, re.M))
built_badly = set(re.findall(r"^(//\S+)\s+FAILED TO BUILD", text, re.M))
ran = set(re.findall(r"^(//\S+)\s+(?:\(cached\)\s+)?(?:PASSED|FAILED|TIMEOUT|FLAKY)", text, re.M))
passed = failed = 0
for target in sorted(ran - built_badly):
    # "//:t" has an empty package: joining "/t" would discard testlogs.
    package, _, name = target[2:].partition(":")
    path = os.path.join(testlogs, package, name, "test.xml")
    cases = fails = 0
    try:
        for case in ET.parse(path).getroot().iter("testcase"):
            if case.get("status") == "notrun":
                continue
            cases += 1
            if case.find("failure") is not None or case.find("error") is not None:
                fails += 1
    except (OSError, ET.ParseError):
        pass
    if target in bad and fails == 0:
        fails, cases = 1, max(cases, 1)  # Crashed or timed out before reporting.
    if fails or target in bad:
        named.append(f"{suite}: {target} ({os.path.join(testlogs, package, name, 'test.log')})")
    passed += cases - fails
    failed += fails
failed += len(built_badly)
named += [f"{suite}: {t} failed to build" for t in sorted(built_badly)]
if not ran and not built_badly and "ERROR:" in text:
    failed += 1  # Bazel itself failed before any test.
    named.append(f"{suite}: bazel failed before running a test")
with open(failures, "a") as out:
    out.writelines(line + "\n" for line in named)
print(passed, failed)
PY
}

# run_suite DIR [OUTPUT_BASE --] TEST_ARGS...: one bazel test run, counted.
# A run with its own output base leaves the bazel-* symlinks alone (they
# keep pointing at the default build) and asks Bazel where its logs are.
run_suite() {
  local dir=$1; shift
  local startup=() flags=()
  if (($# > 1)) && [[ $2 == -- ]]; then
    startup=(--output_base="$1")
    flags=(--symlink_prefix=/)
    shift 2
  elif [[ ${1:-} == -- ]]; then
    shift
  fi
  local log; log=$(mktemp)
  echo "== $dir: bazel ${startup[*]} test $*" >&2
  (cd "$dir" && bazel "${startup[@]}" test --test_summary=short "${flags[@]}" "$@" 2>&1) | tee "$log"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
  local testlogs="$dir/bazel-testlogs"
  if ((${#startup[@]})); then
    local config=()
    for a in "$@"; do [[ $a == --config=* ]] && config+=("$a"); done
    testlogs=$(cd "$dir" && bazel "${startup[@]}" info "${config[@]}" bazel-testlogs 2>/dev/null)
  fi
  count "$log" "$testlogs" "$dir ${startup[*]} $*"
  rm -f "$log"
}

run_suite . -- //... "${extra[@]}"
if [[ -f examples/kvstore/WORKSPACE ]]; then
  run_suite examples/kvstore -- //... "${extra[@]}"
fi

if ((sanitizers)); then
  # Separate output bases: clang builds do not evict the default one. Each
  # is named after this checkout's path as Bazel's default one is: a base
  # shared by two checkouts keeps runfiles links into the other one (a test
  # then reads that checkout's files, e.g. an older source list).
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/bazel-$(printf %s "$root" | md5sum | cut -c1-12)
  run_suite . "$cache/lsmbloom-asan" -- --config=asan //tests/...
  if [[ -f examples/kvstore/WORKSPACE ]]; then
    run_suite examples/kvstore "$cache/kvstore-asan" -- --config=asan //...
  fi
  run_suite . "$cache/lsmbloom-tsan" -- --config=tsan \
    //tests:lookup_test //tests:stress_test //tests:simd_targets_test \
    //tests:storage_lookup_test //tests:block_cache_test //tests:batch_read_test \
    //tests:modular_filter_test
  fuzz_base="$cache/lsmbloom-fuzz"
  # Every fuzz_target of tests/fuzz/BUILD (//tests:fuzz_stage_test checks).
  fuzz_targets=(filter_reader table roundtrip ribbon_reader ribbon_builder modular_reader)
  fuzzers=()
  for target in "${fuzz_targets[@]}"; do fuzzers+=("//tests/fuzz:${target}_fuzzer"); done
  if bazel --output_base="$fuzz_base" build --config=fuzz --symlink_prefix=/ "${fuzzers[@]}" >&2; then
    bin=$(bazel --output_base="$fuzz_base" info --config=fuzz bazel-bin 2>/dev/null)
    for target in "${fuzz_targets[@]}"; do
      work=$(mktemp -d)
      cp -r "tests/fuzz/corpus/$target/." "$work/"
      echo "== fuzzing $target for 60 s" >&2
      if "$bin/tests/fuzz/${target}_fuzzer" -max_total_time=60 -print_final_stats=1 \
          -report_slow_units=1000000 -artifact_prefix="$root/tests/fuzz/corpus/$target/" \
          "$work" >&2 2>"$work.log"; then
        tail -n 3 "$work.log" >&2
        echo "1 0" >>"$tally"
      else
        tail -n 30 "$work.log" >&2
        echo "fuzzer $target found a failure; the input is tests/fuzz/corpus/$target/crash-* (or timeout-*, oom-*, leak-*):" \
          "commit it with the fix and //tests/fuzz:${target}_corpus_test replays it" >&2
        echo "0 1" >>"$tally"
        status=1
        # CI may keep only the end of this output: name the failure there,
        # with the input itself (base64) so it can be replayed from the log.
        {
          echo "fuzzer $target: $(grep -m1 -E '^==[0-9]+==ERROR|^SUMMARY|deadly signal|out-of-memory|timeout' "$work.log")"
          for input in "tests/fuzz/corpus/$target"/{crash,timeout,oom,leak,slow-unit}-*; do
            [[ -f $input ]] || continue
            echo "  input $input, $(stat -c %s "$input") bytes, base64:"
            head -c 4096 "$input" | base64 -w 100 | sed 's/^/    /'
          done
        } >>"$failures"
      fi
      rm -rf "$work" "$work.log"
    done
  else
    echo "0 1" >>"$tally"
    echo "fuzzers: the build failed" >>"$failures"
    status=1
  fi
fi

if ((sanitizers)); then
  # Smoke run of the benchmark harness (numbers not judged here): every
  # binary runs, the report renders.
  bench_out=$(mktemp -d)
  echo "== tools/run_bench.sh --quick --out $bench_out" >&2
  # Its tables would bury the lines above; they are shown only on failure.
  if tools/run_bench.sh --quick --out "$bench_out" >"$bench_out.log" 2>&1 &&
      [[ -s "$bench_out/REPORT.md" ]]; then
    echo "benchmark smoke run: every binary ran, report rendered" >&2
    echo "1 0" >>"$tally"
  else
    tail -n 40 "$bench_out.log" >&2
    echo "the benchmark smoke run failed" >&2
    echo "benchmark smoke run: $(tail -n 1 "$bench_out.log")" >>"$failures"
    echo "0 1" >>"$tally"
    status=1
  fi
  rm -rf "$bench_out" "$bench_out.log"
fi

if ((sanitizers)); then
  # The CMake build and its consumers, one tally line per step
  # (tools/cmake_check.sh names the steps; a failed one is named below).
  tools/cmake_check.sh --tally "$tally" --failures "$failures" || status=1
fi

if [[ -s $failures ]]; then
  echo "== what failed"
  cat "$failures"
fi
awk '{p += $1; f += $2} END {printf "%d passed, %d failed\n", p, f}' "$tally"
exit $status
