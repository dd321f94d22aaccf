#!/usr/bin/env bash
# Builds the benchmarks, runs every benchmark binary in bazel-bin/bench/, and
# writes DIR/raw/<binary>.json plus DIR/REPORT.md and its plots.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: tools/run_bench.sh [--quick] [--lookup-keys N] [--memory-keys N] [--out DIR]

Runs tools/setup.sh (if present), `bazel build //bench:all`, then each
benchmark binary bazel-bin/bench/*_bench, and writes
  DIR/raw/<binary>.json   Google Benchmark JSON
  DIR/REPORT.md, *.png    the report (bench/report/make_report.py)
  DIR/CONSUMER.md         a consumer workspace's fastbuild against -c opt
                          (tools/consumer_bench.sh)

  --quick     n <= 10^6 keys, --benchmark_min_time=0.05, no repetitions
              (about a minute); the default is 5 repetitions, medians reported
  --lookup-keys N
              keys in lookup_bench's LSM tree (default 10^6; 10^7 takes
              several minutes to build and about 3 GB of disk in /tmp)
  --memory-keys N
              keys in filter_memory_bench's tree (default 10^7, 10^5 with
              --quick; bench/report/memory_table.py makes its report)
  --out DIR   output directory (default: bench/report)
  -h, --help  this text
EOF
}

die() { echo "run_bench: $*" >&2; exit 1; }
bad_usage() { echo "run_bench: $*" >&2; usage >&2; exit 2; }

command_line="tools/run_bench.sh${*:+ $*}"
quick=0
out=
lookup_keys=
memory_keys=
while (($# > 0)); do
  case "$1" in
    --quick) quick=1; shift ;;
    --out)
      (($# >= 2)) || bad_usage "--out needs a directory"
      out=$2; shift 2 ;;
    --out=*) out=${1#--out=}; shift ;;
    --lookup-keys)
      (($# >= 2)) || bad_usage "--lookup-keys needs a count"
      lookup_keys=$2; shift 2 ;;
    --lookup-keys=*) lookup_keys=${1#--lookup-keys=}; shift ;;
    --memory-keys)
      (($# >= 2)) || bad_usage "--memory-keys needs a count"
      memory_keys=$2; shift 2 ;;
    --memory-keys=*) memory_keys=${1#--memory-keys=}; shift ;;
    -h | --help) usage; exit 0 ;;
    *) bad_usage "unknown argument: $1" ;;
  esac
done

# A given DIR is relative to where the script was called; the default and
# everything else are relative to the workspace root.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ -f "$root/WORKSPACE" ]] || die "cannot find the workspace root (no WORKSPACE in $root)"
out=${out:-$root/bench/report}
mkdir -p "$out/raw" || die "cannot create $out/raw"
out=$(cd "$out" && pwd)
cd "$root"

if [[ -f tools/setup.sh ]]; then
  bash tools/setup.sh || die "tools/setup.sh failed"
fi
command -v bazel >/dev/null || die "bazel not found (tools/setup.sh installs bazel-bootstrap)"
bazel build //bench:all || die "bazel build //bench:all failed"

if [[ -n "$lookup_keys" ]]; then
  [[ "$lookup_keys" =~ ^[0-9]+$ ]] || bad_usage "--lookup-keys: not a count: $lookup_keys"
  export LSMBLOOM_LOOKUP_KEYS=$lookup_keys
fi
if [[ -n "$memory_keys" ]]; then
  [[ "$memory_keys" =~ ^[0-9]+$ ]] || bad_usage "--memory-keys: not a count: $memory_keys"
  export LSMBLOOM_MEMORY_KEYS=$memory_keys
fi

flags=(--benchmark_out_format=json)
if ((quick)); then
  export LSMBLOOM_BENCH_MAX_KEYS=1000000
  # Fixed-iteration cases (lookup_bench's Storage_, filter_memory_bench's
  # Memory_) run fewer; filter_memory_bench's tree has 10^5 keys.
  export LSMBLOOM_BENCH_QUICK=1
  flags+=(--benchmark_min_time=0.05)
else
  # Repetitions interleaved at random: a slow spell of a noisy machine
  # spreads over every implementation instead of landing on one.
  flags+=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true
          --benchmark_enable_random_interleaving=true --benchmark_min_time=0.1)
fi

raws=()
for bin in bazel-bin/bench/*_bench; do
  [[ -f "$bin" && -x "$bin" ]] || continue
  name=$(basename "$bin")
  raw="$out/raw/$name.json"
  echo "run_bench: running $name" >&2
  "$bin" "--benchmark_out=$raw" "${flags[@]}" || die "$name failed (exit $?)"
  raws+=("$raw")
done
((${#raws[@]} > 0)) || die "no benchmark binaries (*_bench) in bazel-bin/bench/"

/usr/bin/python3 bench/report/make_report.py --out "$out" \
  --command "$command_line" "${raws[@]}" || die "make_report.py failed"
echo "run_bench: report in $out/REPORT.md" >&2

# A consumer workspace's default build against its -c opt build.
echo "run_bench: running the consumer's builds (tools/consumer_bench.sh)" >&2
consumer_flags=(--out "$out")
((quick)) && consumer_flags+=(--quick)
tools/consumer_bench.sh "${consumer_flags[@]}" >&2 || die "tools/consumer_bench.sh failed"
echo "run_bench: consumer builds in $out/CONSUMER.md" >&2
