#!/usr/bin/env bash
# A shared job's lead killed with -9 (issue 29, item 1). `serve --workers 0`; worker A
# (--jobs 4) leads a job of the dev web, worker B (--jobs 1) helps. A is killed mid-crawl;
# once B has found it gone (its row dropped), worker C starts and takes the lead. The job
# must go on to its budget: it may end with stop reason max_pages only when the pages
# counted in PostgreSQL are within a website's worth of max_pages (B's allowance goes back
# to the pool, and the new lead waits while others hold pages). Every fetch made is
# counted in jobs.requests, pages fetched again after the kill included (item 8).
# bench/reliability.sh (section lead_death) runs it N times and counts the early ends.
source "$(dirname "$0")/../integration/lib.sh"
make_scratch
start_private_pg
WEB=$SHARED/webs
start_replay "$SCRATCH/access.log" --warc "$WEB/dev.warc.gz"
export SITESCOUT_LEASE_SECONDS=4
export SITESCOUT_LOG=info
BUDGET=${LEAD_DEATH_BUDGET:-1500}
python3 - "$WEB/dev.jobs.json" "$BUDGET" >"$SCRATCH/job.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["sci.space"]
d["params"] = {"politeness_delay_ms": 100, "concurrency": 4, "max_pages": int(sys.argv[2])}
json.dump(d, open("/dev/stdout", "w"))
PY
job_q() { psql_q "select $2 from jobs where id = $1"; }
worker() { # worker NAME JOBS: started in the background; sets WPID
  "$BIN" worker --db "$DB_URL" --proxy "$PROXY" --jobs "$2" >"$SCRATCH/$1.out" 2>"$SCRATCH/$1.err" &
  WPID=$!
  at_exit "kill -9 $WPID"
  for _ in $(seq 600); do grep -q '^working' "$SCRATCH/$1.out" && return; sleep 0.05; done
  fail "worker $1 did not start: $(cat "$SCRATCH/$1.err")"
}
# wait_for WHAT SQL: poll until the SQL answers t (deadline 120 s)
wait_for() {
  for _ in $(seq 1200); do
    [[ $(psql_q "$2") == t ]] && return
    sleep 0.1
  done
  fail "waited 120 s for $1"
}

start_serve "$SCRATCH/serve.out" --workers 0
worker a 4
a=$WPID
code=$(curl -s -o "$SCRATCH/body" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  --data-binary "@$SCRATCH/job.json" "$API/api/jobs")
assert_eq 201 "$code" "a job posted to the server"
job=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['id'])" "$SCRATCH/body")
wait_for "worker A to crawl the job" "select state = 'crawling' and worker like '%:$a:%'
  from jobs where id = $job"
worker b 1
wait_for "worker B to help" "select count(*) = 2 from job_workers where job_id = $job"
ok "A leads, B helps"
wait_for "a third of the budget" "select pages_downloaded >= $((BUDGET / 3)) or state <> 'crawling'
  from jobs where id = $job"
assert_eq crawling "$(job_q "$job" state)" "the job crawls at a third of its budget"
kill -9 "$a"
wait "$a" 2>/dev/null || true
at=$(job_q "$job" pages_downloaded)
ok "lead A killed with -9 at $at pages"
# B sees A's row go (its process is gone) and, alone, renews its allowance at its next
# polls (its heartbeat, renewed about once a second, shows it ran on); then C comes.
wait_for "A's row to go" "select count(*) = 0 from job_workers where job_id = $job
  and worker like '%:$a:%'"
t0=$(psql_q "select now()")
wait_for "B to run on for 3 s alone" "select bool_and(heartbeat_at > '$t0'::timestamptz + interval '3 s')
  from job_workers where job_id = $job"
echo "# B holds $(psql_q "select allowance from job_workers where job_id = $job") pages of" \
  "$((BUDGET - $(job_q "$job" pages_downloaded))) left"
worker c 1
wait_for "the job to end" "select state in ('done', 'failed', 'paused') from jobs where id = $job"
read -r state why pages requests < <(psql_q "select state, coalesce(stop_reason, '-'),
  pages_downloaded, requests from jobs where id = $job" | tr '|' ' ')
echo "# ended: $state ($why) at $pages pages, $requests requests (killed at $at)"
assert_eq done "$state" "the job ran to its end"
# A website's worth: what one website may take to be decided (crawler/extcrawl.c).
cap=$(psql_q "select least(coalesce(nullif((params->>'max_pages_to_decide')::int, 0), 1000000),
  (params->>'max_pages_per_site')::int) from jobs where id = $job")
if [[ $why == max_pages ]]; then
  ((pages + cap >= BUDGET)) ||
    fail "the job ended early on its budget: $pages pages of $BUDGET (a website: $cap pages)"
  ok "it ended on its budget with $pages pages counted of $BUDGET"
else
  [[ $why == border_empty ]] || fail "the job ended on $why"
  ok "it ended on an empty border"
fi
assert_job_counts "$job" "a lead killed, a new one"
[[ $pages -le $BUDGET ]] || fail "the budget did not hold: $pages pages"
ok "the budget held ($pages pages for $BUDGET)"
# Every fetch counted (item 8): the crawl's requests the replay answered (robots.txt,
# training websites and followed redirects aside: each fetch ends in one such line) are
# all in jobs.requests, those of the websites A had in flight, fetched again, included;
# pages_downloaded leaves those out.
psql_q "select host from sites where job_id = $job and role in ('train', 'train_other')" \
  >"$SCRATCH/train.hosts"
answered=$(python3 - "$SCRATCH/access.log" "$SCRATCH/train.hosts" <<'PY'
import json, sys, urllib.parse
train = set(open(sys.argv[2]).read().split())
n = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    u = urllib.parse.urlsplit(r["url"])
    n += u.path != "/robots.txt" and u.hostname not in train and not 300 <= r["status"] < 400
print(n)
PY
)
((requests >= answered)) ||
  fail "requests counted ($requests) fewer than the crawl's requests answered ($answered)"
ok "every fetch counted: $requests requests, $answered answered by the web, $pages pages recorded"
