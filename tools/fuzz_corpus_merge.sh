#!/usr/bin/env bash
# Merges the inputs a fuzz run found into a target's checked-in corpus,
# tests/fuzz/corpus/<target>/, keeping only those that cover code the
# corpus does not (libFuzzer's -merge=1 with -use_counters=0: new edges,
# not new hit counts of known ones, which would keep several times more
# files). Kept files are named by their SHA-1. Commit
# what it adds: //tests/fuzz:<target>_corpus_test then replays it in every
# build, and the next fuzz run starts from it.
#
# Usage: tools/fuzz_corpus_merge.sh [options] TARGET NEW_DIR...
#   TARGET            a fuzz_target of tests/fuzz/BUILD (filter_reader, table,
#                     roundtrip, ribbon_reader, ribbon_builder, modular_reader)
#   NEW_DIR...        directories of inputs from a fuzz run (e.g. the first
#                     corpus directory a libFuzzer run was given; files named
#                     crash-*, timeout-*, oom-*, leak-*, slow-unit-* are
#                     skipped: they belong in a commit with their fix)
#   --fuzzer BINARY   the target's libFuzzer binary; without it, it is built
#                     with `bazel build --config=fuzz` in the output base
#                     tools/test.sh's fuzz stage uses (or --output-base DIR)
#   --max-bytes N     skip inputs larger than N bytes (default 8192): the
#                     corpus is checked in
#   --all-features    keep inputs with new hit counts too (libFuzzer's
#                     default features): a fuller corpus for local fuzzing
#   --dry-run         merge into a scratch copy and report what would be added
# Prints the files added. Exits non-zero if the build or the merge fails.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

fuzzer="" output_base="" max_bytes=8192 dry_run=0 features=-use_counters=0
args=()
while (($#)); do
  case "$1" in
    -h | --help) usage; exit 0 ;;
    --fuzzer) fuzzer=$2; shift 2 ;;
    --output-base) output_base=$2; shift 2 ;;
    --max-bytes) max_bytes=$2; shift 2 ;;
    --all-features) features=-use_counters=1; shift ;;
    --dry-run) dry_run=1; shift ;;
    -*) echo "fuzz_corpus_merge: unknown option $1 (--help)" >&2; exit 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
if ((${#args[@]} < 2)); then
  usage >&2
  exit 2
fi
target=${args[0]}
new_dirs=("${args[@]:1}")

cd "$(dirname "$0")/.."
root=$PWD
corpus=$root/tests/fuzz/corpus/$target
if ! grep -qE "fuzz_target\(\s*name = \"$target\"|^\s*name = \"$target\",\s*$" tests/fuzz/BUILD ||
    [[ ! -d $corpus ]]; then
  echo "fuzz_corpus_merge: '$target' is not a fuzz target with a corpus in tests/fuzz/corpus/" >&2
  exit 2
fi
for d in "${new_dirs[@]}"; do
  [[ -d $d ]] || { echo "fuzz_corpus_merge: $d is not a directory" >&2; exit 2; }
done

if [[ -z $fuzzer ]]; then
  if [[ -z $output_base ]]; then
    # tools/test.sh's fuzz stage's output base, so its build is reused.
    output_base=${XDG_CACHE_HOME:-$HOME/.cache}/bazel-$(printf %s "$root" | md5sum | cut -c1-12)/lsmbloom-fuzz
  fi
  bazel --output_base="$output_base" build --config=fuzz --symlink_prefix=/ \
    "//tests/fuzz:${target}_fuzzer" >&2
  fuzzer=$(bazel --output_base="$output_base" info --config=fuzz bazel-bin 2>/dev/null)/tests/fuzz/${target}_fuzzer
fi
[[ -x $fuzzer ]] || { echo "fuzz_corpus_merge: no fuzzer binary at $fuzzer" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Candidates: regular files no larger than --max-bytes, artifacts left out.
mkdir "$work/new"
n=0
for d in "${new_dirs[@]}"; do
  while IFS= read -r -d '' f; do
    case "$(basename "$f")" in crash-* | timeout-* | oom-* | leak-* | slow-unit-*) continue ;; esac
    (($(stat -c %s "$f") <= max_bytes)) || continue
    n=$((n + 1))
    cp "$f" "$work/new/$n"
  done < <(find "$d" -maxdepth 1 -type f -print0)
done

into=$corpus
if ((dry_run)); then
  into=$work/corpus
  cp -r "$corpus" "$into"
fi
ls -1 "$into" | sort >"$work/before"
echo "merging $n candidate inputs into tests/fuzz/corpus/$target ($(wc -l <"$work/before") files)" >&2
# -max_len: read whole inputs (the default would cut those over 4096 bytes).
if ! "$fuzzer" -merge=1 "$features" -max_len="$max_bytes" -merge_control_file="$work/control" \
    -artifact_prefix="$work/" "$into" "$work/new" >"$work/log" 2>&1; then
  tail -n 30 "$work/log" >&2
  echo "fuzz_corpus_merge: the merge failed (an input crashes the target? see above)" >&2
  exit 1
fi
ls -1 "$into" | sort >"$work/after"
added=$(comm -13 "$work/before" "$work/after")
if [[ -z $added ]]; then
  echo "no input adds coverage; tests/fuzz/corpus/$target is unchanged" >&2
  exit 0
fi
echo "$(wc -l <<<"$added") inputs add coverage$( ((dry_run)) && echo " (dry run: nothing written)"):" >&2
sed "s#^#  tests/fuzz/corpus/$target/#" <<<"$added"
if ((!dry_run)); then
  echo "commit them: git add tests/fuzz/corpus/$target" >&2
fi
