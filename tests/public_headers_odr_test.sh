#!/usr/bin/env bash
# No inline function of a public header may compile to different code under
# different target flags.
#
# Why: an application may build one file plainly and another with
# -march=x86-64-v4 (or -mavx2). Both emit a weak copy of every inline
# function they use from lsmbloom's headers; the linker keeps one copy and
# every caller runs it. If the copies differ, the plain file's calls may run
# AVX-512 and die with SIGILL on a CPU without it. So a public header's
# inline functions must either compile identically under any flags or have
# names that differ per target (the HWY_NAMESPACE of an -inl.h header).
#
# How: tests/public_headers_odr_probe.cc includes every public header and
# uses their inline functions and types. It is compiled at -O0 (where weak
# copies are emitted and never inlined away) with -fkeep-inline-functions,
# once plainly, once with -mavx2 and once with -march=x86-64-v4. For every
# pair, each weak lsmbloom symbol the two objects both define must have
# identical code (instructions, bytes and relocations) and data.
#
# Usage: public_headers_odr_test.sh [ROOT]  (default: the test's runfiles)
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
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/odr.XXXXXX")
trap 'rm -rf "$work"' EXIT
probe=tests/public_headers_odr_probe.cc

# 1. Every public header is in the probe.
missing=0
for h in $(cd include && find lsmbloom -name '*.h' | sort); do
  if ! grep -q "^#include \"$h\"" "$probe"; then
    echo "FAIL: $probe does not include $h"
    missing=1
  fi
done
[[ $missing == 0 ]] || exit 1

# 2. One object per set of flags.
declare -A flags=([plain]="" [avx2]="-mavx2" [v4]="-march=x86-64-v4")
for name in plain avx2 v4; do
  # shellcheck disable=SC2086  # flags are words
  "$cxx" -std=c++17 -O0 -fkeep-inline-functions -ffunction-sections -fdata-sections \
    ${flags[$name]} -Iinclude -c "$probe" -o "$work/$name.o"
  # Weak lsmbloom definitions (functions, variables, vtables, typeinfo).
  nm --defined-only "$work/$name.o" | awk '$2 ~ /^[WVu]$/ {print $3}' |
    grep -E '^_Z(N|NK|ZN|ZNK|T[VIS]N)8lsmbloom' | sort -u >"$work/$name.syms" || true
  # Section -> contents, one line each, for the sections of those symbols
  # alone: code with relocations, and data.
  objdump -h -w "$work/$name.o" | awk '$2 ~ /^\./ {print $2}' |
    grep -E '^\.[a-z.]+\._Z(N|NK|ZN|ZNK|T[VIS]N)8lsmbloom' >"$work/$name.sections" || true
  text=() data=()
  while read -r section; do
    if [[ $section == .text.* ]]; then text+=(-j "$section"); else data+=(-j "$section"); fi
  done <"$work/$name.sections"
  {
    if ((${#text[@]})); then
      objdump -d -r -z -w "${text[@]}" "$work/$name.o" |
        awk '/^Disassembly of section /{s=$4; sub(/:$/, "", s); next} s != "" && NF {print s "\t" $0}'
    fi
    if ((${#data[@]})); then
      objdump -s "${data[@]}" "$work/$name.o" |
        awk '/^Contents of section /{s=$4; sub(/:$/, "", s); next} s != "" && NF {print s "\t" $0}'
    fi
  } >"$work/$name.dump"
done

# 3. Compare each pair.
status=0
compare() {
  local a=$1 b=$2
  comm -12 "$work/$a.syms" "$work/$b.syms" >"$work/shared"
  local shared
  shared=$(wc -l <"$work/shared")
  awk -F'\t' -v a="$a" -v b="$b" '
    FILENAME == ARGV[1] { want[$1] = 1; next }
    {
      s = $1; sym = s; sub(/^\.[a-z.]*\.(_Z)/, "_Z", sym)
      if (!(sym in want)) next
      body = substr($0, length(s) + 2)
      if (FILENAME == ARGV[2]) A[sym] = A[sym] "\n" body; else B[sym] = B[sym] "\n" body
    }
    END {
      for (sym in want) if (A[sym] != B[sym]) {
        print sym
        if (!shown++) { print "--- " a ":" A[sym] > "/dev/stderr"; print "--- " b ":" B[sym] > "/dev/stderr" }
      }
    }' "$work/shared" "$work/$a.dump" "$work/$b.dump" 2>"$work/first_diff" | sort >"$work/differ"
  if [[ -s $work/differ ]]; then
    echo "FAIL: $a vs $b: $(wc -l <"$work/differ") of $shared shared weak lsmbloom symbols differ:"
    c++filt <"$work/differ" | sed 's/^/  /'
    echo "  The first one's code, both ways:"
    head -60 "$work/first_diff" | sed 's/^/    /'
    status=1
  else
    echo "ok: $a vs $b: $shared shared weak lsmbloom symbols, all identical"
  fi
}
compare plain avx2
compare plain v4
compare avx2 v4
exit $status
