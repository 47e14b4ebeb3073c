#!/usr/bin/env bash
# PostgreSQL crashing under a crawl's claims (issue 29): four immediate stops, each back
# 2 s later, while eight websites are examined at once. The embedded cluster runs with
# synchronous_commit = off, so a crash can lose a website's acknowledged examination and
# leave it claimed by a runner that is done with it; a claim sent again after a lost
# reply can claim websites twice. Either used to leave a website claimed for ever (the
# crawl then waited at its budget's end until Ctrl-C) and fetched but never judged.
# After the crawl: it ended by itself, no website is left claimed, every website it
# fetched pages of is examined or failed, and the job's counters equal its rows.
source "$(dirname "$0")/../integration/lib.sh"
make_scratch
start_private_pg
start_replay "$SCRATCH/access.log" --warc "$SRC/demo/demo.warc.gz"

BUDGET=500
pages() { psql_q "select pages_downloaded from jobs where id = $JOB" 2>/dev/null || echo 0; }
crash() {
  pg_crash "$PGDIR"
  sleep 2
  "$BIN" db --data-dir "$PGDIR" start >/dev/null
}

SITESCOUT_DB_WAIT_SECONDS=60 "$BIN" crawl --db "$DB_URL" --job "$SRC/demo/demo.jobs.json" \
  --topic sci.space --proxy "$PROXY" --set politeness_delay_ms=100 --set concurrency=8 \
  --set max_pages=$BUDGET >"$SCRATCH/crawl.out" 2>&1 &
CRAWL_PID=$!
at_exit "kill -9 $CRAWL_PID"
JOB=""
for _ in $(seq 1200); do
  JOB=$(psql_q "select max(id) from jobs where state = 'crawling'")
  [[ -n $JOB ]] && break
  sleep 0.1
done
[[ -n $JOB ]] || fail "the crawl did not start crawling: $(tail -3 "$SCRATCH/crawl.out")"
crashes=0
for k in 1 2 3 4; do # at 1/5 .. 4/5 of the budget, while it examines websites
  for _ in $(seq 1200); do
    kill -0 "$CRAWL_PID" 2>/dev/null || break
    (($(pages) >= BUDGET * k / 5)) && break
    sleep 0.1
  done
  kill -0 "$CRAWL_PID" 2>/dev/null || break
  crash
  crashes=$((crashes + 1))
done
((crashes >= 3)) || fail "the crawl ended before its third crash: $(tail -3 "$SCRATCH/crawl.out")"
ok "PostgreSQL crashed $crashes times under the crawl"

# The crawl ends by itself: 120 s after the last crash, a crawl of a few seconds' work left.
for _ in $(seq 1200); do
  kill -0 "$CRAWL_PID" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$CRAWL_PID" 2>/dev/null; then
  fail "the crawl did not end within 120 s of the last crash (pages $(pages)," \
    "$(psql_q "select count(*) from sites where job_id = $JOB and state = 'claimed'") websites claimed)"
fi
rc=0
wait "$CRAWL_PID" || rc=$?
((rc == 0)) || fail "the crashes ended the crawl: $(grep -v '^ ' "$SCRATCH/crawl.out" | tail -3)"
ok "the crawl ended by itself"
assert_eq "done max_pages" "$(psql_q "select state || ' ' || stop_reason from jobs where id = $JOB")" \
  "... by its budget"
assert_job_counts "$JOB" "job $JOB"

# Every website it fetched pages of (robots.txt aside) was judged: examined, or failed.
fetched=$(python3 -c '
import json, sys, urllib.parse
hosts = set()
for line in open(sys.argv[1]):
    u = urllib.parse.urlsplit(json.loads(line)["url"])
    if u.path != "/robots.txt" and u.hostname:
        hosts.add(u.hostname)
print("{" + ",".join(sorted(hosts)) + "}")' "$SCRATCH/access.log")
unjudged=$(psql_q "select coalesce(string_agg(h || ' (' || coalesce((select state from sites s
  where s.job_id = $JOB and s.host = h), 'unknown') || ')', ' '), '') from unnest('$fetched'::text[]) h
  where not exists (select 1 from sites s where s.job_id = $JOB and s.host = h
  and s.state in ('examined', 'failed'))")
assert_eq "" "$unjudged" "every website fetched was judged"
crawled="job_id = $JOB and role not in ('train', 'train_other')"
assert_eq "$(psql_q "select coalesce(sum(pages_visited), 0) from sites where $crawled")" "$(pages)" \
  "pages_downloaded is the websites' pages, each counted once"
