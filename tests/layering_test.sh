#!/usr/bin/env bash
# Checks the #include lines of every layer against the layer order
# (README.md, "Layers"):
#
#   util <- io, filter <- table <- lookup, inspect
#
# A file of a layer may include the headers of its own layer and of the
# layers it sits on, nothing above or beside them; a public header
# (include/lsmbloom/) may include no internal one (src/); library code may
# include nothing of tests/, tools/ or bench/. Bazel's visibility already
# stops a BUILD file from depending upward; this catches the #include that
# would need such a dependency, with the file and line named.
#
# Usage: layering_test.sh [ROOT]  (default: the test's runfiles, else ".")
set -euo pipefail

root=${1:-}
if [[ -z $root ]]; then
  if [[ -n ${TEST_SRCDIR:-} ]]; then
    root=$TEST_SRCDIR/${TEST_WORKSPACE:-lsmbloom}
  else
    root=.
  fi
fi
cd "$root"

# The layers each layer may include, itself included.
declare -A allowed=(
  [util]="util"
  [io]="io util"
  [filter]="filter util"
  [table]="table filter io util"
  [lookup]="lookup table filter io util"
  [inspect]="inspect table filter io util"
)

# layer_of_file PATH: the layer a source or header belongs to.
layer_of_file() {
  case $1 in
    include/lsmbloom/*/*) local rest=${1#include/lsmbloom/}; echo "${rest%%/*}" ;;
    src/*/*) local rest=${1#src/}; echo "${rest%%/*}" ;;
    *) echo "" ;;
  esac
}

# layer_of_include TARGET: the layer an #include "TARGET" names, "-" for
# code outside the library, "" for anything else (absl, hwy, ...).
layer_of_include() {
  case $1 in
    lsmbloom/*/*) local rest=${1#lsmbloom/}; echo "${rest%%/*}" ;;
    src/*/*) local rest=${1#src/}; echo "${rest%%/*}" ;;
    tests/* | tools/* | bench/* | examples/*) echo "-" ;;
    *) echo "" ;;
  esac
}

files=$(find -L include/lsmbloom src -type f \( -name '*.h' -o -name '*.cc' -o -name '*.inc' \) | sort)
[[ -n $files ]] || { echo "no sources found under $PWD" >&2; exit 1; }

checked=0
violations=0
for file in $files; do
  layer=$(layer_of_file "$file")
  if [[ -z $layer || -z ${allowed[$layer]+x} ]]; then
    echo "$file: in no known layer (add it to tests/layering_test.sh)"
    violations=$((violations + 1))
    continue
  fi
  checked=$((checked + 1))
  while IFS=: read -r line target; do
    target=${target#*\"}
    target=${target%%\"*}
    to=$(layer_of_include "$target")
    [[ -z $to ]] && continue
    if [[ $to == - ]]; then
      echo "$file:$line: library code includes $target"
      violations=$((violations + 1))
    elif [[ " ${allowed[$layer]} " != *" $to "* ]]; then
      echo "$file:$line: the $layer layer includes $target, of the $to layer above or beside it"
      violations=$((violations + 1))
    elif [[ $file == include/* && $target == src/* ]]; then
      echo "$file:$line: a public header includes the internal $target"
      violations=$((violations + 1))
    fi
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" || true)
done

if ((violations > 0)); then
  echo "FAIL: $violations include(s) against the layer order, in $checked files"
  exit 1
fi
echo "PASS: $checked files include only their own layer and the layers below it"
