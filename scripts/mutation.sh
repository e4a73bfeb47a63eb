#!/usr/bin/env bash
# Mutants nobody wrote (issue 17, item 3; docs/mutants.md): the mutation testing tool gremlins
# lists every mutation it would make in reference/engine and reference/backend (a dry run), and
# scripts/mutation applies each (with gremlins' token table), builds the mutant runtime, and runs
# the conformance specs of the requirements the mutated function serves against it. A mutant the
# suite does not catch (LIVED) is a missing spec, an equivalent mutant or dead code: triage it in
# docs/mutants.md. Needs root, runc and a static busybox, like the suite.
#
#   scripts/mutation.sh                     # every mutant (hours on a 2-core machine)
#   MUTATION_SAMPLE=60 scripts/mutation.sh  # 60 of them, drawn with MUTATION_SEED (default 1)
#   scripts/mutation.sh -only reference/engine/stop.go:120:9:CONDITIONALS_BOUNDARY
#   scripts/mutation.sh -list               # the mutants and their label filters; runs nothing
#   scripts/mutation.sh -only ID -filter 'req:HB-017'   # recheck a survivor against other specs
#
# Environment: MUTATION_PACKAGES (default "reference/engine reference/backend"), MUTATION_SAMPLE,
# MUTATION_SEED, MUTATION_JOBS (mutants at a time, default 2), MUTATION_SLOW_FACTOR (default 2),
# MUTATION_OUT (the results JSON, default bin/mutation-results.json), MUTATION_KEEP=1 keeps the work
# directory. The mutations are made in a copy of the committed HEAD, never in the work tree.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="${GOFLAGS:-} -mod=mod"
GREMLINS=github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0

work=$(mktemp -d /tmp/podspec-mutation.XXXXXX)
cleanup() {
  if [ -z "${MUTATION_KEEP:-}" ]; then rm -rf "$work"; else echo "mutation: kept $work"; fi
}
trap cleanup EXIT
mkdir -p "$work/src" "$work/bin" "$work/tools" "$work/runs" bin

echo "=== gremlins ($GREMLINS) and a copy of HEAD ($(git rev-parse --short HEAD))"
GOBIN="$work/tools" go install "$GREMLINS"
git archive HEAD | tar -x -C "$work/src"

# The dry run lists the mutations of every mutator type gremlins has (the ones it enables by
# default and the others). Before that it measures the package's `go test` coverage, to skip the
# mutants no unit test reaches; our test is the conformance suite, not the unit tests, so
# -run=^$ runs none of them (and spares a loaded machine the engine's runc scenarios): every
# mutant is listed NOT COVERED, and the driver runs them all.
reports=()
for pkg in ${MUTATION_PACKAGES:-reference/engine reference/backend}; do
  out="$work/$(basename "$pkg").json"
  echo "=== gremlins unleash --dry-run ./$pkg"
  (cd "$work/src" && GOFLAGS="$GOFLAGS -run=^\$" "$work/tools/gremlins" unleash --dry-run \
    --invert-logical --invert-loopctrl --invert-assignments --invert-bitwise --invert-bwassign \
    --remove-self-assignments --output "$out" "./$pkg" >"$work/$(basename "$pkg").log" 2>&1) || {
    tail -20 "$work/$(basename "$pkg").log" >&2
    exit 1
  }
  reports+=("$pkg=$out")
done
list=$(IFS=,; echo "${reports[*]}")

go build -o "$work/tools/mutation" ./scripts/mutation
for a in "$@"; do
  if [ "$a" = -list ]; then
    "$work/tools/mutation" -gremlins "$list" -src "$work/src" -sample "${MUTATION_SAMPLE:-0}" -seed "${MUTATION_SEED:-1}" "$@"
    exit 0
  fi
done

echo "=== the normal build (-trimpath, no build ID: a mutant the compiler removes builds identical)"
(cd "$work/src" &&
  go build -trimpath -ldflags=-buildid= -o "$work/bin/" ./cmd/podspec ./cmd/podspec-supervisor ./cmd/podspec-conformance &&
  CGO_ENABLED=0 go build -o "$work/bin/podspec-probe" ./cmd/podspec-probe)

"$work/tools/mutation" -gremlins "$list" -src "$work/src" -bin "$work/bin" -work "$work/runs" \
  -sample "${MUTATION_SAMPLE:-0}" -seed "${MUTATION_SEED:-1}" -jobs "${MUTATION_JOBS:-2}" \
  -slow "${MUTATION_SLOW_FACTOR:-2}" -out "${MUTATION_OUT:-$PWD/bin/mutation-results.json}" "$@"
