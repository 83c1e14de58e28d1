#!/usr/bin/env bash
# make controlplane: builds the pinned Kubernetes control plane (kube-apiserver, kube-scheduler,
# kubectl from k8s.io/kubernetes, and etcd from go.etcd.io/etcd) from the Go module proxy into
# OUT/<versions>/bin, and points OUT/bin at it. The Go build and module caches are Go's own
# (outside the clone), so a second build on the same machine takes seconds.
#
# Without a Go new enough, or without the module proxy, it prints why in one line and exits 0:
# the live tests then look for binaries elsewhere (KUBEBUILDER_ASSETS, ../shared/k8s/bin, PATH).
# With SCHEDHOST_REQUIRE_APISERVER=1 (CI) that is a failure instead.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: build.sh OUT_DIR}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

skip() {
  echo "controlplane: not built: $*" >&2
  if [[ "${SCHEDHOST_REQUIRE_APISERVER:-}" == 1 ]]; then
    echo "controlplane: SCHEDHOST_REQUIRE_APISERVER=1, so this is an error" >&2
    exit 1
  fi
  exit 0
}

pinned() {  # the version go.mod requires of module $2, in folder $1
  awk -v m="$2" '$1 == m && $2 ~ /^v/ {print $2; exit} $1 == "require" && $2 == m {print $3; exit}' \
    "$here/$1/go.mod"
}
k8s_version="$(pinned kubernetes k8s.io/kubernetes)"
etcd_version="$(pinned etcd go.etcd.io/etcd/server/v3)"
need_go="$(awk '$1 == "go" {print $2; exit}' "$here/kubernetes/go.mod")"

export PATH="$PATH:/usr/local/go/bin"
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly
if ! command -v go >/dev/null 2>&1; then
  skip "no Go toolchain on PATH; Kubernetes $k8s_version needs Go $need_go or newer (Debian's golang-go is 1.19): install it from https://go.dev/dl, or see README 'The control plane for the live tests'"
fi
have_go="$(go env GOVERSION | sed 's/^go//')"
if [[ "$(printf '%s\n%s\n' "$need_go" "$have_go" | sort -V | head -1)" != "$need_go" ]]; then
  skip "Go $have_go is too old; Kubernetes $k8s_version needs Go $need_go or newer: install a newer Go from https://go.dev/dl"
fi

dest="$out/kubernetes-$k8s_version-etcd-$etcd_version"
stamp="$dest/.inputs"
inputs="$(cd "$here" && cat build.sh */go.mod */go.sum $(find . -name '*.go' | sort) | sha256sum | cut -d' ' -f1)-$have_go"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$inputs" && -x "$dest/bin/kube-apiserver" ]]; then
  ln -sfn "$dest/bin" "$out/bin"
  echo "controlplane: up to date: Kubernetes $k8s_version, etcd $etcd_version in $dest/bin"
  exit 0
fi

# Fetch first, so a missing module proxy is told apart from a build failure.
for module in kubernetes etcd; do
  if ! log="$(cd "$here/$module" && go mod download 2>&1)"; then
    skip "the Go module proxy ($(go env GOPROXY)) did not serve the pinned modules: $(echo "$log" | grep -m1 -E 'error|dial|refused|timeout|404' || echo "$log" | tail -1)"
  fi
done

echo "controlplane: building Kubernetes $k8s_version (kube-apiserver, kube-scheduler, kubectl) and etcd $etcd_version with Go $have_go"
start=$(date +%s)
mkdir -p "$dest/bin"
minor="$(echo "$k8s_version" | cut -d. -f2)"
version_flags=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  version_flags+=" -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  version_flags+=" -X $pkg.gitTreeState=clean"
done
(cd "$here/kubernetes" && go build -trimpath -ldflags "-s -w$version_flags" -o "$dest/bin/" \
  ./cmd/kube-apiserver ./cmd/kube-scheduler ./cmd/kubectl)
(cd "$here/etcd" && go build -trimpath -ldflags "-s -w" -o "$dest/bin/" ./cmd/etcd)
echo "$inputs" >"$stamp"
ln -sfn "$dest/bin" "$out/bin"
echo "controlplane: built in $(($(date +%s) - start)) s: $dest/bin"
