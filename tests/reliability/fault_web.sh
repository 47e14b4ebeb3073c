#!/usr/bin/env bash
# A faulty web (issue 16): with a fifth of the answers 5xx and a fifth of the bodies cut
# by a reset, robots.txt included, a crawl trains and spends its budget instead of
# stalling for minutes on back-offs (it stalled 21 minutes before robots.txt failures
# were bounded per site), and ends with every count equal to what it stored.
# Issue 29: an error answer is asked again (after a back-off) and never read as content:
# no 5xx page is classified, and nearly every URL answered 5xx was asked again.
# bench/reliability.sh measures the same on the dev web against a clean run.
source "$(dirname "$0")/../integration/lib.sh"
make_scratch
start_private_pg
start_replay "$SCRATCH/access.log" --warc "$SRC/demo/demo.warc.gz" \
  --error-rate 0.2 --reset-rate 0.2 --latency-ms 20

# Well beyond what the crawl takes under load (about 30 s under the sanitizers); the
# old back-offs of 1, 4 and 16 minutes made it more than five.
rc=0
SITESCOUT_LOG=info timeout 240 "$BIN" crawl --db "$DB_URL" --job "$SRC/demo/demo.jobs.json" \
  --topic sci.space --proxy "$PROXY" --set politeness_delay_ms=0 --set concurrency=8 \
  --set max_pages=200 >"$SCRATCH/crawl.out" 2>"$SCRATCH/crawl.err" || rc=$?
((rc != 124)) || fail "the crawl did not finish within 240 s on the faulty web"
assert_eq 0 "$rc" "a crawl on a web with 20% errors and 20% resets finishes"
job=$(psql_q "select max(id) from jobs")
assert_eq done "$(psql_q "select state from jobs where id = $job")" "... and its job is done"
assert_contains "max_pages border_empty" "$(psql_q "select stop_reason from jobs where id = $job")" \
  "... by its budget or an empty border"
(($(psql_q "select sites_examined from jobs where id = $job") >= 10)) ||
  fail "too few websites examined: $(psql_q "select sites_examined from jobs where id = $job")"
ok "... having examined websites despite the faults"
assert_job_counts "$job" "the faulty web's job"
(($(psql_q "select pages_downloaded from jobs where id = $job") <= 200)) ||
  fail "the budget did not hold: $(psql_q "select pages_downloaded from jobs where id = $job")"
ok "the page budget held"
errors=$(grep -c '"status": 5' "$SCRATCH/access.log" || true)
((errors > 10)) || fail "the replay injected only $errors errors: the test proves nothing"
ok "the replay injected $errors 5xx answers"
assert_eq 0 "$(psql_q "select count(*) from pages where status >= 500 and pr_target is not null")" \
  "no page answered 5xx was classified"
# The replay's injected errors on pages (robots.txt has its own policy): was each URL
# asked again? Before issue 29 only 1-2% were (the same URL reached twice).
read -r failed asked < <(python3 - "$SCRATCH/access.log" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
failed, asked = set(), set()
for i, r in enumerate(reqs):
    if "error" in r.get("fault", "") and not r["url"].endswith("/robots.txt"):
        failed.add(r["url"])
        if any(q["url"] == r["url"] and q["ts"] > r["ts"] for q in reqs[i + 1:]):
            asked.add(r["url"])
print(len(failed), len(asked))
PY
)
((failed > 10)) || fail "only $failed page URLs answered an injected 5xx: the test proves nothing"
((asked * 10 >= failed * 8)) || fail "only $asked of $failed URLs answered 5xx were asked again"
ok "$asked of $failed URLs answered 5xx were asked again"
