#!/usr/bin/env bash
# Installs what lsmbloom needs from Debian 12's packages, if it is missing.
# Idempotent: a second run installs nothing and takes a second.
set -euo pipefail

if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then
  echo "usage: tools/setup.sh   (installs the Debian packages lsmbloom needs; run as root)"
  exit 0
fi

packages=(
  bazel-bootstrap g++ python3 python3-matplotlib
  libabsl-dev libhwy-dev libxxhash-dev libgtest-dev libgmock-dev libbenchmark-dev
  libleveldb-dev librocksdb-dev libzstd-dev libsnappy-dev nlohmann-json3-dev liburing-dev
  clang libclang-rt-14-dev
  cmake ninja-build pkg-config
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "setup: installing ${missing[*]}" >&2
if [[ $(id -u) -ne 0 ]]; then
  echo "setup: these packages are missing and installing them needs root" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
