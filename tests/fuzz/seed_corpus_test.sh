#!/usr/bin/env bash
# The checked-in seed corpora are what the seed writers write today: a seed
# written by an older build (a filter of a hash or layout since changed)
# would fuzz a format nobody writes, and its keys might no longer be found.
# usage: seed_corpus_test.sh MAKE_SEEDS MAKE_RIBBON_SEEDS MAKE_MODULAR_SEEDS
set -euo pipefail
make_seeds=$1 make_ribbon_seeds=$2 make_modular_seeds=$3
corpus=tests/fuzz/corpus
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
for target in filter_reader table roundtrip ribbon_reader ribbon_builder modular_reader; do
  mkdir -p "$fresh/$target"
done
"$make_seeds" "$fresh"
"$make_ribbon_seeds" "$fresh"
"$make_modular_seeds" "$fresh/modular_reader"

stale=0 checked=0
while IFS= read -r -d '' file; do
  name=${file#"$fresh/"}
  checked=$((checked + 1))
  if ! cmp -s "$file" "$corpus/$name"; then
    echo "stale seed: $corpus/$name differs from what today's writer makes" >&2
    stale=1
  fi
done < <(find "$fresh" -type f -print0)
echo "$checked seeds checked"
((checked > 30)) || { echo "too few seeds written: $checked" >&2; exit 1; }
if ((stale)); then
  echo "rewrite them: bazel run //tests/fuzz:make_seeds -- \$PWD/tests/fuzz/corpus (and" \
    "make_ribbon_seeds, make_modular_seeds -- \$PWD/tests/fuzz/corpus/modular_reader)" >&2
  exit 1
fi
