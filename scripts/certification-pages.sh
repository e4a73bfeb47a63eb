#!/usr/bin/env bash
# Renders docs/certification from its committed inputs, in one command:
#   scripts/certification-pages.sh            # from docs/certification/bundles/*.tar.gz
#   scripts/certification-pages.sh --adopt DIR NAME   # first copy the bundle DIR in as NAME.tar.gz
# Each page NAME.md comes from bundles/NAME.tar.gz (a sealed --certify bundle, its hashes checked) and
# triage/NAME.yaml (podspec conformance report --markdown); matrix.html and the table between the
# matrix markers of README.md come from all four bundles (report --matrix). Nothing on the pages
# is typed by hand but the triage files and README's text around the table.
set -euo pipefail
cd "$(dirname "$0")/.."
names=(runc crun runsc podman)
titles=("reference on runc" "reference on crun" "reference on runsc" "podman via podspec-podman")
dir=docs/certification
if [ "${1:-}" = --adopt ]; then
  src="${2:?--adopt DIR NAME}" name="${3:?--adopt DIR NAME}"
  tar --sort=name --owner=0 --group=0 --mtime='2026-01-01 00:00Z' -czf "$dir/bundles/$name.tar.gz" \
    -C "$(dirname "$src")" --transform "s#^$(basename "$src")#$name#" "$(basename "$src")"
fi
mkdir -p bin
go build -o bin/ ./cmd/podspec ./cmd/podspec-conformance
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bundles=()
for n in "${names[@]}"; do
  tar -xzf "$dir/bundles/$n.tar.gz" -C "$work"
  # Every file as sealed (verify would also refuse a run that failed, as runsc's and podman's did;
  # report --markdown refuses an unsealed or filtered bundle).
  (cd "$work/$n" && sha256sum --check --quiet SHA256SUMS)
  bin/podspec conformance report --markdown --triage "$dir/triage/$n.yaml" --bundle-name "bundles/$n.tar.gz" \
    "$work/$n" -o "$dir/$n.md"
  bundles+=("$work/$n")
done
bin/podspec conformance report --matrix "${bundles[@]}" -o "$dir/matrix.html"
args=()
for t in "${titles[@]}"; do args+=(--name "$t"); done
bin/podspec conformance report --matrix --markdown "${args[@]}" "${bundles[@]}" -o "$work/matrix.md"
# README.md: the text before <!-- matrix:begin --> and after <!-- matrix:end --> is kept.
awk -v table="$work/matrix.md" '
  /<!-- matrix:begin -->/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
  /<!-- matrix:end -->/ { skip = 0 }
  !skip' "$dir/README.md" > "$work/README.md"
grep -q '<!-- matrix:end -->' "$work/README.md" || { echo "certification-pages: README.md has no matrix markers" >&2; exit 1; }
mv "$work/README.md" "$dir/README.md"
echo "certification-pages: rendered ${names[*]}, matrix.html and README.md's table"
