#!/usr/bin/env bash
# Runs kv_bench (kvstore, RocksDB, LevelDB) and writes the results, the
# machine and the command, and a plot, into bench/report/kvstore/ of the
# repository.
#
#   examples/kvstore/bench/run.sh [--num=N] [other kv_bench flags]
#
# Environment: OUTPUT_BASE (Bazel output base, default Bazel's own),
# CPU (the core to pin the benchmark to with taskset, default 1),
# DB (where the stores go, default /tmp/kv_bench), REPS (runs, default 3:
# on a shared machine one run can be slowed by a neighbour; the engines
# take turns going first and the summary gives each number's median).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
workspace=$(dirname "$here")
repo=$(cd "$workspace/../.." && pwd)
report="$repo/bench/report/kvstore"
mkdir -p "$report"

num=1000000
for arg in "$@"; do
  case "$arg" in --num=*) num=${arg#--num=} ;; esac
done

startup=()
[[ -n ${OUTPUT_BASE:-} ]] && startup=(--output_base="$OUTPUT_BASE")
# Optimised: the store's own code too (lsmbloom's is in every mode), as the
# peers' Debian libraries are.
(cd "$workspace" && bazel "${startup[@]}" build -c opt --jobs=1 //bench:kv_bench >&2)
bin=$(cd "$workspace" && bazel "${startup[@]}" info -c opt bazel-bin 2>/dev/null)/bench/kv_bench

csv="$report/results_$num.csv"
orders=(kvstore,rocksdb,leveldb rocksdb,leveldb,kvstore leveldb,kvstore,rocksdb)
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo "run,engine,workload,num,value_size,ops,seconds,ops_per_sec,found" >"$csv"
for ((rep = 0; rep < ${REPS:-3}; rep++)); do
  cmd=(taskset -c "${CPU:-1}" "$bin" --db="${DB:-/tmp/kv_bench}" --out="$tmp"
       --engines="${orders[rep % 3]}" "$@")
  echo "== ${cmd[*]}" >&2
  "${cmd[@]}" >&2
  tail -n +2 "$tmp" | sed "s/^/$rep,/" >>"$csv"
done

{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, pinned to core ${CPU:-1}"
  echo "memory: $(free -g | awk '/^Mem:/ {print $2}') GiB"
  echo "rocksdb: $(dpkg-query -W -f '${Version}' librocksdb-dev 2>/dev/null || echo unknown)"
  echo "leveldb: $(dpkg-query -W -f '${Version}' libleveldb-dev 2>/dev/null || echo unknown)"
  echo "command: REPS=${REPS:-3} CPU=${CPU:-1} examples/kvstore/bench/run.sh $*"
} >"$report/env_$num.txt"

# Debian's matplotlib (python3-matplotlib) lives in the system Python.
/usr/bin/python3 "$here/plot.py" "$csv" "$report/results_$num.png" "$report/summary_$num.md"
echo "wrote $csv, $report/env_$num.txt, $report/summary_$num.md and $report/results_$num.png" >&2
