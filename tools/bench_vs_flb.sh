#!/usr/bin/env bash
# The filter core against the FastLocalBloom baseline (bench/flb), in one
# run of bench/filter_bench: build, single queries (API and inlined), batched
# queries, FPR at equal bits/key and the portable code, at 10^4 to 10^8
# keys; medians of 5 interleaved repetitions. Writes raw JSON and a report
# whose first table is the ratio to FLB. About 15 minutes; --quick caps n at
# 10^6 and takes one repetition (about a minute); --batches runs only the
# batched queries and the random-line limit under them, at 10^6 and 10^7
# keys (where batches start to wait on memory), 5 repetitions (a few minutes).
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: tools/bench_vs_flb.sh [--quick | --batches] [--out DIR]
  --quick     n <= 10^6, one repetition
  --batches   batches of 8, 32 and 128 hashes at 10^6 and 10^7 keys only,
              5 repetitions
  --out DIR   output directory (default: bench/report/flb, with --batches
              bench/report/flb-batches)
  -h, --help  this text
Pin the CPU with taskset to keep other work off it, e.g.
  taskset -c 1 tools/bench_vs_flb.sh
USAGE
}

quick=0
batches=0
out=
while (($# > 0)); do
  case "$1" in
    --quick) quick=1; shift ;;
    --batches) batches=1; shift ;;
    --out) (($# >= 2)) || { usage >&2; exit 2; }; out=$2; shift 2 ;;
    --out=*) out=${1#--out=}; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "bench_vs_flb: unknown argument: $1" >&2; usage >&2; exit 2 ;;
  esac
done
if ((quick && batches)); then
  echo "bench_vs_flb: --quick and --batches exclude each other" >&2
  exit 2
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
default_out=$root/bench/report/flb
((batches)) && default_out+=-batches
out=${out:-$default_out}
mkdir -p "$out/raw"
bash tools/setup.sh
bazel build //bench:filter_bench

speed='^BM_(Build_(Lsmbloom|Flb|FlbPortable)/[0-9]+|Build(AddKeys|InlineHashChunks)_Lsmbloom/[0-9]+'
speed+='|Query(Absent|Present)Key_(Lsmbloom|LsmbloomInline|LsmbloomAvx2Site|LsmbloomAvx512Site|Flb)/[0-9]+'
speed+='|QueryAbsentHash_(Lsmbloom|LsmbloomInline|LsmbloomAvx2Site|LsmbloomAvx512Site|Flb|FlbPortable)/[0-9]+'
speed+='|QueryAbsentBatch_(Lsmbloom|Flb)/[0-9]+/(8|32|128)'
speed+='|QueryAbsentBatch_FlbPortable/1000000/32'
speed+='|RandomLines/[0-9]+/(32|128)'
speed+='|[A-Za-z]+_Lsmbloom(Inline)?/simd:(scalar|emu128)/[0-9]+(/32)?)$'
accuracy='^BM_Fpr_(Lsmbloom|Flb)/(6|8|10|12|16|20)000/'
flags=(--benchmark_out_format=json)
if ((batches)); then
  speed='^BM_(QueryAbsentBatch_(Lsmbloom|Flb)/(1000000|10000000)/(8|32|128)'
  speed+='|RandomLines/(1000000|10000000)/(32|128))$'
  export LSMBLOOM_BENCH_MAX_KEYS=10000000
fi
if ((quick)); then
  export LSMBLOOM_BENCH_MAX_KEYS=1000000
  flags+=(--benchmark_min_time=0.05)
else
  flags+=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true
          --benchmark_enable_random_interleaving=true)
fi
bazel-bin/bench/filter_bench --benchmark_filter="$speed" \
  --benchmark_out="$out/raw/speed.json" "${flags[@]}"
raw=("$out/raw/speed.json")
if ((!batches)); then
  bazel-bin/bench/filter_bench --benchmark_filter="$accuracy" \
    --benchmark_out="$out/raw/accuracy.json" --benchmark_out_format=json
  raw+=("$out/raw/accuracy.json")
fi
command=tools/bench_vs_flb.sh
((quick)) && command+=" --quick"
((batches)) && command+=" --batches"
/usr/bin/python3 bench/report/make_report.py --out "$out" --command "$command" "${raw[@]}"
echo "bench_vs_flb: report in $out/REPORT.md" >&2
