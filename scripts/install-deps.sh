#!/usr/bin/env bash
# Installs the Debian packages schedhost needs to build and test, when any is missing.
# As root it runs `apt-get update` once and `apt-get install -y`; as anyone else it prints the
# exact command to run and fails, so a build never half-works for want of a package.
set -euo pipefail

packages=(
  g++ make cmake ninja-build pkg-config   # compiler, build
  binutils file                           # nm/readelf for the symbol tests
  libboost-dev libboost-filesystem-dev    # Boost.DLL (header-only on top of Boost.Filesystem)
  libyaml-cpp-dev nlohmann-json3-dev      # profile / cluster parsing, JSON args and output
  libyaml-dev                             # the fast cluster-file parser
  libsimdjson-dev                         # serve's informers parse the API server's JSON with it
  libjemalloc-dev                         # bin/schedhost's allocator (SCHEDHOST_ALLOCATOR)
  libspdlog-dev libcli11-dev              # logging, command-line flags
  libgtest-dev libgmock-dev               # tests
  libbenchmark-dev                        # make bench
  libcurl4-openssl-dev libssl-dev         # the Kubernetes API client (TLS, base64)
  libcpp-httplib-dev prometheus-cpp-dev   # serve's secure port: HTTPS, /metrics
  python3-prometheus-client               # the metrics test parses /metrics with it
  chromium                                # run -o html: the page test renders it headless
  openssl etcd-server                     # the live tests: certificates made at test time, and
                                          # etcd when the project's own is not built (make controlplane)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# Go builds the live tests' control plane (make controlplane, tests/controlplane/). It is not a
# Debian package here: Debian's golang-go (1.19) is older than Kubernetes v1.35's go.mod needs.
check_go() {
  local need have
  need="$(awk '$1 == "go" {print $2; exit}' "$(dirname "$0")/../tests/controlplane/kubernetes/go.mod")"
  if ! have="$(PATH="$PATH:/usr/local/go/bin" go env GOVERSION 2>/dev/null)"; then
    echo "install-deps: note: no Go; make controlplane needs Go $need or newer (from https://go.dev/dl," \
         "into /usr/local/go); without it the live tests use KUBEBUILDER_ASSETS or skip" >&2
    return 0
  fi
  have="${have#go}"
  if [[ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" != "$need" ]]; then
    echo "install-deps: note: Go $have is older than the $need make controlplane needs:" \
         "install a newer one from https://go.dev/dl" >&2
  fi
}
check_go

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
