#!/usr/bin/env bash
# Installs the Debian packages schedhost needs to build and test, when any is missing.
# As root it runs `apt-get update` once and `apt-get install -y`; as anyone else it prints the
# exact command to run and fails, so a build never half-works for want of a package.
set -euo pipefail

packages=(
  g++ make cmake pkg-config binutils file  # compiler, build, nm/readelf for the symbol tests
  libboost-dev libboost-filesystem-dev    # Boost.DLL (header-only on top of Boost.Filesystem)
  libyaml-cpp-dev nlohmann-json3-dev      # profile / cluster parsing, JSON args and output
  libyaml-dev                             # the fast cluster-file parser
  libspdlog-dev libcli11-dev              # logging, command-line flags
  libgtest-dev libgmock-dev               # tests
  libbenchmark-dev                        # make bench
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

if [[ $(id -u) -ne 0 ]]; then
  echo "error: missing Debian packages: ${missing[*]}" >&2
  echo "fix: run as root: apt-get update && apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
