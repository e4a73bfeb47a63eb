#!/usr/bin/env bash
# Installs a peer command through the Go module proxy once, as $PEERS_DIR/bin/NAME-VERSION
# (PEERS_DIR defaults to ~/.cache/podspec-peers), and prints its path. `go install pkg@version`
# keeps the peer and its dependencies out of podspec's go.mod.
#
#   bench/install-peer.sh kubeconform github.com/yannh/kubeconform/cmd/kubeconform v0.8.0
set -euo pipefail
if [[ $# -ne 3 ]]; then
	echo "usage: $0 NAME PACKAGE VERSION" >&2
	exit 2
fi
name=$1 pkg=$2 version=$3
dir=${PEERS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/podspec-peers}/bin
bin=$dir/$name-$version
if [[ ! -x "$bin" ]]; then
	echo "installing $name $version (Go module proxy)" >&2
	mkdir -p "$dir"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	GOBIN=$tmp go install "$pkg@$version" >&2
	mv "$tmp/$name" "$bin"
fi
echo "$bin"
