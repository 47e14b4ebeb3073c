#!/usr/bin/env bash
# Relevance feedback (issue 31): a user's labels on a job's websites, through the API and
# the CLI, on real jobs of the demo web (real PostgreSQL, `sitescout serve`, the replay).
# - A finished job: PUT /api/jobs/{id}/sites/{host}/label gives a website the user's
#   verdict (the view says judged_by user, the list puts it first or drops it, GET
#   /labels lists it, the CSV export says so); serve's label judge then judges the job
#   again with a crawl model that learns from the label; DELETE takes it back; a
#   labelled border website goes to the head of the border. Errors: unknown job or
#   website 404, a bad body 422, not JSON 415, an example website 422.
# - A running job (`sitescout crawl`): `sitescout label` while it crawls; the job's lead
#   judges again learning from it; killed -9 and resumed, the label and its verdict stay.
source "$(dirname "$0")/lib.sh"
make_scratch
start_private_pg
start_replay "$SCRATCH/access.log" --warc "$SRC/demo/demo.warc.gz"
start_serve "$SCRATCH/serve.out" --workers 1

req() { # req METHOD PATH [BODY [CONTENT_TYPE]]: the status; the body in $SCRATCH/body
  local args=(-s -o "$SCRATCH/body" -w '%{http_code}' -X "$1")
  [[ $# -ge 3 ]] && args+=(-H "Content-Type: ${4:-application/json}" --data-binary "$3")
  curl "${args[@]}" "$API$2"
}
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$SCRATCH/body"; }
labels_judged() { # labels_judged JOB: wait until the job learnt from its last label
  for _ in $(seq 600); do
    [[ $(psql_q "select labels_changed_at is not distinct from labels_judged_at from jobs
      where id = $1") == t ]] && return 0
    sleep 0.1
  done
  fail "job $1: labels not judged within 60 s: $(tail -5 "$SCRATCH/serve.out.err")"
}

# --- a finished job (judged from 200 pages on: the default, 500, is more than it reads)
JOB_PARAMS='{"judge_pages": 200}' job_body 0 8 "$SCRATCH/job.json" 300
req POST /api/jobs "@$SCRATCH/job.json" >/dev/null
job=$(field "d['id']")
for _ in $(seq 1200); do
  req GET "/api/jobs/$job" >/dev/null
  [[ $(field "d['state']") == done || $(field "d['state']") == failed ]] && break
  sleep 0.1
done
assert_eq done "$(field "d['state']")" "the job runs to the end ($(field "d['error']"))"
models=$(psql_q "select count(*) from models where job_id = $job and kind = 'crawl'")
[[ $models -ge 1 ]] || fail "the job was never judged by a crawl model"

assert_eq 200 "$(req GET "/api/jobs/$job/labels")" "GET labels of a job without any"
assert_eq "[]" "$(field "d['labels']")" "no label yet"

# Errors, and nothing changed by them.
assert_eq 404 "$(req PUT "/api/jobs/$job/sites/no.such.host/label" '{"relevant": true}')" \
  "a label on a website the job does not know: 404"
assert_eq not_found "$(field "d['error']['code']")" "with a JSON error"
assert_eq 404 "$(req PUT "/api/jobs/999999/sites/x.org/label" '{"relevant": true}')" \
  "a label on a job that does not exist: 404"
# (A 300-page job finds 1-5 relevant discovered websites, by the load: a relevant start
# website does as well when it finds none.)
relevant=$(psql_q "select host from relevant_websites where job_id = $job
  and role in ('discovered', 'start') order by role = 'discovered' desc, position desc limit 1")
[[ -n $relevant ]] || fail "the job found no relevant website"
assert_eq 422 "$(req PUT "/api/jobs/$job/sites/$relevant/label" '{"relevant": "yes"}')" \
  "a label that is not true or false: 422"
assert_eq relevant "$(field "d['error']['field']")" "the error names the field"
assert_eq 422 "$(req PUT "/api/jobs/$job/sites/$relevant/label" '{"relevant": true, "x": 1}')" \
  "a label with more than 'relevant': 422"
assert_eq 415 "$(req PUT "/api/jobs/$job/sites/$relevant/label" '{"relevant": true}' text/plain)" \
  "a label not sent as JSON: 415"
example=$(psql_q "select host from sites where job_id = $job and role = 'train' limit 1")
assert_eq 422 "$(req PUT "/api/jobs/$job/sites/$example/label" '{"relevant": false}')" \
  "a label on one of the job's example websites: 422"
assert_contains "$(field "d['error']['message']")" "example websites" "which says why"
assert_eq 0 "$(psql_q "select count(*) from sites where job_id = $job and label is not null")" \
  "the refused labels stored nothing"

# A relevant website labelled not relevant: out of the list at once, and the job learns.
found=$(psql_q "select relevant_found from jobs where id = $job")
links_before=$(psql_q "select coalesce(sum(weight), 0) from edges where job_id = $job and src_host = '$relevant'")
assert_eq 200 "$(req PUT "/api/jobs/$job/sites/$relevant/label" '{"relevant": false}')" \
  "PUT label: not relevant"
assert_eq "False False True $((found - 1))" \
  "$(field "d['label'], d['relevant'], d['changed'], d['relevant_found']")" \
  "the answer: the label, the verdict, that it changed, the job's relevant count"
assert_eq 0 "$(psql_q "select count(*) from relevant_websites where job_id = $job and host = '$relevant'")" \
  "the website left the relevant list"
assert_eq "$((found - 1))" "$(psql_q "select relevant_found from jobs where id = $job")" \
  "the job counts one relevant website fewer"
assert_eq t "$(psql_q "select $links_before = 0 or coalesce(sum(weight), 0) < $links_before from edges
  where job_id = $job and src_host = '$relevant'")" "its links weigh less ($links_before before)"
assert_eq 0 "$(psql_q "select count(*) from sites s where job_id = $job and state = 'border'
  and role = 'discovered' and label is null and abs(rank - weight_sum / greatest(in_sites, 1)) > 1e-9
  or abs(weight_sum - (select coalesce(sum(weight), 0) from edges e where e.job_id = $job
  and e.dst_host = s.host)) > 1e-9 and job_id = $job and state = 'border'")" \
  "the border is ranked anew: each rank the average weight of the links to it"
labels_judged "$job"
assert_eq "$((models + 1))" "$(psql_q "select count(*) from models where job_id = $job and kind = 'crawl'")" \
  "the finished job was judged again by a crawl model learning from the label"
assert_eq f "$(psql_q "select relevant from sites where job_id = $job and host = '$relevant'")" \
  "the judging kept the label's verdict"
assert_eq "$(psql_q "select count(*) from relevant_websites where job_id = $job")" \
  "$(psql_q "select relevant_found from jobs where id = $job")" \
  "judged again, the job's relevant count is the view's"

# A website judged not relevant, labelled relevant: first in the list, judged by the user.
other=$(psql_q "select host from sites where job_id = $job and state = 'examined' and not relevant
  and role = 'discovered' and label is null order by host limit 1")
[[ -n $other ]] || fail "no website judged not relevant"
assert_eq 200 "$(req PUT "/api/jobs/$job/sites/$other/label" '{"relevant": true}')" "PUT label: relevant"
assert_eq "$other user 1" "$(psql_q "select host, judged_by, position from relevant_websites
  where job_id = $job order by position limit 1" | tr '|' ' ')" \
  "the labelled website heads the relevant list, judged by the user"
assert_eq 200 "$(req GET "/api/jobs/$job/sites/$other")" "GET the labelled website"
assert_eq user "$(field "d['judged']['by']")" "its verdict says the user gave it"
curl -s "$API/api/jobs/$job/sites.csv" >"$SCRATCH/sites.csv"
python3 - "$SCRATCH/sites.csv" "$other" <<'PY' || fail "the CSV export: $(head -3 "$SCRATCH/sites.csv")"
import csv, sys
rows = {r["host"]: r for r in csv.DictReader(open(sys.argv[1]))}
assert rows[sys.argv[2]]["judged_by"] == "user", rows[sys.argv[2]]
PY
ok "the CSV export says the user judged it"
assert_eq 200 "$(req GET "/api/jobs/$job/labels")" "GET labels"
assert_eq "$other True|$relevant False" \
  "$(field "'|'.join('%s %s' % (l['host'], l['relevant']) for l in d['labels'])")" \
  "the labels, the last given first"

# Taken back: the verdict it had before, and the job judges again.
assert_eq 200 "$(req DELETE "/api/jobs/$job/sites/$other/label")" "DELETE label"
assert_eq "None False" "$(field "d['label'], d['relevant']")" "the website has its verdict before back"
assert_eq 1 "$(req GET "/api/jobs/$job/labels" >/dev/null; field "len(d['labels'])")" \
  "one label left"
labels_judged "$job"

# A border website labelled: read first.
border=$(psql_q "select host from sites where job_id = $job and state = 'border'
  order by rank, host limit 1")
if [[ -n $border ]]; then
  assert_eq 200 "$(req PUT "/api/jobs/$job/sites/$border/label" '{"relevant": true}')" \
    "PUT label on a border website"
  assert_eq 200 "$(req GET "/api/jobs/$job/border?limit=1")" "GET border"
  assert_eq "$border" "$(field "d['border'][0]['host']")" "the labelled border website is read next"
fi

# The CLI, on the finished job: it judges again at once.
out=$("$BIN" label --db "$DB_URL" --job "$job" "$relevant" clear) || fail "label clear: $out"
assert_contains "$out" "has no label" "sitescout label clear"
assert_contains "$out" "judged again" "a finished job judged again at once"
out=$("$BIN" label --db "$DB_URL" --job "$job") || fail "label list: $out"
assert_contains "$out" "$border" "sitescout label lists the labels"
out=$("$BIN" label --db "$DB_URL" --job "$job" nope.example relevant 2>&1) && fail "an unknown website: $out"
assert_contains "$out" "has no website nope.example" "an unknown website: one line, exit 1"
set +e
out=$("$BIN" label --db "$DB_URL" --job "$job" "$relevant" maybe 2>&1)
rc=$?
set -e
assert_eq 2 "$rc" "a label that is not relevant, not or clear: usage error ($out)"

# The next job on the topic, taught what this one was: GET /topic, crawl --from-job.
assert_eq 200 "$(req PUT "/api/jobs/$job/sites/$other/label" '{"relevant": false}')" "PUT label again"
assert_eq 200 "$(req GET "/api/jobs/$job/topic")" "GET topic"
python3 - "$SCRATCH/body" "$SCRATCH/job.json" "$other" <<'PY' || fail "the topic's body: $(cat "$SCRATCH/body")"
import json, sys
d, orig, other = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
assert d["topic"] == orig["topic"], d["topic"]
assert "http://%s/" % other in d["other_sites"], d["other_sites"]
assert len(d["other_sites"]) == len(orig["other_sites"]) + 1, (len(d["other_sites"]), len(orig["other_sites"]))
assert not any(other in u for u in d["relevant_sites"] + d["start_sites"])
PY
ok "the topic's body has the job's examples and its labels"
out=$("$BIN" crawl --db "$DB_URL" --from-job "$job" --proxy "$PROXY" --set max_pages=40 2>&1) ||
  fail "crawl --from-job: $out"
next=$(psql_q "select max(id) from jobs")
assert_eq t "$(psql_q "select body->'other_sites' ? 'http://$other/' from jobs where id = $next")" \
  "crawl --from-job starts a job taught the label"

# Seeds: refused for a finished job, a bad body, an example.
assert_eq 409 "$(req POST "/api/jobs/$job/seeds" '{"start_sites": ["http://x.org/"]}')" \
  "seeds for a finished job: 409"
assert_eq 422 "$(req POST "/api/jobs/$job/seeds" '{"sites": ["http://x.org/"]}')" \
  "seeds in a body that is not {start_sites: [...]}: 422"
assert_eq 404 "$(req POST /api/jobs/999999/seeds '{"start_sites": ["http://x.org/"]}')" \
  "seeds for a job that does not exist: 404"

# --- a running job: labelled while it crawls, given seeds, killed -9, resumed
JOB_PARAMS='{"judge_pages": 100}' job_body 250 2 "$SCRATCH/slow.json" 400
( exec "$BIN" crawl --db "$DB_URL" --job "$SCRATCH/slow.json" --proxy "$PROXY" ) \
  >"$SCRATCH/crawl.out" 2>&1 &
pid=$!
at_exit "kill -9 $pid"
run=""
for _ in $(seq 1200); do
  run=$(psql_q "select j.id from jobs j join sites s on s.job_id = j.id where j.id > $job
    and j.state = 'crawling' and s.role = 'discovered' and s.state = 'examined' limit 1")
  [[ -n $run ]] && break
  kill -0 $pid 2>/dev/null || fail "the crawl ended early: $(cat "$SCRATCH/crawl.out")"
  sleep 0.1
done
[[ -n $run ]] || fail "no website examined within 120 s: $(cat "$SCRATCH/crawl.out")"
site=$(psql_q "select host from sites where job_id = $run and role = 'discovered'
  and state = 'examined' order by host limit 1")
out=$("$BIN" label --db "$DB_URL" --job "$run" "$site" not) || fail "label: $out"
assert_contains "$out" "job $run runs" "labelled while the job crawls"
labels_judged "$run"
assert_eq 1 "$([[ $(psql_q "select count(*) from models where job_id = $run and kind = 'crawl'") -ge 1 ]] && echo 1)" \
  "the running job judged again, learning from the label"
example=$(psql_q "select host from sites where job_id = $run and role = 'train' limit 1")
assert_eq 422 "$(req POST "/api/jobs/$run/seeds" "{\"start_sites\": [\"http://$example/\"]}")" \
  "a seed that is one of the job's examples: 422"
seed=$(psql_q "select host from (values $(cut -f1 "$SRC/demo/demo.sites.tsv" | tail -n +2 |
  sed "s/.*/('&')/" | paste -sd,)) v(host) where not exists (select 1 from sites s
  where s.job_id = $run and s.host = v.host) order by host limit 1")
[[ -n $seed ]] || fail "no website of the demo web left to seed"
status=$(req POST "/api/jobs/$run/seeds" "{\"start_sites\": [\"http://$seed/\"]}")
assert_eq 200 "$status" "POST seeds to the running job ($(cat "$SCRATCH/body"))"
assert_eq "$seed start border" "$(field "' '.join(d['start_sites'][0][k] for k in ('host', 'role', 'state'))")" \
  "the seed joins the border as a start site"
for _ in $(seq 600); do
  [[ $(psql_q "select state from sites where job_id = $run and host = '$seed'") == examined ]] && break
  sleep 0.1
done
assert_eq examined "$(psql_q "select state from sites where job_id = $run and host = '$seed'")" \
  "the seed is examined while the job runs"
assert_eq t "$(psql_q "select body->'start_sites' ? 'http://$seed/' from jobs where id = $run")" \
  "the job's body lists the seed"
kill -9 $pid
wait $pid 2>/dev/null || true
assert_eq "f f user" "$(psql_q "select label, relevant, 'user' from sites where job_id = $run
  and host = '$site'" | tr '|' ' ')" "killed -9: the label and its verdict stay"
"$BIN" crawl --db "$DB_URL" --resume "$run" >"$SCRATCH/resumed.out" 2>&1 ||
  fail "the resume failed: $(cat "$SCRATCH/resumed.out")"
assert_eq done "$(psql_q "select state from jobs where id = $run")" "resumed, the job ends"
assert_eq "f f" "$(psql_q "select label, relevant from sites where job_id = $run
  and host = '$site'" | tr '|' ' ')" "resumed and judged at the end: the label's verdict stays"
assert_job_counts "$run" "resumed"
echo "labels.sh: $checks checks passed"
