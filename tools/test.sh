#!/usr/bin/env bash
# Runs the tests: the library's (bazel test //...) and the example store's
# (a separate workspace in examples/kvstore). Installs what is missing first.
# With --with-sanitizers (what CI runs) also: both suites under ASan+UBSan,
# the concurrency tests under TSan, each fuzzer for 60 seconds (what it finds
# is kept in /var/tmp/lsmbloom-fuzz-finds for a later commit), a quick
# smoke run of the benchmark harness, and the CMake build
# (tools/cmake_check.sh: build, CTest, install, find_package, add_subdirectory
# and pkg-config consumers).
# Ends with one line "N passed, N failed, N skipped" counted from the test
# cases in Bazel's test.xml files (not from Bazel's per-target summary), after
# the list of skipped cases with their reasons.
set -uo pipefail

usage() {
  cat <<USAGE
usage: tools/test.sh [--with-sanitizers] [--strict-skips] [extra bazel test flags]
Installs missing Debian packages (tools/setup.sh), runs all tests, prints
"N passed, N failed, N skipped" and exits non-zero if any test failed.
  --with-sanitizers   also ASan+UBSan, TSan, 60 s of each fuzzer (clang),
                      tools/run_bench.sh --quick into a temporary directory
                      and the CMake stage (tools/cmake_check.sh)
  --strict-skips      a test skipped for want of io_uring, O_DIRECT or AVX2
                      fails when this machine has it (always on with CI=true)
Skipped tests are listed with their reasons and counted apart.
USAGE
}

sanitizers=0
# On CI a test skipped for want of a capability the machine has fails.
strict_skips=0
[[ ${CI:-} == true ]] && strict_skips=1
extra=()
for arg in "$@"; do
  case "$arg" in
    -h | --help) usage; exit 0 ;;
    --with-sanitizers) sanitizers=1 ;;
    --strict-skips) strict_skips=1 ;;
    *) extra+=("$arg") ;;
  esac
done

cd "$(dirname "$0")/.."
root=$PWD
tools/setup.sh || exit 1

tally=$(mktemp)
failures=$(mktemp)  # One line per failed test or stage, repeated at the end.
skips=$(mktemp)     # One line per skipped test case, with its reason.
trap 'rm -f "$tally" "$failures" "$skips"' EXIT
status=0
# What the tests could skip for and this machine has (tools/capabilities.py,
# probed where Bazel's tests write their files).
capabilities=$(python3 tools/capabilities.py --dir "$(bazel info output_base 2>/dev/null || echo /tmp)")
echo "== this machine has: ${capabilities:-none of io_uring, o_direct, avx2}" >&2

# count LOG TESTLOGS SUITE: adds "passed failed skipped" for one bazel test
# run to $tally (tools/test_tally.py: skips listed with their reasons, and
# on CI a skip of a capability this machine has counted as a failure).
count() {
  local strict=()
  ((strict_skips)) && strict=(--strict)
  python3 tools/test_tally.py "$1" "$2" --suite "$3" --failures "$failures" \
    --skips "$skips" --has "$capabilities" "${strict[@]}" >>"$tally"
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
    //tests:modular_filter_test //tests:kernel_choice_test
  fuzz_base="$cache/lsmbloom-fuzz"
  fuzz_finds=${LSMBLOOM_FUZZ_FINDS:-/var/tmp/lsmbloom-fuzz-finds}
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
        echo "1 0 0" >>"$tally"
      else
        tail -n 30 "$work.log" >&2
        echo "fuzzer $target found a failure; the input is tests/fuzz/corpus/$target/crash-* (or timeout-*, oom-*, leak-*):" \
          "commit it with the fix and //tests/fuzz:${target}_corpus_test replays it" >&2
        echo "0 1 0" >>"$tally"
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
      # What the run found is kept for a later commit to merge into the
      # seeds (tools/fuzz_corpus_merge.sh): the checkout is a clean clone
      # on CI, the finds directory outlives it on the machine.
      finds="$fuzz_finds/$target"
      mkdir -p "$finds"
      new_inputs=0
      for input in "$work"/*; do
        [[ -f $input && ! -e "tests/fuzz/corpus/$target/${input##*/}" ]] || continue
        cp -n "$input" "$finds/" && new_inputs=$((new_inputs + 1))
      done
      echo "fuzzer $target: $new_inputs new inputs kept in $finds" >&2
      rm -rf "$work" "$work.log"
    done
  else
    echo "0 1 0" >>"$tally"
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
    echo "1 0 0" >>"$tally"
  else
    tail -n 40 "$bench_out.log" >&2
    echo "the benchmark smoke run failed" >&2
    echo "benchmark smoke run: $(tail -n 1 "$bench_out.log")" >>"$failures"
    echo "0 1 0" >>"$tally"
    status=1
  fi
  rm -rf "$bench_out" "$bench_out.log"
fi

if ((sanitizers)); then
  # The CMake build and its consumers, one tally line per step
  # (tools/cmake_check.sh names the steps; a failed one is named below).
  tools/cmake_check.sh --tally "$tally" --failures "$failures" || status=1
fi

if [[ -s $skips ]]; then
  echo "== what was skipped, and why"
  cat "$skips"
fi
if [[ -s $failures ]]; then
  echo "== what failed"
  cat "$failures"
fi
awk '{p += $1; f += $2; s += $3} END {printf "%d passed, %d failed, %d skipped\n", p, f, s}' "$tally"
exit $status
