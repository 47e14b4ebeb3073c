#!/usr/bin/env bash
# A run whose first websites are all dead hosts does not pause its job while another run
# of the same process is getting answers (issue 33): the network and the proxy work, so
# its dead websites are recorded failed and the job goes on. (Seen in the deployment
# test: a helper that took a shared job over met a cluster of dead hosts at the top of
# its border and paused the job with "no website answered", where nobody resumed it.)
# Alone, such a run still stops with that message and leaves its border whole
# (crawl.sh, issue 28).
source "$(dirname "$0")/lib.sh"
make_scratch
start_private_pg
start_replay "$SCRATCH/access.log" --warc "$SRC/demo/demo.warc.gz"
export SITESCOUT_LOG=info
start_serve "$SCRATCH/serve.out" --workers 2

post() { # post BODY_FILE: the new job's id
  local code
  code=$(curl -s -o "$SCRATCH/posted" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    --data-binary "@$1" "$API/api/jobs")
  [[ $code == 201 ]] || fail "POST /api/jobs: $code $(cat "$SCRATCH/posted")"
  python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['id'])" "$SCRATCH/posted"
}

# A: the demo job, slowly (a second between a website's pages), answering for minutes.
job_body 1000 4 "$SCRATCH/a.json" 400 3
a=$(post "$SCRATCH/a.json")
for _ in $(seq 1200); do
  [[ $(psql_q "select sites_examined from jobs where id = $a") -ge 1 ]] && break
  sleep 0.1
done
[[ $(psql_q "select state from jobs where id = $a") == crawling ]] ||
  fail "job A is not crawling: $(psql_q "select state || ' ' || coalesce(error, '') from jobs where id = $a")"
ok "job A crawls: its websites answer"

# B: the same job whose 10 start sites (ranked above every other website) are hosts the
# web does not have: its first claims all fail at the network level.
python3 - "$SCRATCH/a.json" >"$SCRATCH/b.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["start_sites"] = ["http://dead%d.sitescout-missing.org/" % i for i in range(10)]
d["params"]["politeness_delay_ms"] = 0
json.dump(d, open("/dev/stdout", "w"))
PY
b=$(post "$SCRATCH/b.json")
dead="job_id = $b and host like 'dead%.sitescout-missing.org'"
for _ in $(seq 1200); do
  [[ $(psql_q "select state from jobs where id = $b") == paused ]] && break
  [[ $(psql_q "select count(*) from sites where $dead and state = 'failed'") == 10 ]] && break
  sleep 0.1
done
state=$(psql_q "select state || ' ' || coalesce(error, '') from jobs where id = $b")
[[ $state == "crawling " || $state == "done " ]] || fail "job B should crawl on beside A: $state"
ok "job B crawls on beside A, not paused ($state)"
assert_eq "10 dns" "$(psql_q "select count(*) || ' ' || string_agg(distinct error, ',')
  from sites where $dead and state = 'failed'")" "... its dead start sites failed (dns)"
[[ $(psql_q "select state from jobs where id = $a") == crawling ]] || fail "job A stopped"
ok "job A crawls on"
