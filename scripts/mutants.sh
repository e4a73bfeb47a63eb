#!/usr/bin/env bash
# The conformance suite tests itself (issue 5, item 8; docs/mutants.md): for each mutant build of
# the reference runtime (reference/mutants/NAME.patch, applied into a work directory and built
# with `go build -overlay`; the tree is never touched), run the conformance specs
# of the requirement the mutant breaks against it and require that the run FAILS with a failed spec
# labelled with that requirement. The same specs must PASS against the normal build, so that a
# failure really is the mutant's. Exits non-zero if a mutant survives, is caught only by other
# requirements, or the normal build fails. Needs root, runc and a static busybox (like the suite).
#
#   scripts/mutants.sh                 # every mutant of reference/mutants/mutants.yaml
#   scripts/mutants.sh no_backoff ...  # only these
#
# Environment: MUTANT_JOBS (conformance runs at once, default 3), MUTANT_SLOW_FACTOR (passed to
# --slow-factor, default 1), MUTANT_SAMPLE=N (only N mutants, rotating with the commit),
# MUTANT_KEEP=1 keeps the work directory (reports, logs), MUTANT_MODEL (exclude, the default:
# the lifecycle model's specs are left out; only: they alone; all), MUTANT_TIMEOUT (the suite timeout of a
# mutant's run, default 10m), MUTANT_NORMAL_TIMEOUT (of the normal build's run, default 60m:
# for the whole set its filter selects nearly the whole suite, which took more than 10 minutes
# on a loaded machine) and MUTANT_FOCUS (a --focus for every run, the normal build's too, in
# place of each mutant's: with MUTANT_MODEL=only, the scenarios whose model spec is to judge the
# mutants, e.g. 'scenario defer-out-completed', instead of every scenario of their requirements).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="${GOFLAGS:-} -mod=mod"

# The mutants come from the registry, reference/mutants/mutants.yaml (docs/mutants.md), through
# `mutantcheck list`, one line each: name ; label filter ; focus (Ginkgo regexp, may be empty) ;
# requirements whose specs must catch it ; regexp the catching spec's failure message must match
# (may be empty) ; compliance level of its run (empty: must; "should" for a mutant of SHOULD
# requirements, whose graded specs fail a run only at that level). The regexp tells the mutant's failure from a slow machine's: e.g. a restart
# "before its back-off" is the mutant, a restart later than the back-off + Reaction is not. A spec
# catches only when it fails in its own It, never in the BeforeAll that runs its scenario.
# MUTANT_SAMPLE=N runs N of them, rotating with the commit (CI); names on the command line pick.
mkdir -p bin
go build -o bin/mutantcheck ./scripts/mutantcheck
mapfile -t MUTANTS < <(bin/mutantcheck list -sample "${MUTANT_SAMPLE:-0}" -seed "$(git rev-parse HEAD 2>/dev/null || date +%F)" "$@")
[ "${#MUTANTS[@]}" -gt 0 ] || { echo "mutants: no mutant selected" >&2; exit 2; }

# Mutants known to survive, with the reason: reported, not failing the run; a waived mutant that
# is caught fails the run (the waiver is stale: remove it), like conformance/suites/pending.yaml.
declare -A WAIVED=()

JOBS="${MUTANT_JOBS:-3}"
SLOW="${MUTANT_SLOW_FACTOR:-1}"
start=$(date +%s)


work=$(mktemp -d /tmp/podspec-mutants.XXXXXX)
bin="$work/bin"
mkdir -p "$bin"

