#!/usr/bin/env bash
# Records the two bundles the report tests render, from real conformance runs on the reference
# runtime (root, runc and a static busybox needed, like the suite):
#   failing.tar.gz  the mutant build budget_overrun (reference/mutants: SIGKILL at the budget end
#                   plus 3 s) against the grace budget spec (req:STOP-010): one spec fails
#   passing.tar.gz  the normal build against req:STOP-010 || req:HB-001 || req:DEFER-005
# Both are filtered runs (a whole --certify run takes most of CI's conformance minutes); the
# report says so. Usage: conformance/certreport/testdata/record.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../../.."
work="$(mktemp -d /tmp/podspec-certreport.XXXXXX)"
trap 'rm -rf "$work"' EXIT
go build -o "$work/bin/" ./cmd/podspec ./cmd/podspec-supervisor ./cmd/podspec-conformance
CGO_ENABLED=0 go build -o "$work/bin/podspec-probe" ./cmd/podspec-probe
go run ./scripts/mutantcheck overlay -dir "$work/budget_overrun" budget_overrun >/dev/null
go build -overlay "$work/budget_overrun/overlay.json" -o "$work/bin/podspec-budget_overrun" ./cmd/podspec
record() { # NAME RUNTIME FILTER
  local d="$work/$1"
  mkdir -p "$d/root" "$d/wd"
  "$work/bin/podspec-conformance" run --runtime "$2 --root $d/root" --oci-root "$d/root/runc" \
    --probe "$work/bin/podspec-probe" --slow-factor 2 --work-dir "$d/wd" --out "$d/out" \
    --label-filter "$3" --timeout 10m >"$d/log" 2>&1 || true
  tar -C "$d/out" --owner=0 --group=0 --numeric-owner -czf "$here/$1.tar.gz" .
  echo "recorded $1: $(grep -o 'Ran [0-9]* of [0-9]* Specs' "$d/log")"
}
record failing "$work/bin/podspec-budget_overrun" 'req:STOP-010'
record passing "$work/bin/podspec" 'req:STOP-010 || req:HB-001 || req:DEFER-005'
