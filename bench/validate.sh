#!/usr/bin/env bash
# Benchmark podspec validate end to end: generate N realistic pod manifests (default 10,000,
# one file each) into a temporary directory and validate them RUNS times (default 3) with the
# default engines (JSON Schema + semantic checks, positions for every finding), printing
# manifests per second and peak RSS for each run.
#
#   bench/validate.sh                 # 10,000 files
#   N=1000 RUNS=5 bench/validate.sh
#   MULTI=1 bench/validate.sh         # one multi-document file instead (max-documents raised)
#   INVALID=100 bench/validate.sh     # the first 100 manifests carry an error
#   ENGINES=schema bench/validate.sh  # the JSON Schema stage alone
set -euo pipefail

N=${N:-10000}
RUNS=${RUNS:-3}
INVALID=${INVALID:-0}
MULTI=${MULTI:-0}
ENGINES=${ENGINES:-}

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cd "$repo"
go build -o "$work/podspec" ./cmd/podspec
gen_args=(-n "$N" -out "$work/pods" -invalid "$INVALID")
validate_args=()
if [[ "$MULTI" == 1 ]]; then
	gen_args+=(-multi)
	validate_args+=(--max-documents "$N" --max-bytes $((N * 4096)))
fi
if [[ -n "$ENGINES" ]]; then
	validate_args+=(--engine "$ENGINES")
fi
go run ./bench/gen "${gen_args[@]}"
bytes=$(du -sb "$work/pods" | cut -f1)
echo "manifests: $N ($INVALID invalid), $(( bytes / 1024 )) KiB, $(nproc) CPUs, GOMAXPROCS=${GOMAXPROCS:-default}"
echo "command: podspec validate ${validate_args[*]} DIR"

for run in $(seq 1 "$RUNS"); do
	status=0
	/usr/bin/time -v "$work/podspec" validate "${validate_args[@]}" "$work/pods" >"$work/out.txt" 2>"$work/time.txt" || status=$?
	if [[ "$status" -ne 0 && "$INVALID" == 0 ]]; then
		echo "podspec validate exited $status:" >&2
		tail -n 20 "$work/out.txt" "$work/time.txt" >&2
		exit 1
	fi
	awk -v n="$N" -v run="$run" '
		/Elapsed \(wall clock\) time/ {
			t = $NF; k = split(t, p, ":"); s = 0
			for (i = 1; i <= k; i++) s = s * 60 + p[i]
			wall = s
		}
		/User time \(seconds\)/ { user = $NF }
		/System time \(seconds\)/ { sys = $NF }
		/Maximum resident set size/ { rss = $NF }
		END {
			printf "run %d: %.2f s wall, %.2f s user, %.2f s sys, %.0f manifests/s, max RSS %.1f MB\n",
				run, wall, user, sys, (wall > 0 ? n / wall : 0), rss / 1024
		}' "$work/time.txt"
done
tail -n 1 "$work/out.txt"
