#!/usr/bin/env bash
# Certifies the reference runtime on one OCI runtime with the whole, unchanged suite:
#   scripts/certify-oci.sh OCI_RUNTIME OUT_DIR [conformance run flags...]
# e.g. scripts/certify-oci.sh /usr/bin/crun /work/cert-bundles/crun
#      scripts/certify-oci.sh "$PWD/scripts/runsc-host-network" /work/cert-bundles/runsc
# Builds podspec, runs check-runtime, then `conformance run --certify --slow-factor 2` with the
# OCI runtime given to the reference (--oci-runtime) and to the leak check, then verifies the
# bundle. Extra flags go to `conformance run` (without --certify and a filter, for a quick look:
# scripts/certify-oci.sh /usr/bin/crun /tmp/out --label-filter 'profile:core' is refused with
# --certify, so pass NOCERTIFY=1 for that). The reference's own logs about every pod of a failed
# spec go into the bundle's failures/POD/runtime.log (--runtime-logs scripts/reference-logs.sh).
# With KEEP_ROOT=DIR, a failed run's state root (without images, root filesystems, volumes and
# runc state) is kept as DIR/root.tar.gz before it is deleted. Run as root. Exit status: that of
# the run.
set -euo pipefail
cd "$(dirname "$0")/.."
oci="${1:?usage: scripts/certify-oci.sh OCI_RUNTIME OUT_DIR [flags]}"
out="${2:?usage: scripts/certify-oci.sh OCI_RUNTIME OUT_DIR [flags]}"
shift 2
mkdir -p bin
go build -o bin/ ./cmd/podspec ./cmd/podspec-supervisor ./cmd/podspec-conformance
CGO_ENABLED=0 go build -o bin/podspec-probe ./cmd/podspec-probe
root=$(mktemp -d /tmp/podspec-cert.XXXXXX)
keep_root() {
  [ "$rc" != 0 ] && [ -n "${KEEP_ROOT:-}" ] || return 0
  mkdir -p "$KEEP_ROOT"
  tar -C "$root" --exclude=./runc --exclude=./images --exclude=./shared \
    --exclude='./pods/*/instances' --exclude='./pods/*/volumes' --exclude='*.sock' \
    -czf "$KEEP_ROOT/root.tar.gz" . || echo "certify-oci: could not keep $root" >&2
}
trap 'rc=$?; keep_root; rm -rf "$root"' EXIT
rt="$PWD/bin/podspec --root $root --oci-runtime $oci"
bin/podspec conformance check-runtime --runtime "$rt"
certify=(--certify)
[ "${NOCERTIFY:-0}" = 1 ] && certify=()
rm -rf "$out"
set +e
bin/podspec conformance run --runtime "$rt" --oci-root "$root/runc" --oci-runtime-binary "$oci" \
  --runtime-logs "$PWD/scripts/reference-logs.sh $root" --slow-factor 2 "${certify[@]}" --out "$out" "$@"
rc=$?
if [ "${NOCERTIFY:-0}" != 1 ]; then
  bin/podspec conformance verify "$out"
  vrc=$?
  [ "$rc" != 0 ] || rc=$vrc
fi
exit "$rc"
