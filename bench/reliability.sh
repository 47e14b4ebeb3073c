#!/usr/bin/env bash
# The reliability campaign of issue 16, in full, with figures (tests/reliability/ runs a
# short form of it in the suite). Sections, all by default:
#   faults     a crawl of the dev web through a clean replay and through one with 20% 5xx,
#              20% resets, 20% slow bodies (8 s) and 300 ms mean latency: seconds, pages,
#              websites, peak RSS, precision and recall; the faulty run's time over the clean
#   kills      N kill -9 of `crawl` at random moments of an uninterrupted run's length
#              (training, crawling, the budget's tail), each resumed: what the resumed job
#              found against the uninterrupted run's relevant websites (the oracle)
#   serve_kills  the same with `serve` killed and started again (a job posted to it)
#   outage     PostgreSQL stopped for 30 s, and crashed (immediate stop), under a crawl
#   lead_death N times a job shared by workers whose lead is killed (issue 29): `serve
#              --workers 0`, worker A (--jobs 4) leads, B (--jobs 1) helps; A killed with -9
#              at 30% of the budget, worker C started 3 s later: how each job ended, and
#              "jobs ended early: K of N" (ended on max_pages more than a website's worth
#              short of it)
#   error_pages  (issue 29) the dev web through a clean replay once, and N times through
#              one with 30% 5xx, 10% resets and 5% stalls (60 s), a fresh replay a run
#              (--seed RUN): per run seconds, pages, websites, RSS, precision, recall, the
#              error bodies classified (5xx pages with a Pr), the 5xx URLs stored as pages,
#              the retries, and the 5xx-answered URLs asked again (of its access log); then
#              the mean and worst precision and recall and the totals over the N runs
#   link_flood (issue 29) the dev web once as it is, and N times with the first relevant
#              training website's homepage carrying 60,000 links to 2,000 made-up websites
#              (bench/flood_web.py): per run the same columns, the flood hosts known and
#              their best rank, the flood hosts examined or failed and the pages spent on
#              them; then the mean and worst precision and recall, and the totals
#   db_crash   N crawls (concurrency 8, 100 ms latency), each with PostgreSQL crashed
#              (immediate stop, back 2 s later) 4 times under its claims, at 1/5 .. 4/5 of
#              the budget (issue 29): crawls hung (alive 90 s after their pages stopped
#              moving, then stopped by SIGINT), verdicts lost (websites fetched, as the
#              replay's access log says, and neither examined nor failed; websites left
#              claimed) and counter drift (|pages_downloaded - the sites' pages_visited|)
#   slowloris  2,000 connections that never finish their headers, from 32 addresses, and
#              /api/health's answer time from another address meanwhile (the flood:
#              bench/slowloris, or SLOWLORIS_BIN; SLOWLORIS_FLOOD=python, SLOWLORIS_REOPEN=1)
#   framing    request smuggling on kept-alive connections (issue 29): a good request,
#              then one with a framing fault, then one more, per case of
#              tests/tools/http_abuse.py smuggle; how many of the last got an answer
#   conn_flood 2,500 connections from 50 addresses (127.0.0.10-59, 50 each, over the 2048
#              connections) that never finish their headers, re-opened when closed, and
#              40 requests from 127.0.0.2 meanwhile: how many failed (issue 29)
# Usage: bench/reliability.sh [--kills N] [--runs N] [--budget PAGES] [SECTION...]
#   (--kills N: the runs of kills, serve_kills and lead_death; --runs N: of db_crash,
#   error_pages and link_flood)
#   defaults: 10 kills, 10 runs, 1500 pages, topic sci.space. Uses build/sitescout (SITESCOUT_BIN)
#   and a private PostgreSQL cluster in a temporary directory.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${SITESCOUT_BIN:-$top/build/sitescout}
web=${SITESCOUT_SHARED:-$top/../shared}/webs
kills=10
runs=10
budget=1500
sections=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --kills) kills=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    faults | kills | serve_kills | outage | lead_death | db_crash | slowloris | framing | conn_flood | error_pages | link_flood) sections+=("$1"); shift ;;
    *) echo "reliability.sh: unknown argument $1 (see the head of the script)" >&2; exit 2 ;;
  esac
