#!/usr/bin/env bash
# The API under load while a crawl runs (issues 7 and 15): 200 wrk clients on
# GET /api/jobs/{id} and then on GET /api/jobs/{id}/sites, a window each, while a website
# crawl runs; and the crawl's speed in the same two windows of a second crawl that
# nobody reads. Prints wrk's figures and the crawl's pages/s in each window.
# Each window begins with one request alone, whose time is printed as the first answer:
# serve makes an answer none was kept for while the others wait (server/respcache.h), so
# 200 clients that all begin with the first would put one database query's time into
# the tail of a short window, once per job and route.
# The clients are paced: each waits --pace MS between its requests (200 dashboards
# polling hard: 200 x 1000/MS requests a second), give or take --jitter percent (each
# wait drawn at random, so that the clients, like independent dashboards, do not all ask
# at the same instant); --jitter 0 keeps them in lockstep (wrk's fixed delay: bursts of
# 200 requests at once, every MS); --pace 0 floods (each sends its next request as soon
# as the answer is in). serve allows the 200 connections from one address.
# The crawl nobody reads runs twice, before and after the one under load (the first
# crawl after a start meets a cold database and replay).
#
# Usage: bench/api_bench.sh [--web dev|dev-large] [--budget N] [--delay MS] [--threads T]
#                           [--pace MS] [--jitter PCT] [--window S]
#   defaults: dev, 3000 pages, politeness_delay_ms 100, 10 s windows (dev-large: 150000
#   pages, delay 50, 6 s windows: its sci.space crawl empties its border at about 30,000
#   pages, which it reaches in 10 s without a delay, before the second window), wrk -t2,
#   pace 100 ms, jitter 50% (waits of 50 to 150 ms). Uses build/sitescout (SITESCOUT_BIN), the checkout's embedded
#   PostgreSQL and wrk (installed if missing). dev-large is built on demand by
#   bench/dev_large.sh.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${SITESCOUT_BIN:-$top/build/sitescout}
shared=${SITESCOUT_SHARED:-$top/../shared}
webname=dev budget="" delay="" threads=2 pace=100 jitter=50 secs=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --web) webname=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --delay) delay=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --pace) pace=$2; shift 2 ;;
    --jitter) jitter=$2; shift 2 ;;
    --window) secs=$2; shift 2 ;;
    *) echo "api_bench.sh: unknown option $1 (see the head of the script)" >&2; exit 2 ;;
  esac
done
case $webname in
  dev) web=$shared/webs/dev; budget=${budget:-3000} delay=${delay:-100} secs=${secs:-10} ;;
  dev-large) web=$("$top/bench/dev_large.sh"); budget=${budget:-150000} delay=${delay:-50}
    secs=${secs:-6} ;;
  *) echo "api_bench.sh: --web dev or dev-large" >&2; exit 2 ;;
esac
command -v wrk >/dev/null || apt-get install -y -qq wrk >/dev/null
tmp=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT
# start NAME ARGS...: sitescout in the background (its pid kept for the exit trap: not
# in a $(...) subshell, which would lose it), its address in $addr.
start() {
  local name=$1; shift
  "$bin" "$@" >"$tmp/$name" 2>"$tmp/$name.err" &
  pids+=($!)
  for _ in $(seq 1200); do grep -q '^listening' "$tmp/$name" && break; sleep 0.05; done
  addr=$(sed -n 's/^listening on //p' "$tmp/$name")
}
"$bin" db start >/dev/null
db=$("$bin" db url)
start replay replay --warc "$web.warc.gz" --listen 127.0.0.1:0
proxy="http://$addr"
start serve serve --listen 127.0.0.1:0 --proxy "$proxy" --conns-per-ip 256
api="http://$addr"
printf 'function delay() return math.random(%d, %d) end\n' $((pace - pace * jitter / 100)) \
  $((pace + pace * jitter / 100)) >"$tmp/pace.lua"
python3 - "$web.jobs.json" "$budget" "$delay" >"$tmp/job.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["sci.space"]
j["params"] = {"politeness_delay_ms": int(sys.argv[3]), "max_pages": int(sys.argv[2])}
print(json.dumps(j))
PY
pages() { psql "$db" -X -tA -c "select pages_downloaded from jobs where id = $1"; }
now() { date +%s.%N; }
# window ID WHAT URL: $secs s of wrk on URL (or of nothing: WHAT=quiet); pages/s meanwhile.
window() {
  local p0 t0 p1 t1
  p0=$(pages "$1") t0=$(now)
  if [[ $2 == quiet ]]; then sleep "$secs"; else
    curl -sS -o /dev/null -w '%{time_total}\n' "$3" >"$tmp/first.$2.txt"
    wrk -t"$threads" -c200 -d"$secs"s --latency -s "$tmp/pace.lua" "$3" >"$tmp/wrk.$2.txt"
  fi
  p1=$(pages "$1") t1=$(now)
  python3 -c "print('%.0f' % (($p1 - $p0) / ($t1 - $t0)))"
}
# crawl MODE: post the job, and once it has crawled 1 s, two windows (wrk on the job,
# then on its sites; or quiet); then stop it. Prints the two windows' pages/s.
crawl() {
  local id state r1 r2
  id=$(curl -sS -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/job.json" \
    "$api/api/jobs" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
  until [[ $(psql "$db" -X -tA -c "select state from jobs where id = $id") == crawling ]]; do
    sleep 0.2
  done
  sleep 1
  if [[ $1 == wrk ]]; then
    r1=$(window "$id" job "$api/api/jobs/$id") r2=$(window "$id" sites "$api/api/jobs/$id/sites")
  else
    r1=$(window "$id" quiet) r2=$(window "$id" quiet)
  fi
  state=$(psql "$db" -X -tA -c "select state from jobs where id = $id")
  [[ $state == crawling ]] || echo "warning: job $id was $state before the windows ended" >&2
  curl -sS -X POST "$api/api/jobs/$id/stop" >/dev/null
  until [[ $(psql "$db" -X -tA -c "select state from jobs where id = $id") =~ done|failed ]]; do
    sleep 0.2
  done
  echo "$r1 $r2"
}
read -r q1 q2 < <(crawl quiet)
read -r w1 w2 < <(crawl wrk)
read -r a1 a2 < <(crawl quiet)
echo "web $webname, budget $budget, politeness_delay_ms $delay, wrk -t$threads -c200 -d${secs}s," \
  "pace $pace ms, jitter $jitter%"
echo "crawl pages/s, window 1: alone $q1 (before) and $a1 (after), with wrk on the job $w1"
echo "crawl pages/s, window 2: alone $q2 (before) and $a2 (after), with wrk on the sites $w2"
for w in job sites; do
  echo "GET $w: first answer $(python3 -c "print('%.1f ms' % (1000 * $(cat "$tmp/first.$w.txt")))")"
  grep -E 'Requests/sec|Latency|50%|99%|Non-2xx|Socket errors' "$tmp/wrk.$w.txt" | sed 's/^/  /'
done
