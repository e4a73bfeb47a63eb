#!/usr/bin/env bash
# Runs the full runc certification (scripts/certify-oci.sh) N times in a row beside a CPU and I/O
# load generator, and records every run: issue 17's "zero flakes" measurement.
#   scripts/certify-loop.sh N OUT_DIR
# Installs stress-ng (Debian) if missing and runs it for the whole loop with
#   stress-ng --cpu 2 --cpu-load 50 --io 1 --hdd 1 --hdd-bytes 128M
# (override with STRESS="..."; STRESS=none runs without load). Each run's bundle is
# OUT_DIR/run-K.bundle (a failed spec's pods' status, events, logs and the reference's own logs in
# its failures/) and its log OUT_DIR/run-K.log; a failed run's state root is kept as
# OUT_DIR/run-K.root/root.tar.gz (certify-oci.sh KEEP_ROOT). OUT_DIR/summary.tsv gets one line per run (K, start UTC, seconds, exit status,
# load average, the failed specs). A file OUT_DIR/stop ends the loop before its next run. Exit
# status: 0 if every run passed. Run as root.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:?usage: scripts/certify-loop.sh N OUT_DIR}"
out="${2:?usage: scripts/certify-loop.sh N OUT_DIR}"
stress="${STRESS:---cpu 2 --cpu-load 50 --io 1 --hdd 1 --hdd-bytes 128M}"
mkdir -p "$out"
out=$(cd "$out" && pwd)
spid=
if [ "$stress" != none ]; then
  command -v stress-ng >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq stress-ng >/dev/null
  # shellcheck disable=SC2086
  stress-ng $stress --temp-path "$out" --quiet &
  spid=$!
  trap 'kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null || true' EXIT
fi
[ -f "$out/summary.tsv" ] || printf 'run\tstart\tseconds\texit\tload\tfailed\n' >"$out/summary.tsv"
failed_runs=0
first=$(($(wc -l <"$out/summary.tsv")))
for ((k = first; k < first + n; k++)); do
  [ -e "$out/stop" ] && { echo "certify-loop: $out/stop exists, stopping"; break; }
  dir="$out/run-$k"
  start=$(date -u +%FT%TZ)
  t0=$(date +%s)
  set +e
  KEEP_ROOT="$dir.root" scripts/certify-oci.sh /usr/sbin/runc "$dir.bundle" >"$dir.log" 2>&1
  rc=$?
  set -e
  secs=$(($(date +%s) - t0))
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  log="$dir.bundle/suite.log"
  [ -f "$log" ] || log="$dir.log"
  fails=$(grep -E '^\s*\[FAIL\]' "$log" | grep -oE 'req:[A-Z0-9-]+' | sort -u | tr '\n' ' ' || true)
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "$start" "$secs" "$rc" "$load" "$fails" >>"$out/summary.tsv"
  echo "certify-loop: run $k exit $rc in ${secs}s (load $load) $fails"
  [ "$rc" = 0 ] || failed_runs=$((failed_runs + 1))
done
[ "$failed_runs" = 0 ]
