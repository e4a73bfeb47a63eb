#!/usr/bin/env bash
# Certifies podman through its adapter (adapters/podman, podspec-podman) with the whole,
# unchanged suite:   scripts/certify-podman.sh OUT_DIR [conformance run flags...]
# Builds podspec and the adapter, runs check-runtime, then `conformance run --certify
# --slow-factor 2` and verifies the bundle. NOCERTIFY=1 runs without --certify, so that a filter
# (e.g. --label-filter 'profile:core && req:EXIT-002') may be given. Run as root, with podman
# installed (apt-get install podman). Exit status: that of the run.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: scripts/certify-podman.sh OUT_DIR [flags]}"
shift
mkdir -p bin
go build -o bin/ ./cmd/podspec ./cmd/podspec-supervisor ./cmd/podspec-conformance ./adapters/podman/cmd/podspec-podman
CGO_ENABLED=0 go build -o bin/podspec-probe ./cmd/podspec-probe
root=$(mktemp -d /tmp/podspec-podman.XXXXXX)
cleanup() {
  # Whatever the run left, nothing of it outlives the script.
  for p in $(bin/podspec-podman --root "$root" list 2>/dev/null | grep -o '"name":"[^"]*"' | cut -d'"' -f4); do
    bin/podspec-podman --root "$root" rm --force "$p" >/dev/null 2>&1 || true
  done
  CONTAINERS_CONF="$root/containers.conf" podman --root "$root/storage" --runroot "$root/run" system reset --force >/dev/null 2>&1 || true
  rm -rf "$root"
}
trap cleanup EXIT
rt="$PWD/bin/podspec-podman --root $root"
bin/podspec conformance check-runtime --runtime "$rt"
certify=(--certify)
[ "${NOCERTIFY:-0}" = 1 ] && certify=()
rm -rf "$out"
set +e
bin/podspec conformance run --runtime "$rt" --slow-factor 2 "${certify[@]}" --out "$out" "$@"
rc=$?
set -e
if [ "${NOCERTIFY:-0}" != 1 ]; then
  bin/podspec conformance verify "$out" || true
fi
exit "$rc"