done
((${#sections[@]})) || sections=(faults kills serve_kills outage lead_death db_crash slowloris framing conn_flood error_pages link_flood)

tmp=$(mktemp -d /tmp/sitescout-rel.XXXXXX)
chmod 755 "$tmp"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  "$bin" db --data-dir "$tmp/pg" stop >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
"$bin" db --data-dir "$tmp/pg" start >/dev/null
db=$("$bin" db --data-dir "$tmp/pg" url)
q() { psql "$db" -X -q -tA -v ON_ERROR_STOP=1 -c "$1"; }

# replay NAME ARGS...: a replay of the dev web (after the archives in WARCS_FIRST, if
# any); sets REPLAY to its proxy URL. (Not run
# in $(...): the pid must reach the cleanup's list.)
replay() {
  local name=$1; shift
  # shellcheck disable=SC2086
  "$bin" replay ${WARCS_FIRST:-} --warc "$web/dev.warc.gz" --listen 127.0.0.1:0 "$@" >"$tmp/$name.replay" 2>&1 &
  pids+=($!)
  # The dev web's archive is indexed first: seconds on a quiet machine, more beside a load.
  for _ in $(seq 1200); do grep -q '^listening' "$tmp/$name.replay" && break; sleep 0.1; done
  grep -q '^listening' "$tmp/$name.replay" ||
    { echo "reliability.sh: the replay $name is not listening after 120 s: $(cat "$tmp/$name.replay")"; exit 1; }
  REPLAY="http://$(sed -n 's/^listening on //p' "$tmp/$name.replay")"
}
crawl_args() { # the crawl every section runs, through proxy $1
  echo --db "$db" --job "$web/dev.jobs.json" --topic sci.space --proxy "$1" \
    --labels "$web/dev.sites.tsv" --set max_pages="$budget"
}
relevant_set() {
  q "select host from sites where job_id = $1 and relevant and state = 'examined'
     and role = 'discovered' order by host"
}
report_line() { # NAME REPORT RSS_KB
  python3 - "$@" <<'PY'
import json, sys
name, r, rss = sys.argv[1], json.load(open(sys.argv[2])), int(sys.argv[3])
f = lambda v: "-" if v is None else f"{v:.3f}"
print(f"{name:8s} {r['seconds']:8.1f} {r['pages_downloaded']:6d} {r['sites_examined']:6d} "
      f"{r['relevant_found']:6d} {rss/1024:7.1f} {f(r['precision']):>6s} {f(r['recall']):>6s}")
PY
}

faults() {
  echo "== faults: dev web, sci.space, $budget pages, default politeness"
  local clean faulty
  replay clean --latency-ms 300
  clean=$REPLAY
  replay faulty --latency-ms 300 --error-rate 0.2 --reset-rate 0.2 --slow-rate 0.2 --slow-ms 8000
  faulty=$REPLAY
  printf '%-8s %8s %6s %6s %6s %7s %6s %6s\n' run seconds pages sites relev rss_mb prec recall
  for run in clean faulty; do
    local proxy=$clean
    [[ $run == faulty ]] && proxy=$faulty
    # shellcheck disable=SC2046
    /usr/bin/time -f '%M' -o "$tmp/rss" "$bin" crawl $(crawl_args "$proxy") \
      --report "$tmp/$run.json" >"$tmp/$run.out" 2>&1 || { cat "$tmp/$run.out"; exit 1; }
    report_line "$run" "$tmp/$run.json" "$(cat "$tmp/rss")"
  done
  python3 -c "import json; a, b = (json.load(open('$tmp/' + n + '.json'))['seconds'] for n in ('clean', 'faulty')); print(f'faulty / clean time: {b / a:.2f}')"
}

# crawl_run NAME PROXY: a crawl with its report in $tmp/NAME.json, its peak RSS (KiB) in
# $tmp/NAME.rss and its job in JOB.
crawl_run() {
  # shellcheck disable=SC2046
  /usr/bin/time -f '%M' -o "$tmp/$1.rss" "$bin" crawl $(crawl_args "$2") --report "$tmp/$1.json" \
    >"$tmp/$1.out" 2>&1 || { cat "$tmp/$1.out"; exit 1; }
  JOB=$(q "select max(id) from jobs")
}
# replay_stop: SIGINT to the last replay started (it flushes its access log in full), and wait.
replay_stop() {
  kill -INT "${pids[-1]}" 2>/dev/null || true
  wait "${pids[-1]}" 2>/dev/null || true
  unset 'pids[-1]'
}
# summary NAME REPORT...: the mean and worst precision and recall of the reports.
summary() {
  python3 - "$@" <<'PY'
import json, sys
rs = [json.load(open(f)) for f in sys.argv[2:]]
out = []
for k in ("precision", "recall"):
    v = [r[k] for r in rs if r.get(k) is not None]
    out.append(f"{k} mean {sum(v) / len(v):.3f} worst {min(v):.3f}" if v else f"{k} -")
print(f"{sys.argv[1]} over {len(rs)} runs: " + ", ".join(out))
PY
}

# error_pages: the clean crawl once, the faulty one RUNS times, each through a replay of its
# own (--seed RUN, its own access log, stopped by SIGINT so that the log is complete).
error_pages() {
  echo "== error_pages: dev web, sci.space, $budget pages; clean once, and $runs runs with" \
    "30% 5xx + 10% resets + 5% stalls (60 s), the replay's --seed the run's number"
  local head='%-8s %8s %6s %6s %6s %7s %6s %6s'
  printf "$head %7s %6s %7s %11s\n" run seconds pages sites relev rss_mb prec recall \
    classif 5xx_pg retries asked_again
  replay ep_clean
  crawl_run ep_clean "$REPLAY"
  replay_stop
  report_line clean "$tmp/ep_clean.json" "$(cat "$tmp/ep_clean.rss")"
  local classified=0 stored=0 retries=0 failed=0 asked=0 reports=() notes=()
  for i in $(seq "$runs"); do
    replay "ep$i" --seed "$i" --error-rate 0.3 --reset-rate 0.1 --stall-rate 0.05 \
      --access-log "$tmp/ep$i.log"
    crawl_run "ep_faulty$i" "$REPLAY"
    replay_stop
    reports+=("$tmp/ep_faulty$i.json")
    local c s r again
    c=$(q "select count(*) from pages where job_id = $JOB and status >= 500 and pr_target is not null")
    s=$(q "select count(*) from pages where job_id = $JOB and status >= 500")
    r=$(python3 -c "import json; print(json.load(open('$tmp/ep_faulty$i.json')).get('retries', 0))")
    # The URLs answered 5xx (robots.txt aside) and those of them asked again later: "F A".
    again=$(python3 - "$tmp/ep$i.log" <<'PY'
import json, sys
failed, asked, last = set(), set(), {}
reqs = [json.loads(l) for l in open(sys.argv[1])]
for r in reqs:
    last[r["url"]] = max(last.get(r["url"], 0), r["ts"])
for r in reqs:
    if "error" in r.get("fault", "") and not r["url"].endswith("/robots.txt"):
        failed.add(r["url"])
        if last[r["url"]] > r["ts"]:
            asked.add(r["url"])
print(len(failed), len(asked))
PY
)
    local f=${again% *} a=${again#* }
    classified=$((classified + c)) stored=$((stored + s)) retries=$((retries + r))
    failed=$((failed + f)) asked=$((asked + a))
    printf '%s %7s %6s %7s %11s\n' \
      "$(report_line "faulty$i" "$tmp/ep_faulty$i.json" "$(cat "$tmp/ep_faulty$i.rss")")" \
      "$c" "$s" "$r" "$a/$f"
    local lost
    lost=$(grep -h 'training lost' "$tmp/ep_faulty$i.out" || true)
    [[ -z $lost ]] || notes+=("run $i: $lost")
  done
  ((${#notes[@]})) && printf '%s\n' "${notes[@]}" || echo "training: no run lost most of a class's websites"
  summary error_pages "${reports[@]}"
  echo "error bodies classified (5xx pages with a Pr): $classified (should be 0); 5xx URLs" \
    "stored as pages: $stored; retries: $retries; URLs answered 5xx (robots.txt aside) asked" \
    "again: $asked of $failed ($(python3 -c "print(f'{$asked / max(1, $failed):.3f}')"))"
}

# link_flood: the clean crawl once, the flooded one RUNS times through one replay.
link_flood() {
  echo "== link_flood: dev web, sci.space, $budget pages; the first relevant training homepage" \
    "with 60,000 links to 2,000 made-up websites; clean once, flooded $runs runs"
  python3 "$top/bench/flood_web.py" "$web/dev.warc.gz" "$web/dev.jobs.json" sci.space \
    "$tmp/flood.warc.gz" | sed 's/^/flooded page: /'
  local head='%-8s %8s %6s %6s %6s %7s %6s %6s'
  printf "$head %6s %6s %6s %6s\n" run seconds pages sites relev rss_mb prec recall \
    fknown frank fexam fpages
  replay lf_clean
  crawl_run lf_clean "$REPLAY"
  replay_stop
  report_line clean "$tmp/lf_clean.json" "$(cat "$tmp/lf_clean.rss")"
  WARCS_FIRST="--warc $tmp/flood.warc.gz" replay lf_flood
  local flood=$REPLAY known=0 rank=0 examined=0 spent=0 pages=0 reports=()
  for i in $(seq "$runs"); do
    crawl_run "lf_flood$i" "$flood"
    reports+=("$tmp/lf_flood$i.json")
    local fl="job_id = $JOB and host like 'flood-%.invalid'" k r e s
    IFS='|' read -r k r e s < <(q "select count(*), coalesce(round(max(rank)::numeric, 3), 0),
      count(*) filter (where state <> 'border'), coalesce(sum(pages_visited), 0) from sites where $fl")
    printf '%s %6s %6s %6s %6s\n' \
      "$(report_line "flood$i" "$tmp/lf_flood$i.json" "$(cat "$tmp/lf_flood$i.rss")")" "$k" "$r" "$e" "$s"
    ((k > known)) && known=$k
    rank=$(python3 -c "print(max($rank, $r))")
    examined=$((examined + e)) spent=$((spent + s))
    pages=$((pages + $(q "select pages_downloaded from jobs where id = $JOB")))
  done
  replay_stop
  summary link_flood "${reports[@]}"
  echo "flood hosts known: at most $known a run, best rank $rank; flood hosts examined or" \
    "failed: $examined in all; budget spent on them: $spent of $pages pages" \
    "($(python3 -c "print(f'{$spent / max(1, $pages):.3f}')"))"
}

# The oracle of the kill sections: an uninterrupted run (sets PROXY, LENGTH, N_ORACLE).
oracle() {
  [[ -n ${PROXY:-} ]] && return 0
  replay kills
  PROXY=$REPLAY
  local t0=$SECONDS
  # shellcheck disable=SC2046
  "$bin" crawl $(crawl_args "$PROXY") >"$tmp/oracle.out" 2>&1 || { cat "$tmp/oracle.out"; exit 1; }
  LENGTH=$((SECONDS - t0))
  local job
  job=$(q "select max(id) from jobs")
  relevant_set "$job" >"$tmp/oracle.set"
  N_ORACLE=$(wc -l <"$tmp/oracle.set")
  echo "oracle: job $job, $LENGTH s, $N_ORACLE relevant websites, $(q "select pages_downloaded from jobs where id = $job") pages"
}
# killed_row I AT JOB: a table row on a killed and resumed job; adds to COMMON.
killed_row() {
  relevant_set "$3" >"$tmp/k.set"
  local common
  common=$(comm -12 "$tmp/oracle.set" "$tmp/k.set" | wc -l)
  COMMON=$((COMMON + common))
  local counted="job_id = $3 and role not in ('train', 'train_other') and state = 'examined'"
  printf '%-4s %7s %-22s %6s %6s %7s %6s %6s\n' "$1" "$2" "$KILLED_AT" \
    "$(q "select pages_downloaded from jobs where id = $3")" "$(wc -l <"$tmp/k.set")" \
    "$common/$N_ORACLE" "$(q "select count(*) from models where job_id = $3")" \
    "$(q "select (select count(*) from sites where $counted) - sites_examined from jobs where id = $3")"
}
table_head() { printf '%-4s %7s %-22s %6s %6s %7s %6s %6s\n' kill after_s killed_at pages relev common models drift; }

kills() {
  echo "== kills: $kills x kill -9 of crawl at a random moment, then crawl --resume"
  oracle
  local proxy=$PROXY length=$LENGTH n_oracle=$N_ORACLE
  table_head
  COMMON=0
  for i in $(seq "$kills"); do
    local at=$((1 + RANDOM % length))
    # shellcheck disable=SC2046
    "$bin" crawl $(crawl_args "$proxy") >"$tmp/k$i.out" 2>&1 &
    local pid=$!
    sleep "$at"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    local job
    job=$(q "select max(id) from jobs")
    KILLED_AT=$(q "select state || '@' || pages_downloaded from jobs where id = $job")
    if [[ $KILLED_AT != done@* ]]; then
      "$bin" crawl --db "$db" --resume "$job" --proxy "$proxy" >"$tmp/k$i.resume" 2>&1 ||
        { echo "resume of job $job failed:"; cat "$tmp/k$i.resume"; exit 1; }
    fi
    killed_row "$i" "$at" "$job"
  done
  python3 -c "print(f'mean share of the oracle found: {$COMMON / ($kills * $n_oracle):.3f}')"
}

# serve_kills: the same with `serve` killed and started again; it takes its dead self's
# job over at once (the lease's holder is a gone process of this host).
serve_kills() {
  echo "== serve_kills: $kills x kill -9 of serve at a random moment, then serve again"
  oracle
  python3 - "$web/dev.jobs.json" "$budget" >"$tmp/job.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["sci.space"]
d.setdefault("params", {})["max_pages"] = int(sys.argv[2])
print(json.dumps(d))
PY
  table_head
  COMMON=0
  for i in $(seq "$kills"); do
    local at=$((1 + RANDOM % LENGTH)) job api
    serve_start
    job=$(curl -sf -X POST -H 'Content-Type: application/json' --data @"$tmp/job.json" \
      "http://$API/api/jobs" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
    sleep "$at"
    kill -9 "$SERVE"
    wait "$SERVE" 2>/dev/null || true
    KILLED_AT=$(q "select state || '@' || pages_downloaded from jobs where id = $job")
    serve_start
    for _ in $(seq 3600); do
      [[ $(q "select state from jobs where id = $job") == done ]] && break
      sleep 0.5
    done
    kill "$SERVE"
    wait "$SERVE" 2>/dev/null || true
    killed_row "$i" "$at" "$job"
  done
  python3 -c "print(f'mean share of the oracle found: {$COMMON / ($kills * $N_ORACLE):.3f}')"
}
SERVE_N=0
serve_start() { # sets SERVE and API
  SERVE_N=$((SERVE_N + 1))
  local out="$tmp/serve.$SERVE_N.out"
  "$bin" serve --listen 127.0.0.1:0 --db "$db" --proxy "$PROXY" --workers 1 >"$out" 2>/dev/null &
  SERVE=$!
  pids+=("$SERVE")
  for _ in $(seq 200); do grep -q '^listening' "$out" && break; sleep 0.1; done
  API=$(sed -n 's/^listening on //p' "$out")
}

outage() {
  echo "== outage: PostgreSQL stopped 30 s, and crashed, under a crawl"
  replay outage --latency-ms 100
  local proxy=$REPLAY
  for how in stop30 crash; do
    # shellcheck disable=SC2046
    "$bin" crawl $(crawl_args "$proxy") >"$tmp/$how.out" 2>&1 &
    local pid=$! job=""
    pids+=("$pid")
    for _ in $(seq 600); do
      job=$(q "select max(id) from jobs where state = 'crawling'" 2>/dev/null || true)
      [[ -n $job ]] && break
      sleep 0.5
    done
    sleep 5
    if [[ $how == stop30 ]]; then
      "$bin" db --data-dir "$tmp/pg" stop >/dev/null
      sleep 30
    else
      local pg_ctl
      pg_ctl=$(ls /usr/lib/postgresql/*/bin/pg_ctl | sort -V | tail -1)
      if [[ $(id -u) == 0 ]]; then
        runuser -u postgres -- "$pg_ctl" -D "$tmp/pg/data" -m immediate stop >/dev/null
      else
        "$pg_ctl" -D "$tmp/pg/data" -m immediate stop >/dev/null
      fi
      sleep 2
    fi
    "$bin" db --data-dir "$tmp/pg" start >/dev/null
    local rc=0
    wait "$pid" || rc=$?
    local resumed=no
    if [[ $(q "select state from jobs where id = $job") != done ]]; then
      resumed=yes
      "$bin" crawl --db "$db" --resume "$job" --proxy "$proxy" >"$tmp/$how.resume" 2>&1 ||
        { echo "resume failed:"; cat "$tmp/$how.resume"; exit 1; }
    fi
    local counted="job_id = $job and role not in ('train', 'train_other') and state = 'examined'"
    echo "$how: crawl exit $rc, resumed $resumed, state $(q "select state || ' ' || stop_reason from jobs where id = $job"), pages $(q "select pages_downloaded from jobs where id = $job"), examined $(q "select sites_examined from jobs where id = $job") (rows $(q "select count(*) from sites where $counted")), claimed $(q "select count(*) from sites where job_id = $job and state = 'claimed'")"
  done
}

# lead_death: a job shared by workers whose lead is killed (issue 29, item 1).
ld_worker() { # ld_worker NAME JOBS: sets WORKER (its pid)
  "$bin" worker --db "$db" --proxy "$PROXY" --jobs "$2" >"$tmp/ld.$1.out" 2>"$tmp/ld.$1.err" &
  WORKER=$!
  pids+=("$WORKER")
  for _ in $(seq 200); do grep -qs '^working' "$tmp/ld.$1.out" && return; sleep 0.1; done
  echo "worker $1 did not start: $(cat "$tmp/ld.$1.err")"
  exit 1
}
ld_until() { # ld_until SQL: poll until it answers t (10 minutes at most)
  for _ in $(seq 6000); do
    [[ $(q "$1") == t ]] && return 0
    sleep 0.1
  done
  echo "waited 10 minutes for: $1"
  exit 1
}
lead_death() {
  echo "== lead_death: $kills x kill -9 of a shared job's lead at 30% of $budget pages" \
    "(A --jobs 4 leads, B --jobs 1 helps, C starts 3 s after the kill)"
  [[ -n ${PROXY:-} ]] || { replay kills; PROXY=$REPLAY; }
  python3 - "$web/dev.jobs.json" "$budget" >"$tmp/ld.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["sci.space"]
d.setdefault("params", {}).update(max_pages=int(sys.argv[2]), politeness_delay_ms=100)
print(json.dumps(d))
PY
  local out="$tmp/ld.serve.out"
  "$bin" serve --listen 127.0.0.1:0 --db "$db" --proxy "$PROXY" --workers 0 >"$out" 2>/dev/null &
  local serve=$!
  pids+=("$serve")
  for _ in $(seq 200); do grep -q '^listening' "$out" && break; sleep 0.1; done
  local api
  api=$(sed -n 's/^listening on //p' "$out")
  printf '%-4s %8s %-22s %6s %8s\n' run killed_at ended pages requests
  local early=0
  for i in $(seq "$kills"); do
    local a b c job at state why pages requests cap
    ld_worker "a$i" 4
    a=$WORKER
    job=$(curl -sf -X POST -H 'Content-Type: application/json' --data @"$tmp/ld.json" \
      "http://$api/api/jobs" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
    ld_until "select state = 'crawling' and worker like '%:$a:%' from jobs where id = $job"
    ld_worker "b$i" 1
    b=$WORKER
    ld_until "select count(*) = 2 from job_workers where job_id = $job"
    ld_until "select pages_downloaded >= $((budget * 3 / 10)) or state <> 'crawling'
              from jobs where id = $job"
    kill -9 "$a"
    wait "$a" 2>/dev/null || true
    at=$(q "select pages_downloaded from jobs where id = $job")
    sleep 3
    ld_worker "c$i" 1
    c=$WORKER
    ld_until "select state in ('done', 'failed') from jobs where id = $job"
    # (requests through to_jsonb: a binary older than the column gives '-')
    IFS='|' read -r state why pages requests cap < <(q "select state, coalesce(stop_reason, '-'),
      pages_downloaded, coalesce(to_jsonb(j)->>'requests', '-'),
      least(coalesce(nullif((params->>'max_pages_to_decide')::int, 0), 1000000),
      (params->>'max_pages_per_site')::int) from jobs j where id = $job")
    [[ $why == max_pages ]] && ((pages + cap < budget)) && early=$((early + 1))
    printf '%-4s %8s %-22s %6s %8s\n' "$i" "$at" "$state ($why)" "$pages" "$requests"
    kill "$b" "$c" 2>/dev/null || true
    wait "$b" "$c" 2>/dev/null || true
  done
  kill "$serve"
  wait "$serve" 2>/dev/null || true
  echo "jobs ended early: $early of $kills"
}

pg_crash() { # an immediate stop of the bench's cluster (its sessions end without a word)
  local pg_ctl
  pg_ctl=$(ls /usr/lib/postgresql/*/bin/pg_ctl | sort -V | tail -1)
  if [[ $(id -u) == 0 ]]; then
    runuser -u postgres -- "$pg_ctl" -D "$tmp/pg/data" -m immediate stop >/dev/null
  else
    "$pg_ctl" -D "$tmp/pg/data" -m immediate stop >/dev/null
  fi
}

db_crash() {
  echo "== db_crash: $runs crawls, concurrency 8, 100 ms latency, $budget pages; PostgreSQL" \
    "crashed (immediate stop, back 2 s later) at 1/5 .. 4/5 of the budget"
  replay crash --latency-ms 100 --access-log "$tmp/crash.alog"
  local proxy=$REPLAY
  local hung=0 lost=0 drift=0
  printf '%-4s %6s %-5s %-18s %7s %5s %5s %6s\n' run pages hung state claimed lost drift crashes
  for i in $(seq "$runs"); do
    local from
    from=$(wc -l <"$tmp/crash.alog" 2>/dev/null || echo 0)
    # shellcheck disable=SC2046
    "$bin" crawl $(crawl_args "$proxy") --set concurrency=8 >"$tmp/crash$i.out" 2>&1 &
    local pid=$! job="" crashes=0
    pids+=("$pid")
    for _ in $(seq 600); do
      job=$(q "select max(id) from jobs where state = 'crawling'" 2>/dev/null || true)
      [[ -n $job ]] && break
      sleep 0.5
    done
    for k in 1 2 3 4; do
      while kill -0 "$pid" 2>/dev/null &&
        (($(q "select pages_downloaded from jobs where id = $job" 2>/dev/null || echo 0) < budget * k / 5)); do
        sleep 0.2
      done
      kill -0 "$pid" 2>/dev/null || break
      pg_crash
      sleep 2
      "$bin" db --data-dir "$tmp/pg" start >/dev/null
      crashes=$((crashes + 1))
    done
    # Hung: alive 90 s after the job's pages last moved.
    local last="" still=0 is_hung=no
    while kill -0 "$pid" 2>/dev/null; do
      local now
      now=$(q "select pages_downloaded from jobs where id = $job" 2>/dev/null || echo "")
      if [[ $now == "$last" ]]; then still=$((still + 1)); else still=0; last=$now; fi
      if ((still >= 90)); then
        is_hung=yes
        kill -INT "$pid" 2>/dev/null || true
        break
      fi
      sleep 1
    done
    wait "$pid" 2>/dev/null || true
    [[ $is_hung == yes ]] && hung=$((hung + 1))
    local crawled="job_id = $job and role not in ('train', 'train_other')"
    local claimed fetched unjudged d
    claimed=$(q "select count(*) from sites where $crawled and state = 'claimed'")
    # The websites this run fetched pages of (robots.txt aside), from the access log.
    # The replay flushes its log at least once a second, so the lines after `from` may
    # begin with the previous run's last fetches: only those since this job started count.
    local since
    since=$(q "select extract(epoch from created_at) from jobs where id = $job")
    fetched=$(tail -n +"$((from + 1))" "$tmp/crash.alog" | python3 -c '
import json, sys, urllib.parse
hosts = set()
for line in sys.stdin:
    try:
        e = json.loads(line)
        u = urllib.parse.urlsplit(e["url"])
    except Exception:
        continue
    if u.path != "/robots.txt" and e["ts"] >= float(sys.argv[1]):
        hosts.add(u.hostname)
print("{" + ",".join(sorted(h for h in hosts if h)) + "}")' "$since")
    unjudged=$(q "select count(*) from unnest('$fetched'::text[]) h where not exists
      (select 1 from sites s where s.job_id = $job and s.host = h and s.state in ('examined', 'failed'))")
    d=$(q "select abs(j.pages_downloaded - (select coalesce(sum(pages_visited), 0) from sites
      where $crawled)) from jobs j where j.id = $job")
    lost=$((lost + unjudged))
    drift=$((drift + d))
    printf '%-4s %6s %-5s %-18s %7s %5s %5s %6s\n' "$i" "$(q "select pages_downloaded from jobs where id = $job")" \
      "$is_hung" "$(q "select state || ' ' || coalesce(stop_reason, '') from jobs where id = $job")" \
      "$claimed" "$unjudged" "$d" "$crashes"
  done
  echo "hung crawls: $hung, verdicts lost: $lost, counter drift: $drift over $runs runs"
}

# The flood is bench/slowloris (one process, epoll) of the binary's build; with
# SLOWLORIS_FLOOD=python it is 32 tests/tools/http_abuse.py processes instead (the flood
# of session 7), and SLOWLORIS_REOPEN=1 has the one-process flood re-open what is cut.
slowloris() {
  local flood=${SLOWLORIS_FLOOD:-c}
  echo "== slowloris: 2,000 connections from 32 addresses that never finish their headers" \
    "($flood flood, load average $(cut -d' ' -f1-3 /proc/loadavg))"
  "$bin" serve --listen 127.0.0.1:0 --db "$db" --workers 1 >"$tmp/serve.out" 2>"$tmp/serve.err" &
  pids+=($!)
  for _ in $(seq 200); do grep -q '^listening' "$tmp/serve.out" && break; sleep 0.1; done
  local api n_flood
  api=$(sed -n 's/^listening on //p' "$tmp/serve.out")
  # The first answer opens the pool's first PostgreSQL connection (30-50 ms here, flood
  # or not): one answer before the flood, so that the figure is the flood's.
  curl -sf -o /dev/null "http://$api/api/health"
  ulimit -n 8192
  if [[ $flood == python ]]; then
    n_flood=32
    for i in $(seq 32); do
      python3 "$top/tests/tools/http_abuse.py" flood "$api" --source "127.0.1.$i" --conns 63 \
        --out "$tmp/flood.$i" --seconds 20 &
      pids+=($!)
    done
  else
    n_flood=1
    local flooder=${SLOWLORIS_BIN:-$(dirname "$bin")/bench/slowloris}
    [[ -x $flooder ]] || { echo "no $flooder: build it (target slowloris) or set SLOWLORIS_BIN" >&2; exit 1; }
    "$flooder" "$api" --sources 127.0.1.1-127.0.1.32 --per-source 63 \
      --seconds 20 ${SLOWLORIS_REOPEN:+--reopen} >"$tmp/flood.all" &
    pids+=($!)
  fi
  sleep 3
  local worst=0 all=()
  for _ in $(seq 20); do
    local ms
    ms=$(curl -s -o /dev/null -w '%{time_total}' --interface 127.0.0.2 "http://$api/api/health" |
      awk '{print int($1 * 1000)}')
    ((ms > worst)) && worst=$ms
    all+=("$ms")
    sleep 0.5
  done
  wait "${pids[@]: -$n_flood}" 2>/dev/null || true
  [[ $flood == python ]] || grep -v '^held\|^cut' "$tmp/flood.all" || true
  echo "/api/health answers, ms, in order: ${all[*]} (load average now $(cut -d' ' -f1 /proc/loadavg))"
  echo "held: $(cat "$tmp"/flood.* | awk '/^held/ {h += $2} END {print h}') of 2016;" \
    "cut by the header deadline: $(cat "$tmp"/flood.* | awk '/^cut/ {c += $2} END {print c}');" \
    "/api/health worst of 20 answers meanwhile: $worst ms"
}


# plain_serve NAME: serve with no web to reach (the HTTP sections); sets PLAIN to its address.
plain_serve() {
  SITESCOUT_LOG=info "$bin" serve --listen 127.0.0.1:0 --db "$db" --workers 1 >"$tmp/$1.out" 2>"$tmp/$1.err" &
  pids+=($!)
  for _ in $(seq 200); do grep -q '^listening' "$tmp/$1.out" && break; sleep 0.1; done
  PLAIN=$(sed -n 's/^listening on //p' "$tmp/$1.out")
}

framing() {
  echo "== framing: a good request, a faulty head, then GET /api/smuggled, on one connection a case"
  plain_serve framing
  python3 "$top/tests/tools/http_abuse.py" smuggle "$PLAIN" | tee "$tmp/framing"
  echo "smuggled requests answered: $(tail -1 "$tmp/framing" | cut -d' ' -f2) (should be 0)"
}

conn_flood() {
  local flooder=${SLOWLORIS_BIN:-$(dirname "$bin")/bench/slowloris}
  [[ -x $flooder ]] || { echo "no $flooder: build it (target slowloris) or set SLOWLORIS_BIN" >&2; exit 1; }
  echo "== conn_flood: 2,500 connections from 50 addresses (127.0.0.10-59) that never finish" \
    "their headers, re-opened when closed; 40 requests from 127.0.0.2 meanwhile" \
    "(load average $(cut -d' ' -f1-3 /proc/loadavg))"
  plain_serve conn_flood
  curl -sf -o /dev/null "http://$PLAIN/api/health" # the pool's first connection
  ulimit -n 8192
  "$flooder" "$PLAIN" --sources 127.0.0.10-127.0.0.59 --per-source 50 --seconds 30 --reopen \
    >"$tmp/conn_flood.flood" &
  local flood=$!
  pids+=("$flood")
  sleep 3
  local failed=0 worst=0 codes=()
  for _ in $(seq 40); do
    local out code ms
    out=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 5 --interface 127.0.0.2 \
      "http://$PLAIN/api/health" || true)
    code=${out% *}
    ms=$(awk '{print int($2 * 1000)}' <<<"$out")
    [[ $code == 200 ]] || failed=$((failed + 1))
    ((ms > worst)) && worst=$ms
    codes+=("$code")
    sleep 0.5
  done
  wait "$flood" 2>/dev/null || true
  cat "$tmp/conn_flood.flood"
  echo "answers to 127.0.0.2, in order: ${codes[*]}"
  echo "requests from 127.0.0.2 that failed during the flood: $failed of 40 (should be 0);" \
    "worst answer $worst ms; $(grep -c 'every connection taken' "$tmp/conn_flood.err" || true) log lines on connections given way"
}

echo "sitescout reliability bench, $(date -u +%FT%TZ), $(nproc) cores, $(git -C "$top" rev-parse --short HEAD)"
for s in "${sections[@]}"; do "$s"; done
