#!/usr/bin/env bash
# Re-creates web/vendor/ (the dashboard's third-party files) from npm: uPlot, the
# charting library. The result is checked in, so the dashboard needs no npm to run;
# run this to update (change UPLOT_VERSION) and commit what changes.
set -euo pipefail
UPLOT_VERSION=${UPLOT_VERSION:-1.6.32}
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=$SRC/web/vendor
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "uplot@$UPLOT_VERSION" >/dev/null)
tar -xzf "$tmp"/uplot-*.tgz -C "$tmp"
mkdir -p "$OUT"
cp "$tmp/package/dist/uPlot.iife.min.js" "$tmp/package/dist/uPlot.min.css" "$OUT/"
cp "$tmp/package/LICENSE" "$OUT/uPlot.LICENSE"
version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' \
  "$tmp/package/package.json")
cat >"$OUT/README.md" <<MD
# Vendored files of the dashboard

Made by \`scripts/vendor-web.sh\` from npm; do not edit by hand.

| file | package | version | licence |
|---|---|---|---|
| uPlot.iife.min.js, uPlot.min.css | [uplot](https://github.com/leeoniya/uPlot) | $version | MIT (uPlot.LICENSE) |
MD
echo "web/vendor: uplot $version"
