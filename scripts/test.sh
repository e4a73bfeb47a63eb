#!/usr/bin/env bash
# Runs every podspec test: formatting and vet; unit and scenario tests (the runtime's use real
# runc, as root) with the race detector on the runtime; short, bounded fuzz runs; the README's
# main job (scripts/demo.sh); the conformance suite against the reference runtime; and, with
# PODSPEC_MUTANTS=1, the mutant check.
# CI runs this through .ci/run. FUZZTIME (default 20s per target) bounds each fuzz run.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${FUZZTIME:-20s}"
start=$(date +%s)
step() { printf '\n=== [%4ss] %s\n' "$(( $(date +%s) - start ))" "$*"; }

step "install dependencies"
scripts/install-deps.sh

step "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

step "go vet"
go vet ./...

runtime_pkgs=$(go list ./reference/... ./cmd/...)
other_pkgs=$(go list ./... | grep -v -e '/reference/' -e '/cmd/')

step "go test (API, spec registry, encodings, validator, conformance framework)"
go test -count=1 $other_pkgs

step "go test -race (reference runtime and commands: real runc, as root)"
go test -race -count=1 -timeout 40m $runtime_pkgs

step "fuzz (${fuzztime} per target)"
go test -run '^$' -fuzz '^FuzzDecodeAndValidate$' -fuzztime "$fuzztime" ./validator/
go test -run '^$' -fuzz '^FuzzValidatePod$' -fuzztime "$fuzztime" ./validation/
go test -run '^$' -fuzz '^FuzzValidateNotification$' -fuzztime "$fuzztime" ./validation/

step "the README's main job (scripts/demo.sh)"
scripts/demo.sh

step "conformance: preflight, then the whole suite against the reference runtime"
mkdir -p bin
go build -o bin/podspec ./cmd/podspec
CGO_ENABLED=0 go build -o bin/podspec-probe ./cmd/podspec-probe
croot=$(mktemp -d /tmp/podspec-ci.XXXXXX)
out=$(mktemp -d /tmp/podspec-conformance.XXXXXX)
trap 'rm -rf "$croot"' EXIT
bin/podspec conformance check-runtime --runtime "$PWD/bin/podspec --root $croot"
# Not yet --certify (which refuses retries): in the last full run 199 of 200 specs passed and
# "counts an attempt that outlives timeoutSeconds" (HOOK-005/006) failed once on a race between a
# liveness kill and the pod's stop sequence (see docs/conformance.md). CI allows one retry per
# spec until that is settled; `podspec conformance run --certify` + `verify` is the vendor path.
bin/podspec conformance run --runtime "$PWD/bin/podspec --root $croot" --oci-root "$croot/runc" \
  --slow-factor 2 --flake-attempts 2 --out "$out/run"

# The mutant check (scripts/mutants.sh, docs/mutants.md) is not yet part of CI: mutant
# no_backoff is not caught reliably (the RST-008 spec's back-off timing also fails the normal
# build under load at slow factor 1), so the check would fail CI for a reason that is the suite's,
# not the change's. Run it with PODSPEC_MUTANTS=1 until that spec is robust.
if [ "${PODSPEC_MUTANTS:-0}" = 1 ]; then
  step "mutants: each mutant build is caught by the requirement it breaks"
  scripts/mutants.sh
fi

step "all tests passed in $(( $(date +%s) - start ))s"
