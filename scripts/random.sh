#!/usr/bin/env bash
# Runs generated scenarios (docs/conformance.md, "Scenarios nobody wrote") against the reference
# runtime, judged by the lifecycle model, in batches:
#   scripts/random.sh [N [SEED]]        e.g. scripts/random.sh 200 1000
# N scenarios (default 200) from seed SEED (default: drawn here and printed first), BATCH at a time
# (default 50; batch k runs seeds SEED+k*BATCH ...), each batch a `conformance run --random` of its
# own with a fresh state root, its bundle in OUT/batch-SEED (OUT default: a new directory under
# /tmp). SLOW_FACTOR (default 3), PARALLEL (default 2), SHRINK_RUNS (default 20) and OCI_RUNTIME
# (default runc) pass on to the run. A violated scenario is printed with its seed, shrunk, and the
# shrunk scenario as a file --random-scenario replays. Run as root. Exit status: 1 if any batch
# failed, else 0.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-200}"
seed="${2:-$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')}"
batch="${BATCH:-50}"
out="${OUT:-$(mktemp -d /tmp/podspec-random.XXXXXX)}"
oci="${OCI_RUNTIME:-runc}"
echo "random.sh: $n scenarios from seed $seed, $batch a batch, bundles in $out"
mkdir -p bin "$out"
go build -o bin/ ./cmd/podspec ./cmd/podspec-supervisor ./cmd/podspec-conformance
CGO_ENABLED=0 go build -o bin/podspec-probe ./cmd/podspec-probe
rc=0
for ((start = 0; start < n; start += batch)); do
  count=$((n - start < batch ? n - start : batch))
  s=$((seed + start))
  root=$(mktemp -d /tmp/podspec-random-root.XXXXXX)
  set +e
  bin/podspec conformance run --runtime "$PWD/bin/podspec --root $root --oci-runtime $oci" \
    --oci-root "$root/runc" --oci-runtime-binary "$oci" \
    --slow-factor "${SLOW_FACTOR:-3}" --parallel "${PARALLEL:-2}" --timeout 4h \
    --random "$count" --seed "$s" --shrink-runs "${SHRINK_RUNS:-20}" --out "$out/batch-$s"
  brc=$?
  set -e
  rm -rf "$root"
  echo "random.sh: batch of $count from seed $s: exit $brc"
  [ "$brc" = 0 ] || rc=1
done
exit "$rc"