# cleanup removes every pod a run left in its runtime root (the suite's AfterSuite normally
# removed them all) and, unless MUTANT_KEEP is set, the work directory.
cleanup() {
  for root in "$work"/*/root; do
    [ -d "$root" ] || continue
    for pod in $("$bin/podspec" --root "$root" list 2>/dev/null | grep -o '"name":"[^"]*"' | cut -d'"' -f4); do
      "$bin/podspec" --root "$root" rm --force "$pod" >/dev/null 2>&1 || true
    done
  done
  if [ -z "${MUTANT_KEEP:-}" ]; then
    rm -rf "$work" 2>/dev/null || echo "mutants: could not remove $work" >&2
  else
    echo "mutants: kept $work"
  fi
}
trap cleanup EXIT

echo "=== build: normal podspec, probe, mutantcheck and ${#MUTANTS[@]} mutant builds"
go build -o "$bin/" ./cmd/podspec ./cmd/podspec-conformance
CGO_ENABLED=0 go build -o "$bin/podspec-probe" ./cmd/podspec-probe
cp bin/mutantcheck "$bin/"
# The mutant builds, as many at a time as there are CPUs: each applies its patch with no fuzz
# into $work/build/NAME (mutantcheck overlay) and builds podspec with the patched files in place
# of the tree's (go build -overlay; it recompiles only the patched packages and what depends on
# them, then links).
build_mutant() {
  local name=$1 ov
  ov=$(bin/mutantcheck overlay -dir "$work/build/$name" "$name") || return 1
  go build -overlay "$ov" -o "$bin/podspec-$name" ./cmd/podspec
}
building=0
for m in "${MUTANTS[@]}"; do
  name=${m%%;*}
  [ -f "reference/mutants/${name}.patch" ] || { echo "mutants: no patch reference/mutants/${name}.patch" >&2; exit 1; }
  build_mutant "$name" &
  building=$((building + 1))
  if [ "$building" -ge "$(nproc)" ]; then
    wait -n
    building=$((building - 1))
  fi
done
while [ "$building" -gt 0 ]; do
  wait -n
  building=$((building - 1))
done
for m in "${MUTANTS[@]}"; do
  name=${m%%;*}
  [ -x "$bin/podspec-$name" ] || { echo "mutants: the build of mutant $name failed" >&2; exit 1; }
done

# The normal binary carries none of the mutant code (the tree holds none: a patch adds it), and
# each mutant binary differs from it (its patch took effect).
# (The symbol table goes through a file: with pipefail, `nm | grep -q` fails when grep's early
# exit ends nm with SIGPIPE, which read as "no mutant code" exactly when there was some.)
go tool nm "$bin/podspec" > "$bin/podspec.nm"
if grep -q 'podspec mutant build' "$bin/podspec" || grep -qi mutant "$bin/podspec.nm"; then
  echo "mutants: the normal podspec binary contains mutant code" >&2
  exit 1
fi
for m in "${MUTANTS[@]}"; do
  name=${m%%;*}
  if cmp -s "$bin/podspec" "$bin/podspec-$name"; then
    echo "mutants: the build with the patch of $name is identical to the normal build" >&2
    exit 1
  fi
done
echo "normal binary: no mutant code; every mutant binary differs from it"

# run NAME RUNTIME-BINARY LABEL-FILTER FOCUS [LEVEL]: one filtered conformance run into
# $work/NAME, at --compliance-level LEVEL when it is given. The lifecycle model's specs (label
# `model`, one per scenario, each labelled with nearly every requirement the model judges) are
# left out by default: a filter on one requirement would select every scenario's. MUTANT_MODEL=only
# runs the model's specs alone (the focus is dropped: it names hand-written specs), =all both.
run() {
  local name=$1 rt=$2 filter=$3 focus=$4 level=${5:-}
  case "${MUTANT_MODEL:-exclude}" in
    exclude) filter="($filter) && !model" ;;
    only) filter="($filter) && model"; focus="" ;;
    all) ;;
    *) echo "mutants: MUTANT_MODEL must be exclude, only or all" >&2; exit 2 ;;
  esac
  focus="${MUTANT_FOCUS:-$focus}"
  local dir="$work/$name"
  mkdir -p "$dir/root" "$dir/wd"
  local args=(run --runtime "$rt --root $dir/root" --oci-root "$dir/root/runc"
    --probe "$bin/podspec-probe" --slow-factor "$SLOW" --work-dir "$dir/wd" --out "$dir/out"
    --label-filter "$filter" --timeout "${RUN_TIMEOUT:-${MUTANT_TIMEOUT:-10m}}")
  [ -z "$focus" ] || args+=(--focus "$focus")
  [ -z "$level" ] || args+=(--compliance-level "$level")
  local t0 rc=0
  t0=$(date +%s)
  "$bin/podspec-conformance" "${args[@]}" >"$dir/log" 2>&1 || rc=$?
  echo "$rc $(($(date +%s) - t0))" >"$dir/result"
}

# All runs share one pool of JOBS at a time; most of a lifecycle test is waiting. First in the
# pool: the normal build on the union of the mutants' filters (a superset of each mutant's
# selection), at level should if a mutant's run is (so that its graded specs must pass there
# too); then each mutant, the normal podspec driving the suite and the mutant as runtime.
union=""
union_level=""
for m in "${MUTANTS[@]}"; do
  IFS=';' read -r name filter focus reqs match level <<<"$m"
  union="${union:+$union || }($filter)"
  [ "$level" != should ] || union_level=should
done
echo "=== conformance runs, $JOBS at a time: the normal build ($union), then ${#MUTANTS[@]} mutants"
RUN_TIMEOUT="${MUTANT_NORMAL_TIMEOUT:-60m}" run normal "$bin/podspec" "$union" "" "$union_level" &
running=1
for m in "${MUTANTS[@]}"; do
  IFS=';' read -r name filter focus reqs match level <<<"$m"
  if [ "$running" -ge "$JOBS" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  run "$name" "$bin/podspec-$name" "$filter" "$focus" "$level" &
  running=$((running + 1))
done
wait

# 1. The normal build passes every selected spec.
read -r rc secs <"$work/normal/result"
failed=0
verdict=""
if [ "$rc" -eq 0 ] && verdict=$("$bin/mutantcheck" -report "$work/normal/out/report.json" -want pass); then
  echo "normal build: $verdict (${secs}s)"
else
  echo "normal build FAILED (exit $rc, ${secs}s): $verdict" >&2
  grep -A3 '^\s*\[FAIL\]' "$work/normal/log" >&2 || tail -40 "$work/normal/log" >&2
  failed=1
fi

# 2. Each mutant fails, caught by the requirement it breaks.
survivors=()
printf '\n%-34s %-28s %-8s %s\n' MUTANT BREAKS VERDICT TIME
for m in "${MUTANTS[@]}"; do
  IFS=';' read -r name filter focus reqs match level <<<"$m"
  # The model's verdict names each violation's requirement at the start of a line; the mutant's
  # match was written for a hand-written spec's message. The model's Its are labelled with
  # requirements, not clauses: a clause (STAT-002.only-if-killed) counts as its requirement there.
  want="$reqs"
  if [ "${MUTANT_MODEL:-exclude}" = only ]; then
    want=$(sed -E 's/\.[a-z0-9-]+//g' <<<"$reqs")
    match="\n  (${want//,/|})[ :]"
  fi
  read -r rc secs <"$work/$name/result"
  verdict=""
  status=caught
  if [ "$rc" -eq 0 ] && [ -f "$work/$name/out/report.json" ]; then
    status=SURVIVED
    verdict="every selected spec passed"
  elif [ "$rc" -ne 1 ] || [ ! -f "$work/$name/out/report.json" ]; then
    status=ERROR
    verdict="conformance run exited $rc (want 1: a spec failed)"
  elif ! verdict=$("$bin/mutantcheck" -report "$work/$name/out/report.json" -want fail -req "$want" -match "$match"); then
    status=SURVIVED
  fi
  waiver="${WAIVED[$name]:-}"
  if [ -n "$waiver" ]; then
    case $status in
      SURVIVED) status=waived; verdict="$waiver" ;;
      caught) status=STALE; verdict="caught although waived: remove its waiver in scripts/mutants.sh and docs/mutants.md" ;;
    esac
  fi
  printf '%-34s %-28s %-8s %4ss\n' "$name" "$reqs" "$status" "$secs"
  case $status in
    caught) ;;
    waived) echo "    $verdict" ;;
    *) survivors+=("$name"); echo "    $verdict" | cut -c1-400 ;;
  esac
done

echo
echo "wall time: $(($(date +%s) - start))s"
if [ "${#survivors[@]}" -gt 0 ]; then
  echo "mutants not caught by their requirement: ${survivors[*]}" >&2
  failed=1
fi
exit "$failed"
