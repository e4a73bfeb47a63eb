#!/usr/bin/env bash
# Time podspec validate side by side with kubeconform, ajv-cli and cue vet on the same generated
# pod manifests and the same schema (podspec's schema/pod.json), as one file per manifest and
# as one multi-document stream, at 1,000, 10,000 and 100,000 manifests (bench/peers/main.go
# does the timing; see docs/benchmarks.md). One command from a fresh clone:
#
#   bench/peers.sh                          # all sizes, 3 alternating rounds
#   SIZES=1000,10000 RUNS=5 bench/peers.sh
#   PEERS=kubeconform bench/peers.sh        # only some peers (kubeconform,ajv,cue)
#   KIND=deployment PEERS=kubeconform bench/peers.sh   # Kubernetes Deployments instead of podspec Pods
#   BEFORE=REV bench/peers.sh               # also time podspec built at git revision REV (podspec-before)
#
# The peers are installed once into $PEERS_DIR (default ~/.cache/podspec-peers) from the
# registries this machine reaches: kubeconform and cue through the Go module proxy, ajv-cli
# through npm. Not part of CI: the 100,000-manifest rounds take minutes.
set -euo pipefail

SIZES=${SIZES:-1000,10000,100000}
RUNS=${RUNS:-3}
PEERS=${PEERS:-kubeconform,ajv,cue}
KIND=${KIND:-pod}
KUBECONFORM_VERSION=${KUBECONFORM_VERSION:-v0.8.0}
AJV_CLI_VERSION=${AJV_CLI_VERSION:-5.0.0}
AJV_FORMATS_VERSION=${AJV_FORMATS_VERSION:-3.0.1}
PEERS_DIR=${PEERS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/podspec-peers}

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
mkdir -p "$PEERS_DIR/bin"
has() { [[ ",$PEERS," == *",$1,"* ]]; }

go_install() { PEERS_DIR=$PEERS_DIR bench/install-peer.sh "$@"; } # prints the path of NAME-VERSION
args=()

if has kubeconform; then
	kc=$(go_install kubeconform github.com/yannh/kubeconform/cmd/kubeconform "$KUBECONFORM_VERSION")
	args+=(-kubeconform "$kc")
fi
if has cue; then
	# The CUE version podspec's own module uses (go.mod).
	cue_version=$(go list -m -f '{{.Version}}' cuelang.org/go)
	cue=$(go_install cue cuelang.org/go/cmd/cue "$cue_version")
	args+=(-cue "$cue")
fi
if has ajv; then
	prefix=$PEERS_DIR/npm-ajv-cli-$AJV_CLI_VERSION
	if [[ ! -x "$prefix/node_modules/.bin/ajv" ]]; then
		if ! command -v npm >/dev/null; then
			echo "installing npm (Debian packages)" >&2
			apt-get install -y nodejs npm >/dev/null
		fi
		echo "installing ajv-cli $AJV_CLI_VERSION and ajv-formats $AJV_FORMATS_VERSION (npm)" >&2
		npm install --silent --no-audit --no-fund --prefix "$prefix" "ajv-cli@$AJV_CLI_VERSION" "ajv-formats@$AJV_FORMATS_VERSION" >&2
	fi
	args+=(-ajv "$prefix/node_modules/.bin/ajv")
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/podspec" ./cmd/podspec
go build -o "$work/peers" ./bench/peers
if [[ -n "${BEFORE:-}" ]]; then
	git archive --prefix=before/ "$BEFORE" | tar -x -C "$work"
	(cd "$work/before" && go build -o "$work/podspec-before" ./cmd/podspec)
	args+=(-podspec-before "$work/podspec-before")
	echo "podspec-before $(git rev-parse --short "$BEFORE")"
fi
echo "podspec $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(go version | cut -d' ' -f3)"
[[ -n "${kc:-}" ]] && echo "kubeconform $KUBECONFORM_VERSION"
[[ -n "${cue:-}" ]] && echo "cue $cue_version"
[[ -n "${prefix:-}" ]] && echo "ajv-cli $AJV_CLI_VERSION, ajv-formats $AJV_FORMATS_VERSION, node $(node --version)"
"$work/peers" -podspec "$work/podspec" -schema schema/pod.json -work "$work/data" \
	-sizes "$SIZES" -runs "$RUNS" -kind "$KIND" "${args[@]}"
