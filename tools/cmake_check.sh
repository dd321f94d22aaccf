#!/usr/bin/env bash
# The CMake stage of CI (tools/test.sh --with-sanitizers runs it): builds
# lsmbloom with CMake and uses it the three ways docs/CMAKE.md describes.
# Each step below passes or fails as a whole:
#
#   cmake build       configure (tests and tools on) and build, Ninja, -j2
#   ctest             the GoogleTest suites CMakeLists.txt registers
#   cmake install     into a temporary prefix; the expected files are there
#   find_package      examples/cmake_consumer, copied out of the checkout,
#                     configured with only CMAKE_PREFIX_PATH; builds and
#                     runs the README's example (examples/quickstart)
#   add_subdirectory  the same consumer with lsmbloom's source tree inside
#                     its build, no CMAKE_BUILD_TYPE: the library still
#                     compiles with -O2, C++17, HWY_COMPILE_ALL_ATTAINABLE
#   pkg-config        g++ with `pkg-config --cflags --libs lsmbloom` compiles,
#                     links and runs the same example
#
# Usage: tools/cmake_check.sh [--tally FILE] [--failures FILE] [--work DIR]
#   --tally FILE     append "1 0" (passed) or "0 1" (failed) per step
#   --failures FILE  append one line naming each failed step
#   --work DIR       build there (kept, and reused incrementally by a second
#                    run) instead of a temporary directory removed at the end
# Without --tally it prints "N passed, N failed" itself. Exits non-zero if a
# step failed. Output of a step is shown only when it fails.
set -uo pipefail

tally_out="" failures_out="" work=""
while (($#)); do
  case "$1" in
    --tally) tally_out=$2; shift 2 ;;
    --failures) failures_out=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "cmake_check: unknown argument $1" >&2; exit 2 ;;
  esac
done

cd "$(dirname "$0")/.."
root=$PWD
keep=1
if [[ -z $work ]]; then
  work=$(mktemp -d /tmp/lsmbloom-cmake-check.XXXXXX)
  keep=0
fi
mkdir -p "$work"
work=$(cd "$work" && pwd)
build=$work/build prefix=$work/prefix
log=$work/step.log
passed=0 failed=0
status=0
jobs=(-j2)
generator=(-G Ninja)

tally() {  # tally PASSED(0|1) NAME
  if (($1)); then
    passed=$((passed + 1))
    [[ -n $tally_out ]] && echo "1 0" >>"$tally_out"
  else
    failed=$((failed + 1))
    status=1
    [[ -n $tally_out ]] && echo "0 1" >>"$tally_out"
    if [[ -n $failures_out ]]; then
      local why
      # CTest lists its failed tests at the end; other steps, their first error.
      why=$(sed -n '/The following tests FAILED/,$s/^[[:space:]]*[0-9]* - \([^ ]*\).*/\1/p' "$log" | tr '\n' ' ')
      [[ -n $why ]] && why="tests $why"
      [[ -n $why ]] || why=$(grep -m1 -E '^cmake_check: ' "$log" | sed 's/^cmake_check: //')
      [[ -n $why ]] || why=$(grep -m1 -E '(^|[^a-z_])error:|CMake Error|^FAILED: |WRONG' "$log")
      [[ -n $why ]] || why=$(tail -n 1 "$log")
      echo "cmake stage: $2 failed: $why" >>"$failures_out"
    fi
  fi
}

# step NAME FUNCTION: runs FUNCTION with its output in $log, timed.
step() {
  local name=$1 fn=$2 start=$SECONDS
  echo "== cmake stage: $name" >&2
  if "$fn" >"$log" 2>&1; then
    echo "   ok ($((SECONDS - start)) s)" >&2
    tally 1 "$name"
  else
    tail -n 40 "$log" >&2
    echo "   FAILED ($((SECONDS - start)) s): $name; full output above (last 40 lines)" >&2
    tally 0 "$name"
  fi
}

# run PROGRAM: runs it, saying so if it fails.
run() {
  "$1" && return 0
  local rc=$?
  echo "cmake_check: $1 exited with status $rc"
  return 1
}

cmake_build() {
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DLSMBLOOM_BUILD_TESTS=ON -DLSMBLOOM_BUILD_TOOLS=ON -DCMAKE_INSTALL_PREFIX="$prefix" &&
    cmake --build "$build" "${jobs[@]}"
}

