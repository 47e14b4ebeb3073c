#!/usr/bin/env bash
# How fast a label shows (issue 31): on a finished job with many examined websites, label
# N of them one at a time through `sitescout serve`'s API (each the opposite of its
# verdict: a label that changes something), and measure
#   - answered: the PUT's answer, when the website's own verdict is the label;
#   - judged: from the PUT to the job judged again, learning from it (jobs.labels_judged_at
#     reaching labels_changed_at: serve's label judge, docs/api.md "Labels");
#   - the API meanwhile: GET /api/jobs/ID and GET /api/jobs/ID/sites?relevant=true, asked
#     in a loop while the labels are judged, against the same loop on the idle server.
# Then it takes the labels back (the job is judged again as it was).
#
# Usage: bench/label_latency.sh JOB [N]   (N default 10)
#   env: SITESCOUT_BIN (build/sitescout), SITESCOUT_DB (else the embedded cluster)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${SITESCOUT_BIN:-$top/build/sitescout}
[[ $# -ge 1 && $1 =~ ^[0-9]+$ ]] || { echo "usage: bench/label_latency.sh JOB [N]" >&2; exit 2; }
job=$1 n=${2:-10}
[[ -n ${SITESCOUT_DB:-} ]] || "$bin" db start >/dev/null
db=${SITESCOUT_DB:-$("$bin" db url)}
q() { psql "$db" -X -q -tA -v ON_ERROR_STOP=1 -c "$1"; }
[[ $(q "select state from jobs where id = $job") == done ]] ||
  { echo "label_latency: job $job is not a finished job" >&2; exit 1; }
tmp=$(mktemp -d)
serve=""
trap '[[ -n $serve ]] && kill $serve 2>/dev/null; rm -rf "$tmp"' EXIT
"$bin" serve --listen 127.0.0.1:0 --db "$db" --workers 0 >"$tmp/serve" 2>"$tmp/serve.err" &
serve=$!
for _ in $(seq 600); do grep -q '^listening on ' "$tmp/serve" && break; sleep 0.05; done
api="http://$(sed -n 's/^listening on //p' "$tmp/serve")"
[[ $api != http:// ]] || { echo "label_latency: serve did not start" >&2; cat "$tmp/serve.err" >&2; exit 1; }

load() { # load OUT: GET the job and its list in a loop until $tmp/stop exists
  while [[ ! -e $tmp/stop ]]; do
    curl -s -o /dev/null -w '%{time_total}\n' "$api/api/jobs/$job" >>"$1"
    curl -s -o /dev/null -w '%{time_total}\n' "$api/api/jobs/$job/sites?relevant=true&limit=50" >>"$1"
  done
}
judged() { [[ $(q "select labels_changed_at is not distinct from labels_judged_at from jobs where id = $job") == t ]]; }
wait_judged() {
  for _ in $(seq 3000); do judged && return 0; sleep 0.01; done
  echo "label_latency: not judged within 30 s" >&2; exit 1
}

examined=$(q "select count(*) from sites where job_id = $job and state = 'examined' and role not like 'train%'")
mapfile -t hosts < <(q "select host || ' ' || relevant from sites where job_id = $job and state = 'examined'
  and role = 'discovered' and label is null order by relevant desc, confidence desc, host limit $n")
[[ ${#hosts[@]} -gt 0 ]] || { echo "label_latency: job $job has no website to label" >&2; exit 1; }

load "$tmp/idle" & loader=$!
sleep 5
touch "$tmp/stop"; wait $loader; rm "$tmp/stop"

load "$tmp/busy" & loader=$!
for hr in "${hosts[@]}"; do
  read -r host rel <<<"$hr"
  [[ $rel == t ]] && body='{"relevant": false}' || body='{"relevant": true}'
  t0=$(date +%s.%N)
  code=$(curl -s -o "$tmp/body" -w '%{http_code}' -X PUT -H 'Content-Type: application/json' \
    --data "$body" "$api/api/jobs/$job/sites/$host/label")
  t1=$(date +%s.%N)
  [[ $code == 200 ]] || { echo "label_latency: PUT $host: $code $(cat "$tmp/body")" >&2; exit 1; }
  wait_judged
  t2=$(date +%s.%N)
  echo "$host $t0 $t1 $t2" >>"$tmp/labels"
  sleep 1
done
touch "$tmp/stop"; wait $loader
for hr in "${hosts[@]}"; do
  read -r host _ <<<"$hr"
  curl -s -o /dev/null -X DELETE "$api/api/jobs/$job/sites/$host/label"
done
wait_judged

python3 - "$tmp/labels" "$tmp/idle" "$tmp/busy" "$job" "$examined" \
  "$(q "select count(*) from pages where job_id = $job and terms is not null")" <<'PY'
import statistics, sys
labels = [l.split() for l in open(sys.argv[1])]
idle = sorted(float(x) for x in open(sys.argv[2]))
busy = sorted(float(x) for x in open(sys.argv[3]))
pct = lambda v, p: v[min(len(v) - 1, int(p * len(v)))]
ans = sorted(float(l[2]) - float(l[1]) for l in labels)
jud = sorted(float(l[3]) - float(l[1]) for l in labels)
print("job %s: %s websites examined, %s pages with terms; %d labels, one at a time" % (
    sys.argv[4], sys.argv[5], sys.argv[6], len(labels)))
print("label answered (its verdict shown): median %.0f ms, max %.0f ms" % (
    1000 * statistics.median(ans), 1000 * ans[-1]))
print("job judged again, learning from it: median %.2f s, max %.2f s (settle 0.5 s included)" % (
    statistics.median(jud), jud[-1]))
print("API GETs idle: %d, p50 %.1f ms, p99 %.1f ms; while labelled and judged: %d, p50 %.1f ms,"
      " p99 %.1f ms, max %.1f ms" % (len(idle), 1000 * pct(idle, .5), 1000 * pct(idle, .99),
                                     len(busy), 1000 * pct(busy, .5), 1000 * pct(busy, .99),
                                     1000 * busy[-1]))
PY
