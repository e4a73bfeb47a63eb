#!/usr/bin/env bash
# Prints the reference runtime's own logs about one pod, for `podspec conformance run
# --runtime-logs` (the suite appends the pod's name and UID; it never reads the reference's state
# directory itself):
#   scripts/reference-logs.sh ROOT POD UID
# The pod's supervisor log (ROOT/pods/POD/supervisor.log), then, for every Notification with a
# record for the pod (ROOT/notifications/NAME/records/POD_UID.json), its object, every record and
# its runner's log (runner.log). Missing files are said so, not errors: the pod or the
# Notification may be gone. Exit status 0 unless the arguments are wrong.
set -uo pipefail
root="${1:?usage: scripts/reference-logs.sh ROOT POD UID}"
pod="${2:?usage: scripts/reference-logs.sh ROOT POD UID}"
uid="${3:-}"
show() {
  echo "===== $1"
  if [ -f "$1" ]; then cat "$1"; echo; else echo "(absent)"; fi
}
show "$root/pods/$pod/supervisor.log"
show "$root/pods/$pod/state.json"
for dir in "$root"/notifications/*/; do
  [ -d "$dir" ] || continue
  dir=${dir%/}
  [ -e "$dir/records/${pod}_$uid.json" ] || continue
  show "$dir/notification.json"
  for rec in "$dir"/records/*.json; do
    [ -e "$rec" ] && show "$rec"
  done
  show "$dir/runner.log"
done
exit 0