run_ctest() {
  (cd "$build" && ctest --output-on-failure "${jobs[@]}" --timeout 600)
}

cmake_install() {
  rm -rf "$prefix"
  cmake --install "$build" || return 1
  local missing=0 f
  for f in include/lsmbloom/lookup/lookup.h include/lsmbloom/filter/blocked_bloom.h \
      lib/liblsmbloom.a lib/cmake/lsmbloom/lsmbloomConfig.cmake \
      lib/cmake/lsmbloom/lsmbloomConfigVersion.cmake lib/cmake/lsmbloom/lsmbloomTargets.cmake \
      lib/cmake/lsmbloom/FindxxHash.cmake lib/pkgconfig/lsmbloom.pc; do
    [[ -e $prefix/$f ]] || { echo "cmake_check: not installed: $prefix/$f"; missing=1; }
  done
  if find "$prefix/include" -path '*/src/*' | grep .; then
    echo "cmake_check: internal headers installed (above)"
    missing=1
  fi
  return $missing
}

# A fresh project outside the checkout: the consumer and the example only.
consumer_find_package() {
  local src=$work/fresh
  rm -rf "$src"
  mkdir -p "$src/examples/cmake_consumer" "$src/examples/quickstart"
  cp examples/cmake_consumer/CMakeLists.txt "$src/examples/cmake_consumer/"
  cp examples/quickstart/quickstart.cc "$src/examples/quickstart/"
  cmake -S "$src/examples/cmake_consumer" -B "$work/consumer" "${generator[@]}" \
    -DCMAKE_PREFIX_PATH="$prefix" &&
    { grep -q "^lsmbloom_DIR:PATH=$prefix/lib/cmake/lsmbloom\$" "$work/consumer/CMakeCache.txt" ||
      { echo "cmake_check: the consumer did not find lsmbloom in $prefix"; false; }; } &&
    cmake --build "$work/consumer" "${jobs[@]}" &&
    run "$work/consumer/quickstart"
}

# The library's compile commands in a build with no CMAKE_BUILD_TYPE must
# carry what Bazel's do (copts.bzl, third_party/system_libs.BUILD).
consumer_add_subdirectory() {
  local dir=$work/consumer-sub
  cmake -S examples/cmake_consumer -B "$dir" "${generator[@]}" -DLSMBLOOM_FROM_SOURCE=ON &&
    cmake --build "$dir" "${jobs[@]}" &&
    run "$dir/quickstart" || return 1
  local commands bad=0
  commands=$(cd "$dir" && ninja -t commands quickstart | grep -- '-c .*/src/.*\.cc$')
  if [[ -z $commands ]]; then
    echo "cmake_check: no compile command of the library found"
    return 1
  fi
  local flag
  for flag in -O2 -std=c++17 -DHWY_COMPILE_ALL_ATTAINABLE; do
    if grep -v -q -- "$flag" <<<"$commands"; then
      echo "cmake_check: a library source compiles without $flag"
      bad=1
    fi
  done
  if grep -q -- '-march' <<<"$commands"; then
    echo "cmake_check: a library source compiles with -march"
    bad=1
  fi
  return $bad
}

pkg_config_link() {
  local flags
  flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs lsmbloom) || return 1
  echo "pkg-config --cflags --libs lsmbloom: $flags"
  # shellcheck disable=SC2086  # flags are words.
  g++ -std=c++17 -o "$work/quickstart-pc" examples/quickstart/quickstart.cc $flags &&
    run "$work/quickstart-pc"
}

start=$SECONDS
step "cmake build" cmake_build
if ((failed == 0)); then
  step "ctest" run_ctest
  step "cmake install" cmake_install
  step "find_package consumer" consumer_find_package
  step "pkg-config consumer" pkg_config_link
else
  # Nothing to test, install or consume: name each step that did not run.
  for name in ctest "cmake install" "find_package consumer" "pkg-config consumer"; do
    echo "cmake_check: not run, the cmake build failed" >"$log"
    tally 0 "$name"
  done
fi
step "add_subdirectory consumer" consumer_add_subdirectory
echo "== cmake stage: $passed passed, $failed failed in $((SECONDS - start)) s" >&2

((keep)) || rm -rf "$work"
if [[ -z $tally_out ]]; then
  echo "$passed passed, $failed failed"
fi
exit $status
