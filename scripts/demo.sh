#!/usr/bin/env bash
# The main job on a built-in default: installs what is missing (runc, busybox-static), builds
# podspec, builds the example image on the spot, validates every shipped example, and runs
# examples/demo.yaml on the reference runtime in the foreground so you watch the lifecycle:
# init → sidecar (Started) → db (Ready) → worker → exit policy fires → db stopped → sidecar last.
# Run as root (runc needs it). Pass another manifest to run that instead.
set -euo pipefail
cd "$(dirname "$0")/.."
manifest="${1:-examples/demo.yaml}"

scripts/install-deps.sh
mkdir -p bin
go build -o bin/ ./cmd/podspec ./cmd/podspec-supervisor

echo "--- building the example image (busybox) into examples/images/busybox"
bin/podspec image build --busybox --tag latest examples/images/busybox >/dev/null

echo "--- podspec validate examples/*.yaml"
bin/podspec validate examples/*.yaml

root="$(mktemp -d /tmp/podspec-demo.XXXXXX)"
name=$(sed -n 's/^  name: *\([a-z0-9-]*\).*/\1/p' "$manifest" | head -n1)
cleanup() { bin/podspec --root "$root" rm --force "$name" >/dev/null 2>&1 || true; rm -rf "$root"; }
trap cleanup EXIT

echo "--- podspec run $manifest   (state in $root; Ctrl-C stops gracefully, twice forces)"
set +e
bin/podspec --root "$root" run "$manifest"
rc=$?
set -e
echo "--- the pod exited with $rc; its final status:"
bin/podspec --root "$root" status "$name" -o text
exit "$rc"
