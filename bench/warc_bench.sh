#!/usr/bin/env bash
# What WARC capture costs the crawl (issue 17): the same dev-web crawl with and without
# --warc-dir, alternating, through the replay web, against a private PostgreSQL.
# Prints pages/s per run (crawl pages over the whole run, training included, as
# bench/crawl_dev.sh), the CPU seconds of the crawl process (user + system, GNU time:
# steadier than pages/s on a shared machine) and, with capture, the files and bytes
# written.
# Usage: bench/warc_bench.sh [ROUNDS (default 3)] [TOPIC (default sci.space)]
#   (uses build/sitescout; SITESCOUT_BIN to choose another)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${SITESCOUT_BIN:-$top/build/sitescout}
web=${SITESCOUT_SHARED:-$top/../shared}/webs
rounds=${1:-3}
topic=${2:-sci.space}
tmp=$(mktemp -d)
chmod 755 "$tmp"
replay=
cleanup() {
  [[ -n $replay ]] && kill "$replay" 2>/dev/null
  "$bin" db --data-dir "$tmp/pg" stop >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
"$bin" db --data-dir "$tmp/pg" start >/dev/null
db=$("$bin" db --data-dir "$tmp/pg" url)
"$bin" replay --warc "$web/dev.warc.gz" --listen 127.0.0.1:0 >"$tmp/replay" 2>&1 &
replay=$!
for _ in $(seq 100); do grep -q '^listening' "$tmp/replay" && break; sleep 0.1; done
proxy="http://$(sed -n 's/^listening on //p' "$tmp/replay")"

run() { # run LABEL [crawl options...]
  local label=$1; shift
  /usr/bin/time -f '%U %S' -o "$tmp/cpu" "$bin" crawl --db "$db" --job "$web/dev.jobs.json" --topic "$topic" --proxy "$proxy" \
    --report "$tmp/r.json" --set politeness_delay_ms=0 --set max_pages=3000 "$@" \
    >"$tmp/out" 2>&1 || { cat "$tmp/out"; exit 1; }
  local files=- bytes=-
  if [[ -d $tmp/warc ]]; then
    files=$(find "$tmp/warc" -type f | wc -l)
    bytes=$(du -sb "$tmp/warc" | cut -f1)
    rm -rf "$tmp/warc"
  fi
  python3 - "$label" "$tmp/r.json" "$files" "$bytes" "$(cat "$tmp/cpu")" <<'PY'
import json, sys
label, r, files, nbytes = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
cpu = sum(float(x) for x in sys.argv[5].split())
print(f"{label:8s} {r['pages_downloaded']:6d} {r['seconds']:8.2f} "
      f"{r['pages_downloaded']/r['seconds']:8.0f} {cpu:8.2f} {files:>6s} {nbytes:>12s}")
PY
}

printf '%-8s %6s %8s %8s %8s %6s %12s\n' run pages seconds pages/s cpu_s files warc_bytes
for _ in $(seq "$rounds"); do
  run plain
  mkdir "$tmp/warc"
  run warc --warc-dir "$tmp/warc"
done
