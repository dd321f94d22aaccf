#!/usr/bin/env bash
# Fails if the CMake build of the library (CMakeLists.txt) and Bazel's
# //:lsmbloom drift apart:
#
#  1. The files under src/ that Bazel compiles or lists for //:lsmbloom
#     (srcs, hdrs and textual_hdrs of every target it depends on, from a
#     genquery) are exactly the files of cmake/lsmbloom_sources.cmake's
#     LSMBLOOM_SOURCES, as CMake itself reads that file (cmake -P). A .cc (or
#     private .h) added to one build and not the other is named.
#  2. CMakeLists.txt builds the library from LSMBLOOM_SOURCES and nothing
#     else (no target_sources(lsmbloom ...), no file(GLOB) of src/).
#  3. The public headers Bazel serves (its //include filegroups) are every
#     header under include/lsmbloom/, which CMake installs as a directory.
#
# Usage: cmake_sources_test.sh GENQUERY_OUTPUT SOURCES_CMAKE CMAKELISTS HEADER...
set -euo pipefail

query=$1 sources_cmake=$2 cmakelists=$3
shift 3
tmp=${TEST_TMPDIR:-$(mktemp -d)}
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# Bazel's label //src/filter:simd.cc is the file src/filter/simd.cc.
label_paths() {
  sed -n 's#^//\([^:]*\):\(.*\)$#\1/\2#p' "$query" | grep -E "$1" | sort -u
}

# ---------------------------------------------------------------- 1. sources

label_paths '^src/.*\.(cc|h|inc)$' >"$tmp/bazel.txt"

if ! command -v cmake >/dev/null; then
  echo "FAIL: cmake is not installed (tools/setup.sh installs it)" >&2
  exit 1
fi
cat >"$tmp/print_sources.cmake" <<'CMAKE'
include("${SOURCES_FILE}")
file(WRITE "${OUT}" "")
foreach(f IN LISTS LSMBLOOM_SOURCES)
  file(APPEND "${OUT}" "${f}\n")
endforeach()
CMAKE
sources_path=$sources_cmake
[[ $sources_path == /* ]] || sources_path=$PWD/$sources_path
cmake -DSOURCES_FILE="$sources_path" -DOUT="$tmp/cmake_raw.txt" -P "$tmp/print_sources.cmake"
sort -u "$tmp/cmake_raw.txt" >"$tmp/cmake.txt"

if [[ ! -s $tmp/bazel.txt ]]; then
  fail "the genquery listed no file under src/ (is $query the right output?)"
fi
if [[ ! -s $tmp/cmake.txt ]]; then
  fail "$sources_cmake set no LSMBLOOM_SOURCES"
fi
while read -r f; do
  fail "$f is in Bazel's //:lsmbloom but not in $sources_cmake (CMake)"
done < <(comm -23 "$tmp/bazel.txt" "$tmp/cmake.txt")
while read -r f; do
  fail "$f is in $sources_cmake (CMake) but not in Bazel's //:lsmbloom (src/*/BUILD)"
done < <(comm -13 "$tmp/bazel.txt" "$tmp/cmake.txt")
if [[ $(sort "$tmp/cmake_raw.txt" | uniq -d) ]]; then
  fail "listed twice in $sources_cmake: $(sort "$tmp/cmake_raw.txt" | uniq -d | tr '\n' ' ')"
fi

# ---------------------------------------------------------------- 2. CMakeLists.txt

grep -qE '^add_library\(lsmbloom \$\{LSMBLOOM_SOURCES\}\)$' "$cmakelists" ||
  fail "$cmakelists does not build the library as add_library(lsmbloom \${LSMBLOOM_SOURCES})"
if grep -nE 'target_sources\(lsmbloom[ )]|GLOB.*src/' "$cmakelists" >&2; then
  fail "$cmakelists adds sources to lsmbloom outside cmake/lsmbloom_sources.cmake (lines above)"
fi
if grep -nE '^[^#]*\bsrc/[A-Za-z_/]+\.(cc|h)\b' "$cmakelists" >&2; then
  fail "$cmakelists names a library source itself (lines above): list it in cmake/lsmbloom_sources.cmake"
fi

# ---------------------------------------------------------------- 3. headers

label_paths '^include/lsmbloom/.*\.h$' >"$tmp/bazel_headers.txt"
printf '%s\n' "$@" | sed -n 's#^.*\(include/lsmbloom/.*\)$#\1#p' | sort -u >"$tmp/all_headers.txt"
if [[ ! -s $tmp/bazel_headers.txt ]]; then
  fail "the genquery listed no public header"
fi
while read -r f; do
  fail "$f is under include/lsmbloom/ (CMake installs it) but no //include filegroup of //:lsmbloom serves it"
done < <(comm -13 "$tmp/bazel_headers.txt" "$tmp/all_headers.txt")

if ((failures)); then
  echo "$failures difference(s) between the Bazel and CMake builds of the library" >&2
  exit 1
fi
echo "CMake and Bazel build the library from the same $(wc -l <"$tmp/cmake.txt") files under src/" \
  "and serve the same $(wc -l <"$tmp/bazel_headers.txt") public headers"
