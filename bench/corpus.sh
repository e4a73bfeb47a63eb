#!/usr/bin/env bash
# Runs podspec validate beside kubeconform and kubectl-validate over the corpus of real
# Kubernetes manifests (../shared/realworld/corpus): times them side by side and compares their
# verdicts on every pod-carrying document (bench/corpus/main.go; results in docs/benchmarks.md).
# One command from a fresh clone:
#
#   bench/corpus.sh                        # 5 alternating rounds, Kubernetes 1.30 for both
#   RUNS=3 CORPUS=DIR bench/corpus.sh
#
# The peers are installed once into $PEERS_DIR (default ~/.cache/podspec-peers) through the Go
# module proxy (bench/install-peer.sh). kubectl-validate v0.0.4, the one release the proxy
# serves, knows Kubernetes 1.23 to 1.30 offline, so podspec is run with --kubernetes-version
# 1.30 too; KUBE_VERSION changes both.
set -euo pipefail

RUNS=${RUNS:-5}
KUBE_VERSION=${KUBE_VERSION:-1.30}
KUBECONFORM_VERSION=${KUBECONFORM_VERSION:-v0.8.0}
KUBECTL_VALIDATE_VERSION=${KUBECTL_VALIDATE_VERSION:-v0.0.4}
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
CORPUS=${CORPUS:-$repo/../shared/realworld/corpus}
[[ -d "$CORPUS" ]] || CORPUS=/work/shared/realworld/corpus

kc=$(bench/install-peer.sh kubeconform github.com/yannh/kubeconform/cmd/kubeconform "$KUBECONFORM_VERSION")
kv=$(bench/install-peer.sh kubectl-validate sigs.k8s.io/kubectl-validate "$KUBECTL_VALIDATE_VERSION")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/podspec" ./cmd/podspec
go build -o "$work/corpus" ./bench/corpus
echo "podspec $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(go version | cut -d' ' -f3)"
echo "kubeconform $KUBECONFORM_VERSION, kubectl-validate $KUBECTL_VALIDATE_VERSION"
"$work/corpus" -corpus "$CORPUS" -podspec "$work/podspec" -kubeconform "$kc" -kubectl-validate "$kv" \
	-kubernetes-version "$KUBE_VERSION" -podspec-version -runs "$RUNS"
