#!/usr/bin/env bash
# Regenerates the README's picture, docs/images/demo-timeline.svg, from a real run of
# examples/demo.yaml on the reference runtime, drawn by `podspec timeline` itself. Run as root
# (runc needs it), like scripts/demo.sh; commit the new picture.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
mkdir -p bin docs/images
go build -o bin/ ./cmd/podspec ./cmd/podspec-supervisor
bin/podspec image build --busybox --tag latest examples/images/busybox >/dev/null
root="$(mktemp -d /tmp/podspec-readme.XXXXXX)"
cleanup() { bin/podspec --root "$root" rm --force demo >/dev/null 2>&1 || true; rm -rf "$root"; }
trap cleanup EXIT
bin/podspec --root "$root" run --detach examples/demo.yaml >/dev/null
bin/podspec --root "$root" events --follow demo >/dev/null   # returns after PodFinished
bin/podspec --root "$root" timeline demo -o docs/images/demo-timeline.svg
echo "wrote docs/images/demo-timeline.svg"
