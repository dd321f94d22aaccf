#!/usr/bin/env bash
# The main job: installs what is missing, builds optimised, runs the demo.
# Flags are passed to the demo (tools/demo.sh --help lists them).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
bazel build //tools:demo >&2
for arg in "$@"; do
  case "$arg" in
    -h|-help|--help|-helpfull|--helpfull)
      # Abseil ends its flag help with status 1; asking for help is no error.
      status=0
      bazel-bin/tools/demo --help || status=$?
      exit $((status == 1 ? 0 : status))
      ;;
  esac
done
exec bazel-bin/tools/demo "$@"
