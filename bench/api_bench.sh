#!/usr/bin/env bash
# The API under load while a crawl runs (issue 7): wrk -t2 -c200 on GET /api/jobs/{id}
# for 10 s during a dev-web crawl, and the crawl's own speed with and without that load.
# Usage: bench/api_bench.sh   (uses build/sitescout, the embedded PostgreSQL, wrk)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/build/sitescout
web=${SITESCOUT_SHARED:-$top/../shared}/webs
command -v wrk >/dev/null || apt-get install -y -qq wrk >/dev/null
tmp=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT
start() { # name args...: background sitescout, echo its address
  local name=$1; shift
  "$bin" "$@" >"$tmp/$name" 2>"$tmp/$name.err" &
  pids+=($!)
  for _ in $(seq 200); do grep -q '^listening' "$tmp/$name" && break; sleep 0.05; done
  sed -n 's/^listening on //p' "$tmp/$name"
}
"$bin" db start >/dev/null
proxy="http://$(start replay replay --warc "$web/dev.warc.gz" --listen 127.0.0.1:0)"
api="http://$(start serve serve --listen 127.0.0.1:0 --proxy "$proxy")"
job_body() {
  python3 - "$web/dev.jobs.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["sci.space"]
j["params"] = {"politeness_delay_ms": 100, "max_pages": 3000}
print(json.dumps(j))
PY
}
# crawl_rate [wrk]: post the job, optionally load the API while it crawls; pages/s of crawling
crawl_rate() {
  local id
  id=$(curl -sS -X POST -H 'Content-Type: application/json' --data "$(job_body)" "$api/api/jobs" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
  until curl -sS "$api/api/jobs/$id" | grep -Eq "\"state\" *: *\"crawling\""; do sleep 0.2; done
  if [[ ${1:-} == wrk ]]; then
    wrk -t2 -c200 -d10s --latency "$api/api/jobs/$id" >"$tmp/wrk.txt"
  fi
  until curl -sS "$api/api/jobs/$id" | grep -Eq "\"state\" *: *\"(done|failed)\""; do sleep 0.5; done
  "$bin" db psql -X -tA -c "select round(pages_downloaded / extract(epoch from finished_at - (select min(ts) from metrics where job_id = $id) + interval '2 s')::numeric, 1) from jobs where id = $id"
}
echo "crawl alone:     $(crawl_rate) pages/s"
echo "crawl with wrk:  $(crawl_rate wrk) pages/s"
grep -E 'Requests/sec|Latency|99%|Non-2xx|Socket errors' "$tmp/wrk.txt"
