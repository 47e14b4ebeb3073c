#!/usr/bin/env bash
# Does a crawler's memory depend on its border's size (issue 15)? A crawl of sci.space on
# the dev web is paused once it crawls, its border is filled with N more websites and
# 10 N edges (bench/border_bench --fill-only), and the crawl is resumed for SECONDS:
# prints its peak RSS, pages and claims. The filled websites are not in the dev web:
# the replay proxy refuses them, so they are claimed, tried and failed quickly.
# Usage: bench/border_rss.sh N [SECONDS]   (uses build/sitescout, build/bench/border_bench)
set -euo pipefail
n=${1:?usage: border_rss.sh N [SECONDS]} secs=${2:-60}
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${SITESCOUT_BIN:-$top/build/sitescout}
bench=${BORDER_BENCH:-$top/build/bench/border_bench}
web=${SITESCOUT_SHARED:-$top/../shared}/webs
tmp=$(mktemp -d /tmp/border_rss.XXXXXX)
chmod 755 "$tmp"
export SITESCOUT_HOME=$tmp SITESCOUT_LOG=warn
unset SITESCOUT_DB
trap 'kill $replay 2>/dev/null; "$bin" db stop >/dev/null 2>&1; rm -rf "$tmp"' EXIT
"$bin" replay --warc "$web/dev.warc.gz" --listen 127.0.0.1:0 >"$tmp/replay" 2>&1 &
replay=$!
for _ in $(seq 100); do grep -q '^listening' "$tmp/replay" && break; sleep 0.1; done
proxy="http://$(sed -n 's/^listening on //p' "$tmp/replay")"
"$bin" db start >/dev/null
db=$("$bin" db url)
q() { "$bin" db psql -qtAc "$1"; }

# A crawl that is paused as soon as it crawls (SIGINT pauses it).
"$bin" crawl --job "$web/dev.jobs.json" --topic sci.space --proxy "$proxy" \
  --set politeness_delay_ms=0 --set max_pages=1000000 >"$tmp/first" 2>&1 &
crawl=$!
for _ in $(seq 3000); do
  [[ $(q "SELECT state <> 'training' FROM jobs WHERE id = 1") == t ]] && break
  sleep 0.1
done
kill -INT $crawl 2>/dev/null || true
wait $crawl || { cat "$tmp/first"; exit 1; }
# The dev web's border can run out before the pause lands: then the job is put back to
# paused, as a pause would have left it, for --resume to take it up.
q "UPDATE jobs SET state = 'paused', stop_reason = NULL, finished_at = NULL
   WHERE id = 1 AND state = 'done'" >/dev/null
echo "paused: $(q "SELECT state || ', ' || pages_downloaded || ' pages, border ' ||
  (SELECT count(*) FROM sites WHERE job_id = 1 AND state = 'border') FROM jobs WHERE id = 1")"

"$bench" --db "$db" --job 1 --sites "$n" --fill-only | grep -E '^fill|^sites |^edges '
before=$(q "SELECT pages_downloaded FROM jobs WHERE id = 1")
/usr/bin/time -f '%M' -o "$tmp/rss" "$bin" crawl --resume 1 --proxy "$proxy" \
  >"$tmp/resumed" 2>&1 &
crawl=$!
sleep "$secs"
kill -INT $(pgrep -P $crawl) 2>/dev/null || true  # time(1) ignores SIGINT; its child does not
wait $crawl || true
echo "border $n: resumed crawl ran ${secs} s, peak RSS $(( $(tail -1 "$tmp/rss") / 1024 )) MB," \
  "$(( $(q "SELECT pages_downloaded FROM jobs WHERE id = 1") - before )) pages," \
  "$(q "SELECT count(*) FROM sites WHERE job_id = 1 AND state IN ('examined', 'failed')
        AND host LIKE 'b%.bench'") filled websites tried," \
  "border left $(q "SELECT count(*) FROM sites WHERE job_id = 1 AND state = 'border'")"
