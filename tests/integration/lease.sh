#!/usr/bin/env bash
# Job leases (issues 15 and 16): a live runner is never pushed out, neither by a second
# `crawl --resume` nor by a `serve` on the same database; a dead one is taken over at
# once and its job finishes within its budget; two servers never run one job twice.
source "$(dirname "$0")/lib.sh"
make_scratch
start_private_pg
start_replay "$SCRATCH/access.log" --warc "$SRC/demo/demo.warc.gz"
export SITESCOUT_LEASE_SECONDS=5 # short, so that "beyond a lease" is quick to wait for
export SITESCOUT_LOG=info        # the servers say which job each worker runs

# --- a live crawl keeps its job. A second between a website's pages keeps it crawling for
# about a minute (4 websites at a time, 200 pages), however slowly this script's own
# steps run on a loaded machine; 3 training pages a website keep training short.
"$BIN" crawl --db "$DB_URL" --job "$SRC/demo/demo.jobs.json" --topic sci.space \
  --proxy "$PROXY" --set politeness_delay_ms=1000 --set concurrency=4 --set max_pages=200 \
  --set train_pages_per_site=3 >"$SCRATCH/crawl.out" 2>&1 &
crawl_pid=$!
at_exit "kill -9 $crawl_pid"
job=""
for _ in $(seq 1200); do
  job=$(psql_q "select max(id) from jobs")
  [[ -n $job ]] && [[ $(psql_q "select sites_examined from jobs where id = $job") -ge 2 ]] && break
  sleep 0.1
done
[[ $(psql_q "select state from jobs where id = $job") == crawling ]] ||
  fail "the crawl did not get going: $(cat "$SCRATCH/crawl.out")"
assert_contains "$(psql_q "select worker from jobs where id = $job")" ":$crawl_pid" \
  "the crawl holds its job's lease under its own name"

out=$("$BIN" crawl --db "$DB_URL" --resume "$job" --proxy "$PROXY" 2>&1) &&
  fail "a second runner took a live job: $out"
assert_contains "$out" "job $job is being run by" "a second crawl --resume is refused ..."
assert_contains "$out" ":$crawl_pid" "... naming the live runner"

start_serve "$SCRATCH/serve1.out" --workers 2
serve1=$SERVE_PID
api1=$API
sleep $((SITESCOUT_LEASE_SECONDS + 3)) # beyond a lease: only the heartbeats keep it
[[ $(psql_q "select state from jobs where id = $job") == crawling ]] ||
  fail "the crawl ended before the check could be made; make it longer"
grep -q "runs job $job\$" "$SCRATCH/serve1.out.err" &&
  fail "serve took job $job from a live crawl: $(cat "$SCRATCH/serve1.out.err")"
ok "a server on the same database leaves a live crawl's job alone, beyond a lease"
assert_contains "$(psql_q "select worker from jobs where id = $job")" ":$crawl_pid" \
  "... and the lease is still the crawl's"

# --- the crawl dies: the server takes the job over at once and finishes it
kill -9 "$crawl_pid"
wait "$crawl_pid" 2>/dev/null || true
for _ in $(seq 1800); do
  [[ $(psql_q "select state from jobs where id = $job") == done ]] && break
  sleep 0.1
done
assert_eq done "$(psql_q "select state from jobs where id = $job")" \
  "the server took the dead crawl's job over and finished it"
assert_eq 1 "$(grep -c "runs job $job\$" "$SCRATCH/serve1.out.err")" "... once"
[[ $(psql_q "select pages_downloaded from jobs where id = $job") -le 200 ]] ||
  fail "the budget did not hold across the takeover"
ok "the budget held across the takeover"
wait_no_lease "$job"
assert_eq "" "$(psql_q "select worker from jobs where id = $job")" "a finished job holds no lease"

# --- two servers, one job: exactly one runs it
start_serve "$SCRATCH/serve2.out" --workers 2
job_body 0 8 "$SCRATCH/job.json" 150
API=$api1
code=$(curl -s -o "$SCRATCH/body" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  --data-binary "@$SCRATCH/job.json" "$API/api/jobs")
assert_eq 201 "$code" "a job posted to the first server"
job2=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['id'])" "$SCRATCH/body")
for _ in $(seq 1800); do
  [[ $(psql_q "select state from jobs where id = $job2") == done ]] && break
  sleep 0.1
done
assert_eq done "$(psql_q "select state from jobs where id = $job2")" "the job ran to the end"
assert_eq 1 "$(cat "$SCRATCH/serve1.out.err" "$SCRATCH/serve2.out.err" | grep -c "runs job $job2\$")" \
  "one worker of the two servers ran it"
assert_eq 0 "$(psql_q "select count(*) from (select pages, lag(pages) over (order by id) as prev
  from metrics where job_id = $job2) m where pages < prev")" \
  "its metrics are one series (pages never go back)"
[[ $(psql_q "select pages_downloaded from jobs where id = $job2") -le 150 ]] ||
  fail "the budget did not hold with two servers"
ok "the budget held with two servers"
kill -TERM "$serve1" "$SERVE_PID"
wait "$serve1" "$SERVE_PID" 2>/dev/null || true
stop_replay
