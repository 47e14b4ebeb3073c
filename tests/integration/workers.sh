#!/usr/bin/env bash
# Scale-out (issue 15): `serve --workers 0` serves the API alone and three `sitescout
# worker` processes run a job of the dev web together: one leads it, the others help
# (store/jobteam.h). A helper killed with -9 mid-job loses nothing: its websites go back
# to the border once its lease runs out and are examined by the others; the job ends
# with every counter equal to its rows, no website examined twice, no page stored twice,
# one series of metrics, its page budget held, and about the relevant websites a single
# process finds.
source "$(dirname "$0")/lib.sh"
make_scratch
start_private_pg
WEB=$SHARED/webs
start_replay "$SCRATCH/access.log" --warc "$WEB/dev.warc.gz"
export SITESCOUT_LEASE_SECONDS=4 # a killed worker's websites come back after 4 s
export SITESCOUT_LOG=info
BUDGET=1500
python3 - "$WEB/dev.jobs.json" "$BUDGET" >"$SCRATCH/job.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["sci.space"]
d["params"] = {"politeness_delay_ms": 100, "concurrency": 4, "max_pages": int(sys.argv[2])}
json.dump(d, open("/dev/stdout", "w"))
PY

start_serve "$SCRATCH/serve.out" --workers 0
pids=()
for i in 1 2 3; do
  "$BIN" worker --db "$DB_URL" --proxy "$PROXY" --jobs 1 >"$SCRATCH/w$i.out" 2>"$SCRATCH/w$i.err" &
  pids+=($!)
  at_exit "kill -9 $!"
done
for i in 1 2 3; do
  for _ in $(seq 200); do grep -q '^working' "$SCRATCH/w$i.out" && break; sleep 0.05; done
  grep -q '^working' "$SCRATCH/w$i.out" || fail "worker $i did not start: $(cat "$SCRATCH/w$i.err")"
done
ok "three workers run beside an API-only server"

code=$(curl -s -o "$SCRATCH/body" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  --data-binary "@$SCRATCH/job.json" "$API/api/jobs")
assert_eq 201 "$code" "a job posted to the server"
job=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['id'])" "$SCRATCH/body")

# Wait for all three on the job, then note the most runners holding websites at once.
team=0 holders=0
for _ in $(seq 1200); do
  team=$(psql_q "select count(*) from job_workers where job_id = $job")
  h=$(psql_q "select count(distinct claimed_by) from sites where job_id = $job and state = 'claimed'")
  ((h > holders)) && holders=$h
  ((team == 3 && holders >= 2)) && break
  [[ $(psql_q "select state from jobs where id = $job") == done ]] && break
  sleep 0.1
done
assert_eq 3 "$team" "the job has three runners"
assert_eq "1" "$(psql_q "select count(*) from job_workers where job_id = $job and role = 'lead'")" \
  "... one of them its lead, holding its lease"
[[ $holders -ge 2 ]] || fail "only $holders runner(s) held websites at once"
ok "$holders runners examined websites at the same time"

