#!/usr/bin/env bash
# Starts upstream's kube-scheduler (the one `make controlplane` built, or $KUBE_SCHEDULER) against
# an API server, with a given KubeSchedulerConfiguration, for side-by-side comparisons with
# `schedhost serve`. It runs in the foreground (exec): start it in the background and stop it by
# its PID.
#
#   start-kube-scheduler.sh --kubeconfig K --config C [--port P] [--workdir D] [-- extra flags]
#
# The configuration may be v1 or v1beta3 (rewritten to v1: v1.35 serves no v1beta3). Unless it
# sets clientConnection itself, the kubeconfig K is used with qps/burst 5000 (scheduler_perf's),
# and leader election is off. The secure port P (default: a free one) serves /healthz and
# /metrics on 127.0.0.1; delegated authentication and authorization use K too.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
kubeconfig="" config="" port="" workdir=""
while (($#)); do
  case "$1" in
    --kubeconfig) kubeconfig="$2"; shift 2 ;;
    --config) config="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --workdir) workdir="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "start-kube-scheduler: unknown argument $1 (see the usage at the top of $0)" >&2; exit 2 ;;
  esac
done
[[ -n "$kubeconfig" && -n "$config" ]] || {
  echo "start-kube-scheduler: --kubeconfig and --config are required" >&2; exit 2; }
[[ -r "$config" ]] || { echo "start-kube-scheduler: $config: cannot read the configuration" >&2; exit 2; }

binary="${KUBE_SCHEDULER:-}"
if [[ -z "$binary" ]]; then
  for candidate in "${SCHEDHOST_CONTROLPLANE_DIR:-$here/../../build/controlplane}/bin/kube-scheduler" \
                   "${KUBEBUILDER_ASSETS:-/nonexistent}/kube-scheduler" \
                   "$here/../../../shared/k8s/bin/kube-scheduler" "$(command -v kube-scheduler || true)"; do
    if [[ -n "$candidate" && -x "$candidate" ]]; then binary="$candidate"; break; fi
  done
fi
[[ -n "$binary" ]] || {
  echo "start-kube-scheduler: no kube-scheduler: run make controlplane, or set KUBE_SCHEDULER" >&2; exit 2; }

workdir="${workdir:-$(mktemp -d)}"
mkdir -p "$workdir"
effective="$workdir/kube-scheduler-config.yaml"
sed 's#kubescheduler.config.k8s.io/v1beta3#kubescheduler.config.k8s.io/v1#' "$config" >"$effective"
if ! grep -q '^clientConnection:' "$effective"; then
  printf '\nclientConnection:\n  kubeconfig: %s\n  qps: 5000\n  burst: 5000\n' "$kubeconfig" >>"$effective"
fi
if ! grep -q '^leaderElection:' "$effective"; then
  printf 'leaderElection:\n  leaderElect: false\n' >>"$effective"
fi
if [[ -z "$port" ]]; then
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 10259)"
fi
exec "$binary" --config "$effective" --bind-address 127.0.0.1 --secure-port "$port" \
  --cert-dir "$workdir/certs" \
  --authentication-kubeconfig "$kubeconfig" --authorization-kubeconfig "$kubeconfig" "$@"
