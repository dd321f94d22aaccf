#!/usr/bin/env bash
# What a consumer's own build gets: builds examples/consumer_bench (a
# separate workspace that uses @lsmbloom as README.md says) by default
# (fastbuild) and with -c opt, runs both, and prints each benchmark's CPU
# time in both builds and their ratio. The library compiles optimised in
# both; only the consumer's code differs.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: tools/consumer_bench.sh [--quick] [--out DIR]
  --quick     --benchmark_min_time=0.05, one round (a smoke run)
  --out DIR   also write DIR/consumer_{fastbuild,opt}.json and DIR/CONSUMER.md
  -h, --help  this text
Default: 5 rounds alternating the two binaries (taskset -c 1 when there is
more than one CPU), medians of CPU time.
USAGE
}

quick=0
out=
while (($# > 0)); do
  case "$1" in
    --quick) quick=1; shift ;;
    --out) (($# >= 2)) || { usage >&2; exit 2; }; out=$2; shift 2 ;;
    --out=*) out=${1#--out=}; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "consumer_bench: unknown argument: $1" >&2; usage >&2; exit 2 ;;
  esac
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ -n $out ]]; then
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
fi
cd "$root/examples/consumer_bench"
bazel build //:consumer_bench >&2
bazel build -c opt //:consumer_bench >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pin=()
(($(nproc) > 1)) && command -v taskset >/dev/null && pin=(taskset -c 1)

rounds=5
flags=(--benchmark_min_time=0.2)
if ((quick)); then
  rounds=1
  flags=(--benchmark_min_time=0.05)
fi
for ((r = 1; r <= rounds; r++)); do
  for mode in fastbuild opt; do
    "${pin[@]}" "bazel-out/k8-$mode/bin/consumer_bench" "${flags[@]}" \
      --benchmark_format=json >"$work/$mode.$r.json"
  done
done

/usr/bin/python3 - "$work" "$rounds" "${out:-}" <<'PY'
import json, os, shutil, statistics, subprocess, sys

work, rounds, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def medians(mode):
    times = {}
    for r in range(1, rounds + 1):
        for b in json.load(open(f"{work}/{mode}.{r}.json"))["benchmarks"]:
            if b.get("error_occurred"):
                sys.exit(f"consumer_bench: {b['name']}: {b.get('error_message')}")
            times.setdefault(b["name"], []).append(b["cpu_time"])
    return {name: statistics.median(t) for name, t in times.items()}
fast, opt = medians("fastbuild"), medians("opt")
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
lines = [f"Consumer build, CPU time per Get (ns), medians of {rounds}; {cpu}", "",
         "| benchmark | fastbuild | -c opt | fastbuild / opt |", "|---|---:|---:|---:|"]
for name in fast:
    lines.append(f"| {name} | {fast[name]:.1f} | {opt[name]:.1f} | {fast[name] / opt[name]:.2f} |")
text = "\n".join(lines) + "\n"
print(text, end="")
if out:
    for mode in ("fastbuild", "opt"):
        shutil.copy(f"{work}/{mode}.1.json", f"{out}/consumer_{mode}.json")
    open(f"{out}/CONSUMER.md", "w").write(text)
PY
