#!/usr/bin/env bash
# kv_bench runs every workload on every engine and reports what it should
# find: all present keys, no absent ones. $1 is the kv_bench binary.
set -euo pipefail
out="$TEST_TMPDIR/results.csv"
"$1" --num=5000 --memtable_mb=1 --db="$TEST_TMPDIR/db" --out="$out" >/dev/null
for engine in kvstore rocksdb leveldb; do
  for workload in fillseq fillrandom readrandom readmissing readwhilewriting; do
    line=$(grep "^$engine,$workload," "$out") || { echo "no $engine $workload in $out"; exit 1; }
    found=$(cut -d, -f8 <<<"$line")
    case $workload in
      readmissing) want=0 ;;
      *) want=5000 ;;
    esac
    [[ $found == "$want" ]] || { echo "$engine $workload found $found, want $want"; exit 1; }
  done
done
echo "all checks passed"
