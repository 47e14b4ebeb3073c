#!/usr/bin/env bash
# Long crawls on dev-large (issue 13): for each target topic and strategy, one crawl of
# BUDGET pages through the replay web; prints pages, speed (training included), peak RSS,
# the judgings' share of the crawl's CPU (crawl model judgings; "-" without),
# precision and recall of the relevant test websites, and the truly relevant websites
# found by each checkpoint (from the page count at which each was judged relevant).
# dev-large is built on demand (bench/dev_large.sh) into a cache outside the checkout.
#
# Usage: bench/crawl_large.sh [--budget N] [--topics T,T] [--strategies S,S]
#                             [--checkpoints N,N] [-- extra crawl options, e.g. --set k=v]
#   defaults: 30000 pages; sci.space, rec.motorcycles, subject.Science.Biology.Birds;
#   website,page; checkpoints 10000 and the budget. Uses build/sitescout (SITESCOUT_BIN),
#   the embedded cluster (or SITESCOUT_DB), the cache SITESCOUT_WEB_CACHE
#   (default /var/cache/sitescout/webs).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${SITESCOUT_BIN:-$top/build/sitescout}
budget=30000
topics=sci.space,rec.motorcycles,subject.Science.Biology.Birds
strategies=website,page
checkpoints=
while [[ $# -gt 0 ]]; do
  case $1 in
    --budget) budget=$2; shift 2 ;;
    --topics) topics=$2; shift 2 ;;
    --strategies) strategies=$2; shift 2 ;;
    --checkpoints) checkpoints=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "crawl_large.sh: unknown option $1 (see the head of the script)" >&2; exit 2 ;;
  esac
done
checkpoints=${checkpoints:-$((budget / 3)),$budget}

web=$("$top/bench/dev_large.sh")

tmp=$(mktemp -d)
trap 'kill $replay 2>/dev/null; rm -rf "$tmp"' EXIT
"$bin" replay --warc "$web.warc.gz" --listen 127.0.0.1:0 >"$tmp/replay" 2>&1 &
replay=$!
for _ in $(seq 1200); do grep -q '^listening' "$tmp/replay" && break; sleep 0.1; done
proxy="http://$(sed -n 's/^listening on //p' "$tmp/replay")"
[[ $proxy != http:// ]] || { echo "crawl_large.sh: the replay did not start" >&2; exit 1; }
dbargs=()
[[ -n ${SITESCOUT_DB:-} ]] || "$bin" db start >/dev/null

printf '%-30s %-8s %6s %6s %7s %6s %6s %6s %6s %7s  %s\n' topic strategy pages sites pages/s \
  rss_mb prec recall judged judging "truly relevant by pages ($checkpoints)"
for t in ${topics//,/ }; do
  for s in ${strategies//,/ }; do
    /usr/bin/time -f "%M" -o "$tmp/rss" "$bin" crawl --job "$web.jobs.json" --topic "$t" \
      --proxy "$proxy" --labels "$web.sites.tsv" --report "$tmp/r.json" \
      --set strategy="$s" --set politeness_delay_ms=0 --set max_pages="$budget" "$@" \
      >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/out" "$tmp/err"; exit 1; }
    job=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['job_id'])" "$tmp/r.json")
    "$bin" db psql -At -F $'\t' -c "select host, found_pages from sites where job_id = $job
      and state = 'examined' and relevant and role = 'discovered'" >"$tmp/found"
    python3 - "$t" "$s" "$tmp/r.json" "$(cat "$tmp/rss")" "$tmp/found" "$web.sites.tsv" \
      "$checkpoints" <<'PY'
import csv, json, sys
t, s, r, rss, found, labels, cps = sys.argv[1:8]
r = json.load(open(r))
truth = set()
with open(labels) as f:
    for row in csv.DictReader(f, delimiter="\t"):
        roles = dict(x.split(":", 1) for x in row["role"].split(";") if ":" in x)
        if row["topic"] == t and roles.get(t) == "test":
            truth.add(row["host"])
hits = []
for line in open(found):
    host, pages = line.rstrip("\n").split("\t")
    if host in truth and pages:
        hits.append(int(pages))
by = [sum(1 for p in hits if p <= int(c)) for c in cps.split(",")]
f = lambda v: "-" if v is None else f"{v:.3f}"
cpu, judge_cpu = r.get("cpu_seconds"), r.get("judge_cpu_seconds")
share = judge_cpu / cpu if cpu and judge_cpu else None  # no judging (examination): "-"
print(f"{t:30s} {s:8s} {r['pages_downloaded']:6d} {r['sites_examined']:6d} "
      f"{r['pages_downloaded'] / r['seconds']:7.0f} {int(rss) / 1024:6.1f} "
      f"{f(r['precision']):>6s} {f(r['recall']):>6s} {r['relevant_found']:6d} {f(share):>7s}  "
      + " ".join(str(b) for b in by))
PY
  done
done
