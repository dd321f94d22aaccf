#!/usr/bin/env bash
# The core API carries no filter internals and no intrinsics: a file that
# includes only the core headers, every header a store needs
# (filter/filter_kind.h, filter_policy.h, ribbon_policy.h, io/file.h,
# table/options.h, table/table.h, table/table_builder.h,
# table/block_cache.h, lookup/lookup.h, lookup/filter_budget.h) must not
# pull in <immintrin.h> (or any x86 intrinsics header), Highway, nor any
# filter kind's own headers (blocked_bloom.h, ribbon.h, their layouts and
# the -inl.h fast tier; the kinds' options headers, plain values, are
# core).
#
# How: the preprocessor's dependency list (g++ -M) of such a file.
# Usage: core_headers_test.sh [ROOT]  (default: the test's runfiles)
# Compiler: $CXX, else g++.
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
cxx=${CXX:-g++}
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/core.XXXXXX")
trap 'rm -rf "$work"' EXIT

core=(
  lsmbloom/filter/filter_kind.h
  lsmbloom/filter/filter_policy.h
  lsmbloom/filter/ribbon_policy.h
  lsmbloom/io/file.h
  lsmbloom/table/options.h
  lsmbloom/table/table.h
  lsmbloom/table/table_builder.h
  lsmbloom/table/block_cache.h
  lsmbloom/lookup/lookup.h
  lsmbloom/lookup/filter_budget.h
)
for h in "${core[@]}"; do echo "#include \"$h\""; done >"$work/core.cc"
"$cxx" -std=c++17 -M -Iinclude "$work/core.cc" | tr ' \\' '\n\n' | sed '/^$/d' >"$work/deps"

forbidden='(^|/)(immintrin|x86intrin|[a-z0-9]*mmintrin|emmintrin|arm_neon)\.h$|/hwy/|lsmbloom/filter/(blocked_bloom|ribbon)(\.h|-inl\.h|_layout\.h|_x86\.h)$|lsmbloom/filter/key_hash-inl\.h$|(^|/)src/(filter|table|lookup|io|util)/'
if grep -E "$forbidden" "$work/deps" >"$work/bad"; then
  echo "FAIL: the core headers include:"
  sed 's/^/  /' "$work/bad"
  # Who includes them, for the fix: the chain of the first one.
  "$cxx" -std=c++17 -H -fsyntax-only -Iinclude "$work/core.cc" 2>&1 >/dev/null |
    grep -E "^\.+ .*($(head -1 "$work/bad" | sed 's#.*/##; s#\.#\\.#g')|lsmbloom)" | head -20 | sed 's/^/  /'
  exit 1
fi
echo "ok: the core headers include $(grep -c . "$work/deps") files, none of them intrinsics or filter internals"
