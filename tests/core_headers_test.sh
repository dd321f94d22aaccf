#!/usr/bin/env bash
# The core API carries no filter internals and no intrinsics: a file that
# includes only the core headers (filter_policy.h, table/options.h,
# table/table.h, table/table_builder.h, lookup/lookup.h) must not pull in
# <immintrin.h> (or any x86 intrinsics header), Highway, nor the blocked
# filter's own headers (blocked_bloom.h, its layout and its -inl.h fast
# tier; blocked_bloom_options.h, plain values, is core).
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
  lsmbloom/filter/filter_policy.h
  lsmbloom/table/options.h
  lsmbloom/table/table.h
  lsmbloom/table/table_builder.h
  lsmbloom/lookup/lookup.h
)
for h in "${core[@]}"; do echo "#include \"$h\""; done >"$work/core.cc"
"$cxx" -std=c++17 -M -Iinclude "$work/core.cc" | tr ' \\' '\n\n' | sed '/^$/d' >"$work/deps"

forbidden='(^|/)(immintrin|x86intrin|[a-z0-9]*mmintrin|emmintrin|arm_neon)\.h$|/hwy/|lsmbloom/filter/blocked_bloom(\.h|-inl\.h|_layout\.h|_x86\.h)$'
if grep -E "$forbidden" "$work/deps" >"$work/bad"; then
  echo "FAIL: the core headers include:"
  sed 's/^/  /' "$work/bad"
  # Who includes them, for the fix: the chain of the first one.
  "$cxx" -std=c++17 -H -fsyntax-only -Iinclude "$work/core.cc" 2>&1 >/dev/null |
    grep -E "^\.+ .*($(head -1 "$work/bad" | sed 's#.*/##; s#\.#\\.#g')|lsmbloom)" | head -20 | sed 's/^/  /'
  exit 1
fi
echo "ok: the core headers include $(grep -c . "$work/deps") files, none of them intrinsics or filter internals"
