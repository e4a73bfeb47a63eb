#!/usr/bin/env bash
# Removes what test runs killed with SIGKILL left behind (a killed test skips its cleanup): the
# runc containers, mounts and directories under /tmp/Test* (Go's t.TempDir), /tmp/podspec-ci.*
# (scripts/test.sh's conformance root) and /tmp/podspec-bench-* (bench/runtime). Only
# directories untouched for SWEEP_AGE_MIN minutes (default 120) are swept, so a run in progress
# is left alone. Empty pod cgroups are left too: they hold no process, and one that looks empty
# may belong to a pod being created. scripts/test.sh runs it first; as root.
set -uo pipefail
age="${SWEEP_AGE_MIN:-120}"
swept=0
for dir in $(find /tmp -maxdepth 1 -type d \( -name 'Test*' -o -name 'podspec-ci.*' -o -name 'podspec-bench-*' \) -mmin +"$age" 2>/dev/null); do
  # runc containers whose state root lies in the test directory.
  for root in $(find "$dir" -maxdepth 4 -type d -name runc 2>/dev/null); do
    for id in $(runc --root "$root" list -q 2>/dev/null); do
      runc --root "$root" delete --force "$id" >/dev/null 2>&1 || true
    done
  done
  # Mounts below it (overlay root filesystems, pinned namespaces, tmpfs volumes), deepest first.
  awk -v d="$dir/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo | sort -r | while read -r mp; do
    umount -l "$mp" 2>/dev/null || true
  done
  rm -rf "$dir" 2>/dev/null && swept=$((swept + 1))
done
echo "sweep: removed $swept test director$([ "$swept" = 1 ] && echo y || echo ies) older than $age minutes"