# A label given through the server is learnt by the job's lead, a worker (issue 31).
site=""
for _ in $(seq 600); do
  site=$(psql_q "select host from sites where job_id = $job and state = 'examined'
    and role = 'discovered' order by host limit 1")
  [[ -n $site ]] && break
  sleep 0.1
done
[[ -n $site ]] || fail "no website examined to label"
assert_eq 200 "$(curl -s -o "$SCRATCH/body" -w '%{http_code}' -X PUT -H 'Content-Type: application/json' \
  --data '{"relevant": false}' "$API/api/jobs/$job/sites/$site/label")" "a label given through the server"
for _ in $(seq 600); do
  [[ $(psql_q "select labels_changed_at = labels_judged_at from jobs where id = $job") == t ]] && break
  sleep 0.1
done
assert_eq t "$(psql_q "select labels_changed_at = labels_judged_at from jobs where id = $job")" \
  "the job's lead, a worker, learnt from the label"

# Kill a helper that holds websites; they must be examined by the others. It is stopped
# (SIGSTOP) while what it holds is read, so that it cannot finish them before the kill.
victim=""
for _ in $(seq 300); do
  victim=$(psql_q "select s.claimed_by from sites s join job_workers w
    on w.job_id = s.job_id and w.worker = s.claimed_by
    where s.job_id = $job and s.state = 'claimed' and w.role = 'helper' limit 1")
  if [[ -n $victim ]]; then
    vpid=$(cut -d: -f2 <<<"$victim")
    kill -STOP "$vpid"
    psql_q "select host from sites where job_id = $job and claimed_by = '$victim'" >"$SCRATCH/held"
    [[ -s $SCRATCH/held ]] && break
    kill -CONT "$vpid"
    victim=""
  fi
  sleep 0.05
done
[[ -n $victim ]] || fail "no helper held a website"
kill -9 "$vpid"
ok "helper $victim killed with -9 holding $(wc -l <"$SCRATCH/held") websites"

for _ in $(seq 1800); do
  [[ $(psql_q "select state from jobs where id = $job") == done ]] && break
  sleep 0.1
done
assert_eq done "$(psql_q "select state from jobs where id = $job")" "the job ran to the end"
assert_job_counts "$job" "three workers, one killed"
grep -h "runners gone went back to the border" "$SCRATCH"/w*.err >/dev/null ||
  fail "nobody gave the killed helper's websites back: $(tail -5 "$SCRATCH"/w*.err)"
ok "the killed helper's websites went back to the border"
left=$(while read -r host; do
  psql_q "select state from sites where job_id = $job and host = '$host'"
done <"$SCRATCH/held" | sort | uniq -c | tr -s ' \n' ' ')
[[ $left != *claimed* ]] || fail "its websites stayed claimed: $left"
ok "its websites were examined by others or wait on the border ($left)"
assert_eq 0 "$(psql_q "select count(*) - count(distinct url) from pages where job_id = $job")" \
  "no page stored twice"
assert_eq 0 "$(psql_q "select count(*) from (select pages, lag(pages) over (order by id) as prev
  from metrics where job_id = $job) m where pages < prev")" \
  "its metrics are one series (pages never go back)"
pages=$(psql_q "select pages_downloaded from jobs where id = $job")
# Each runner downloads only within its allowance of the budget (store/jobteam.h).
[[ $pages -le $BUDGET ]] || fail "the budget did not hold: $pages pages"
ok "the budget held ($pages pages for $BUDGET)"
# The helpers see the job done at their next poll and leave it.
for _ in $(seq 300); do
  [[ $(psql_q "select count(*) from job_workers where job_id = $job") == 0 ]] && break
  sleep 0.1
done
assert_eq 0 "$(psql_q "select count(*) from job_workers where job_id = $job")" \
  "a finished job's runners all leave it"
# The lead judges (issue 30); the helpers pick up its crawl models (issue 31).
grep -l "judged by the stored crawl model" "$SCRATCH"/w*.err >/dev/null ||
  fail "no helper picked up the lead's crawl model: $(grep -h "crawl model" "$SCRATCH"/w*.err | tail -5)"
ok "a helper judges by the crawl model the lead stored"
# ... and, the job having a website labelled not relevant, vetoes by it as the lead does.
grep -h "judged by the stored crawl model" "$SCRATCH"/w*.err |
  grep -q "vetoing those more like one of the 1 websites labelled not relevant" ||
  fail "no helper loaded the website labelled not relevant with the model: $(grep -h "stored crawl model" "$SCRATCH"/w*.err | tail -3)"
ok "a helper's model knows the website labelled not relevant, to veto by"

# The same job in one process: about as many relevant websites, as precisely.
"$BIN" crawl --db "$DB_URL" --job "$SCRATCH/job.json" --proxy "$PROXY" >"$SCRATCH/single.out" \
  2>"$SCRATCH/single.err" || fail "the single-process crawl failed: $(tail -5 "$SCRATCH/single.err")"
single=$(psql_q "select max(id) from jobs")
out=$(python3 - "$WEB/dev.sites.tsv" "$(psql_q "select string_agg(host, ' ') from relevant_websites
  where job_id = $job and role = 'discovered'")" "$(psql_q "select string_agg(host, ' ')
  from relevant_websites where job_id = $single and role = 'discovered'")" <<'PY'
import csv, sys
truth = {r["host"] for r in csv.DictReader(open(sys.argv[1]), delimiter="\t") if r["topic"] == "sci.space"}
multi, single = set(sys.argv[2].split()), set(sys.argv[3].split())
prec = lambda s: sum(h in truth for h in s) / max(len(s), 1)
print("multi %d (precision %.2f), single %d (precision %.2f)" % (len(multi), prec(multi), len(single), prec(single)))
assert len(multi) >= 0.7 * len(single), "far fewer relevant websites"
assert prec(multi) >= prec(single) - 0.1, "far less precise"
PY
) || fail "three workers against one process: $out"
ok "three workers against one process: $out"
