#!/usr/bin/env bash
# Page-level crawls resumed (issues 8 and 18): a page crawl killed with -9 resumes with
# nothing stored twice and its verdicts kept; a weight_table crawl paused once it crawls
# resumes with the table it trained, read back rather than trained again. (Split from
# strategies.sh, which runs every strategy once.)
source "$(dirname "$0")/lib.sh"
make_scratch
start_private_pg
WARC=$SRC/demo/demo.warc.gz
JOBS=$SRC/demo/demo.jobs.json
crawl() { "$BIN" crawl --db "$DB_URL" "$@"; }

# --- a page crawl killed with -9 resumes: nothing stored twice, the verdicts kept
start_replay "$SCRATCH/access.log" --warc "$WARC"
"$BIN" crawl --db "$DB_URL" --job "$JOBS" --topic sci.space --proxy "$PROXY" \
  --set strategy=page --set politeness_delay_ms=100 --set concurrency=8 \
  --set max_pages=500 >"$SCRATCH/kill.out" 2>&1 &
pid=$!
job=""
for _ in $(seq 900); do
  job=$(psql_q "select max(id) from jobs")
  [[ -n $job ]] &&
    [[ $(psql_q "select sites_examined from jobs where id = $job") -ge 5 ]] && break
  sleep 0.1
done
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
before=$(psql_q "select sites_examined from jobs where id = $job")
[[ $before -ge 5 ]] || fail "kill -9 did not hit mid-crawl ($before sites examined)"
crawl --resume "$job" --proxy "$PROXY" >"$SCRATCH/resume.out" 2>&1 ||
  fail "resume failed: $(cat "$SCRATCH/resume.out")"
assert_eq done "$(psql_q "select state from jobs where id = $job")" "a killed page crawl resumes to the end"
after=$(psql_q "select sites_examined from jobs where id = $job")
[[ $after -ge $before ]] || fail "resume lost verdicts ($before -> $after)"
ok "resume kept the $before verdicts and went on to $after"
assert_eq 0 "$(psql_q "select count(*) from (select url from pages where job_id = $job
  and purpose = 'crawl' group by url having count(*) > 1) d")" "no page was stored twice ($(psql_q "
  select string_agg(url || ' ' || coalesce(error, 'ok') || ' ' || fetched_at, ', ') from pages where job_id = $job and url in
  (select url from pages where job_id = $job group by url having count(*) > 1)"))"

# --- a weight_table crawl paused once it crawls (as POST /api/jobs/ID/pause asks) resumes
# with the table it trained, read back from models, not a new one. The politeness delay
# (2 s a website) keeps the crawl going for many seconds; the pause is seen within one.
SITESCOUT_LOG=info "$BIN" crawl --db "$DB_URL" --job "$JOBS" --topic sci.space --proxy "$PROXY" \
  --set strategy=weight_table --set politeness_delay_ms=300 --set concurrency=8 \
  --set max_pages=500 >"$SCRATCH/pause_wt.out" 2>&1 &
pid=$!
wjob=""
for _ in $(seq 1200); do
  wjob=$(psql_q "select max(id) from jobs where params->>'strategy' = 'weight_table'")
  [[ -n $wjob && $(psql_q "select state from jobs where id = $wjob") == crawling ]] && break
  sleep 0.1
done
psql_q "update jobs set stop_requested = 'pause' where id = $wjob" >/dev/null
wait "$pid" || fail "the paused weight_table crawl failed: $(cat "$SCRATCH/pause_wt.out")"
assert_eq paused "$(psql_q "select state from jobs where id = $wjob")" "weight_table: the crawl pauses"
SITESCOUT_LOG=info crawl --resume "$wjob" --proxy "$PROXY" \
  >"$SCRATCH/resume_wt.out" 2>&1 || fail "weight_table resume failed: $(cat "$SCRATCH/resume_wt.out")"
assert_eq done "$(psql_q "select state from jobs where id = $wjob")" "a paused weight_table crawl resumes to the end"
trained=$(grep -o "topic weight table (TF-IDF, stemmed): .*" "$SCRATCH/pause_wt.out" || true)
resumed=$(grep -o "topic weight table (TF-IDF, stemmed): .*" "$SCRATCH/resume_wt.out" || true)
[[ -n $trained ]] || fail "weight_table: no table in the first run's log: $(cat "$SCRATCH/pause_wt.out")"
assert_eq "$trained" "$resumed" "the resumed weight_table crawl uses the table it trained"
assert_eq 1 "$(psql_q "select count(*) from models where job_id = $wjob and kind = 'weighttable'")" \
  "... read back, not trained again"
stop_replay
