#!/usr/bin/env bash
# Records the events files the timeline tests draw, from real runs of the manifests beside this
# script on the reference runtime (root, runc and a static busybox needed, like scripts/demo.sh):
#   timeline/testdata/record.sh            # every manifest
#   timeline/testdata/record.sh stubborn   # one
# Each NAME.yaml gives NAME.events.jsonl (`podspec events --follow NAME`, until PodFinished); demo
# is examples/demo.yaml. The stubborn pod gets a stop request once both containers run; the
# others end on their own.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."
mkdir -p bin
go build -o bin/ ./cmd/podspec ./cmd/podspec-supervisor
test -d examples/images/busybox || bin/podspec image build --busybox --tag latest examples/images/busybox >/dev/null
image="oci:$PWD/examples/images/busybox:latest"
root="$(mktemp -d /tmp/podspec-timeline.XXXXXX)"
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(demo restarts stubborn defers)
cleanup() {
  for n in "${names[@]}"; do bin/podspec --root "$root" rm --force "$n" >/dev/null 2>&1 || true; done
  rm -rf "$root"
}
trap cleanup EXIT
for n in "${names[@]}"; do
  if [ "$n" = demo ]; then
    sed "s|oci:images/busybox:latest|$image|" examples/demo.yaml > "$root/$n.yaml"
  else
    sed "s|IMAGE|$image|" "$here/$n.yaml" > "$root/$n.yaml"
  fi
  bin/podspec --root "$root" run --detach "$root/$n.yaml" >/dev/null
  if [ "$n" = stubborn ]; then
    until bin/podspec --root "$root" status "$n" | grep -q '"started":true'; do sleep 0.2; done
    sleep 1
    bin/podspec --root "$root" stop "$n"
  fi
  bin/podspec --root "$root" events --follow "$n" > "$here/$n.events.jsonl"
  bin/podspec --root "$root" rm "$n"
  echo "recorded $n: $(wc -l < "$here/$n.events.jsonl") events"
done
