#!/usr/bin/env bash
# PostgreSQL going away under a crawl (issue 16). A short outage (within the store's 30 s
# of reconnecting) is ridden out: a transaction the lost connection rolled back is run
# again, and the job ends with counts equal to its rows; so is a crash. A longer one
# (here: beyond a wait shortened to 2 s by SITESCOUT_DB_WAIT_SECONDS) ends the run with a
# message that says how to go on, and the job says why it stands still (its error) and
# holds no lease, so the next runner resumes it at once and clears the note.
source "$(dirname "$0")/../integration/lib.sh"
make_scratch
start_private_pg
start_replay "$SCRATCH/access.log" --warc "$SRC/demo/demo.warc.gz"

job_q() { psql_q "select $2 from jobs where id = $1"; }
# crawl_in_background OUT: a crawl of about a minute; sets CRAWL_PID and JOB.
crawl_in_background() { # DB_WAIT: SITESCOUT_DB_WAIT_SECONDS for the crawl
  SITESCOUT_DB_WAIT_SECONDS=${DB_WAIT:-30} "$BIN" crawl --db "$DB_URL" --job "$SRC/demo/demo.jobs.json" --topic sci.space \
    --proxy "$PROXY" --set politeness_delay_ms=300 --set concurrency=4 --set max_pages=400 \
    >"$1" 2>&1 &
  CRAWL_PID=$!
  at_exit "kill -9 $CRAWL_PID"
  JOB=""
  for _ in $(seq 1200); do
    JOB=$(psql_q "select max(id) from jobs where state = 'crawling'")
    [[ -n $JOB ]] && (($(job_q "$JOB" sites_examined) >= 3)) && return 0
    sleep 0.1
  done
  fail "the crawl did not get going: $(cat "$1")"
}
pg() { "$BIN" db --data-dir "$PGDIR" "$1" >/dev/null; }

# --- a 5 s outage mid-crawl: ridden out. (The wait is 60 s, not the default 30, for a
# loaded machine: stopping and starting PostgreSQL takes part of it.)
DB_WAIT=60 crawl_in_background "$SCRATCH/crawl1.out"
pg stop
sleep 5
pg start
rc=0
wait "$CRAWL_PID" || rc=$?
assert_eq 0 "$rc" "a crawl rides out a 5 s database outage"
assert_eq "done max_pages" "$(job_q "$JOB" "state || ' ' || stop_reason")" "... and ends by its budget"
assert_eq "" "$(job_q "$JOB" "coalesce(error, '')")" "... without an error"
assert_job_counts "$JOB" "job $JOB"

# --- a crash (immediate stop: the sessions end without a word), back 2 s later: ridden out
DB_WAIT=60 crawl_in_background "$SCRATCH/crawl_crash.out"
pg_crash "$PGDIR"
sleep 2
pg start
rc=0
wait "$CRAWL_PID" || rc=$?
((rc == 0)) || fail "a PostgreSQL crash ended the crawl: $(grep -v '^ ' "$SCRATCH/crawl_crash.out" | tail -3)"
ok "a crawl rides out a PostgreSQL crash"
assert_eq "done max_pages" "$(job_q "$JOB" "state || ' ' || stop_reason")" "... and ends by its budget"
assert_job_counts "$JOB" "job $JOB"

# --- a 20 s outage, ten times the wait: the run ends, the job says why and is resumed
# (the note waits a minute for the database). Each statement the crawl can do without
# (a poll, a metrics row) waits 2 s and lets it go on, so it is the first website it
# stores within the outage that ends the run: far shorter than 20 s, loaded or not.
DB_WAIT=2
crawl_in_background "$SCRATCH/crawl2.out"
pg stop
sleep 20
pg start
rc=0
wait "$CRAWL_PID" || rc=$?
assert_eq 1 "$rc" "a crawl gives up on a database away for longer than it waits"
assert_contains "$(cat "$SCRATCH/crawl2.out")" "sitescout crawl --resume $JOB" \
  "... saying how the job goes on"
assert_eq crawling "$(job_q "$JOB" state)" "the job keeps its state"
assert_contains "$(job_q "$JOB" error)" "interrupted, to be resumed" "... says why it stands still"
assert_eq "" "$(job_q "$JOB" "coalesce(worker, '')")" "... and holds no lease"
"$BIN" crawl --db "$DB_URL" --resume "$JOB" --proxy "$PROXY" >"$SCRATCH/resume.out" 2>&1 ||
  fail "the resume failed: $(cat "$SCRATCH/resume.out")"
assert_eq "done max_pages" "$(job_q "$JOB" "state || ' ' || stop_reason")" "resumed, the job ends by its budget"
assert_eq "" "$(job_q "$JOB" "coalesce(error, '')")" "... and the note is gone"
assert_job_counts "$JOB" "job $JOB"
