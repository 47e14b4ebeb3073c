#!/usr/bin/env bash
# PostgreSQL going away under a crawl (issue 16). A short outage (within the store's 30 s
# of reconnecting) is ridden out: a transaction the lost connection rolled back is run
# again, and the job ends with counts equal to its rows; so is a crash. A longer one (here: beyond a
# wait shortened to 5 s by SITESCOUT_DB_WAIT_SECONDS) ends the run with a message that
# says how to go on, and the job says why it stands still (its error) and holds no
# lease, so the next runner resumes it at once and clears the note.
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
# consistent JOB: the job's counters equal its rows, nothing is left claimed.
consistent() {
  local counted="job_id = $1 and role not in ('train', 'train_other') and state = 'examined'"
  assert_eq "$(psql_q "select count(*) from sites where $counted")" "$(job_q "$1" sites_examined)" \
    "job $1: examined websites counted once each"
  assert_eq "$(psql_q "select count(*) from sites where $counted and relevant")" \
    "$(job_q "$1" relevant_found)" "job $1: relevant websites counted once each"
  assert_eq 0 "$(psql_q "select count(*) from sites where job_id = $1 and state = 'claimed'")" \
    "job $1: no website left claimed"
}

# --- a 5 s outage mid-crawl: ridden out
crawl_in_background "$SCRATCH/crawl1.out"
pg stop
sleep 5
pg start
rc=0
wait "$CRAWL_PID" || rc=$?
assert_eq 0 "$rc" "a crawl rides out a 5 s database outage"
assert_eq "done max_pages" "$(job_q "$JOB" "state || ' ' || stop_reason")" "... and ends by its budget"
assert_eq "" "$(job_q "$JOB" "coalesce(error, '')")" "... without an error"
consistent "$JOB"

# --- a crash (immediate stop: the sessions end without a word), back 2 s later: ridden out
crawl_in_background "$SCRATCH/crawl_crash.out"
pg_ctl=$(ls /usr/lib/postgresql/*/bin/pg_ctl | sort -V | tail -1)
if [[ $(id -u) == 0 ]]; then
  runuser -u postgres -- "$pg_ctl" -D "$PGDIR/data" -m immediate stop >/dev/null
else
  "$pg_ctl" -D "$PGDIR/data" -m immediate stop >/dev/null
fi
sleep 2
pg start
rc=0
wait "$CRAWL_PID" || rc=$?
((rc == 0)) || fail "a PostgreSQL crash ended the crawl: $(grep -v '^ ' "$SCRATCH/crawl_crash.out" | tail -3)"
ok "a crawl rides out a PostgreSQL crash"
assert_eq "done max_pages" "$(job_q "$JOB" "state || ' ' || stop_reason")" "... and ends by its budget"
consistent "$JOB"

# --- a 15 s outage, three times the wait: the run ends, the job says why and is resumed
# (the note waits for the database three times as long again)
DB_WAIT=5
crawl_in_background "$SCRATCH/crawl2.out"
pg stop
sleep 15
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
consistent "$JOB"
