#!/usr/bin/env bash
# The crawler's targets on the dev web (issue 6): for each dev topic, a crawl with a
# 3,000-page budget through the replay web; prints quality, speed and peak RSS.
# Usage: bench/crawl_dev.sh [extra --set key=value ...]   (uses build/sitescout)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${SITESCOUT_BIN:-$top/build/sitescout}
web=${SITESCOUT_SHARED:-$top/../shared}/webs
tmp=$(mktemp -d)
trap 'kill $replay 2>/dev/null; rm -rf "$tmp"' EXIT
"$bin" replay --warc "$web/dev.warc.gz" --listen 127.0.0.1:0 >"$tmp/replay" 2>&1 &
replay=$!
for _ in $(seq 100); do grep -q '^listening' "$tmp/replay" && break; sleep 0.1; done
proxy="http://$(sed -n 's/^listening on //p' "$tmp/replay")"
"$bin" db start >/dev/null
printf '%-32s %6s %6s %6s %7s %7s %9s %6s %6s %6s %7s\n' topic pages sites relev pprs harvest pages/s prec recall f1 rss_mb
for t in sci.space rec.motorcycles subject.Science.Biology.Birds; do
  /usr/bin/time -f '%M' -o "$tmp/rss" "$bin" crawl --job "$web/dev.jobs.json" --topic "$t" \
    --proxy "$proxy" --labels "$web/dev.sites.tsv" --report "$tmp/r.json" \
    --set politeness_delay_ms=0 --set max_pages=3000 "$@" >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/out" "$tmp/err"; exit 1; }
  python3 - "$t" "$tmp/r.json" "$(cat "$tmp/rss")" <<'PY'
import json, sys
t, r, rss = sys.argv[1], json.load(open(sys.argv[2])), int(sys.argv[3])
f = lambda v: "-" if v is None else f"{v:.3f}"
print(f"{t:32s} {r['pages_downloaded']:6d} {r['sites_examined']:6d} {r['relevant_found']:6d} "
      f"{r['pprs']:7.1f} {r['harvest_rate']:7.3f} {r['pages_downloaded']/r['seconds']:9.0f} "
      f"{f(r['precision']):>6s} {f(r['recall']):>6s} {f(r['f1']):>6s} {rss/1024:7.1f}")
PY
done
