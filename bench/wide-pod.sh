#!/usr/bin/env bash
# bench/wide-pod.sh [N] [ROUNDS] [PARALLELISM...]: the start of one wide pod (issue #15, class 8).
# Starts a pod of N containers (`sleep 600`, default 100) once per round for each
# --create-parallelism given (default: 0, the default of two per CPU, and N, unbounded), rounds
# alternated, and prints per run: the time from `run --detach` until `status` shows every
# container running, the most OCI runtime processes (runc, of this root) alive at once (sampled between the polls),
# and the load average after it. As root; needs bin/podspec (go build -o bin/ ./cmd/podspec
# ./cmd/podspec-supervisor) and busybox-static. It never asserts on times; it reports them.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-100}"; rounds="${2:-2}"; shift $(( $# > 2 ? 2 : $# )) || true
pars=("$@"); [ ${#pars[@]} -gt 0 ] || pars=(0 "$n")
work=$(mktemp -d /tmp/podspec-bench-wide.XXXXXX)
root="$work/root"
trap 'bin/podspec --root "$root" rm --force wide >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
bin/podspec image build --busybox "$work/image" >/dev/null
{
  echo "apiVersion: podspec.dev/v1alpha1"; echo "kind: Pod"; echo "metadata: {name: wide}"
  echo "spec:"; echo "  terminationGracePeriodSeconds: 1"; echo "  containers:"
  for i in $(seq 1 "$n"); do echo "  - {name: c$i, image: \"oci:$work/image\", command: [sleep, \"600\"]}"; done
} > "$work/pod.yaml"
# The OCI runtime processes of this root only (other pods on the machine are not counted).
runcs() { pgrep -c -f -- "--root $root/runc" || true; }
printf '| containers | --create-parallelism | all running after | most runc processes at once | load average (1 min) after |\n|---|---|---|---|---|\n'
for r in $(seq 1 "$rounds"); do
  for p in "${pars[@]}"; do
    peak=0
    start=$(date +%s.%N)
    bin/podspec --root "$root" run --detach --create-parallelism "$p" "$work/pod.yaml" >/dev/null
    while :; do
      c=$(runcs); [ "$c" -gt "$peak" ] && peak=$c
      running=$(bin/podspec --root "$root" status wide | grep -o '"running":' | wc -l) || true
      [ "$running" -ge "$n" ] && break
      sleep 0.01
    done
    end=$(date +%s.%N)
    printf '| %d | %s | %.2f s | %d | %s |\n' "$n" "$p" "$(echo "$end - $start" | bc)" "$peak" "$(cut -d' ' -f1 /proc/loadavg)"
    bin/podspec --root "$root" rm --force wide >/dev/null
  done
done
