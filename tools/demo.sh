#!/usr/bin/env bash
# The main job: installs what is missing, builds optimised, runs the demo.
# Flags are passed to the demo (tools/demo.sh --help lists them).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
bazel build //tools:demo >&2
exec bazel-bin/tools/demo "$@"
