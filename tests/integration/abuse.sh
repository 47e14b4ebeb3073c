#!/usr/bin/env bash
# sitescout serve against a hostile user (issue 16, findings 3 and 6): job bodies that
# smuggle bytes into URLs or ask for absurd budgets. No job is run: the server has no
# web to reach, and every body here must be refused before it is stored.
source "$(dirname "$0")/lib.sh"
make_scratch
start_private_pg
PROXY=http://127.0.0.1:9 # nothing listens there; no job of this script may run

# req METHOD PATH [curl args...]: the body in $SCRATCH/body, prints the status.
req() {
  local m=$1 p=$2; shift 2
  curl -s -o "$SCRATCH/body" -D "$SCRATCH/headers" -w '%{http_code}' -X "$m" "$@" "$API$p"
}
body() { cat "$SCRATCH/body"; }
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$SCRATCH/body"; }
post_json() { req POST "$1" -H 'Content-Type: application/json' --data-binary "@$2"; }
# job_with EXPR OUT: the demo job, changed by a python statement on d.
job_with() {
  python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))['sci.space']
$1
json.dump(d, open(sys.argv[2], 'w'))" "$SRC/demo/demo.jobs.json" "$2"
}

start_serve "$SCRATCH/serve.out" --workers 1

# --- website URLs are taken as written or refused, never repaired
# Each case: a python statement on the body d, the field the 422 must name.
while IFS='|' read -r change want; do
  job_with "$change" "$SCRATCH/url.json"
  assert_eq 422 "$(post_json /api/jobs "$SCRATCH/url.json")" "422 for: $change"
  assert_eq "$want" "$(field "d['error']['field']")" "... naming $want"
done <<'CASES'
d['relevant_sites'][1] += "x\r\nX-Injected: 1"|relevant_sites[1]
d['other_sites'][3] = "http://www.example.com/' OR 1=1;--"|other_sites[3]
d['start_sites'][0] = "http://www.example.com/a b"|start_sites[0]
d['relevant_sites'][0] = "http://www.example.com/<script>"|relevant_sites[0]
d['relevant_sites'][2] = "http://www.example.com/\x7f"|relevant_sites[2]
d['other_sites'][0] = "http://www.example.com/caf\u00e9"|other_sites[0]
d['other_sites'][1] = "http://www.example.com/100%"|other_sites[1]
CASES
assert_contains "$(field "d['error']['message']")" "byte 26 is a '%' that starts no %XX escape" \
  "the message says which byte and why, without echoing it"

# --- numeric parameters have upper bounds
while IFS='|' read -r param value; do
  job_with "d['params'] = {'$param': $value}" "$SCRATCH/param.json"
  assert_eq 422 "$(post_json /api/jobs "$SCRATCH/param.json")" "422 for $param = $value"
  assert_eq "params.$param" "$(field "d['error']['field']")" "... naming params.$param"
done <<'CASES'
max_pages|1e12
max_pages|1000000001
max_relevant_sites|1e12
max_seconds|1e9
pprs_window|1e12
pprs_limit|1e12
CASES
assert_eq 0 "$(psql_q "select count(*) from jobs")" "no refused body stored a job"

# A valid body with the characters a URL may hold, and budgets at their bounds: stored.
job_with "d['start_sites'] = ['http://www.example.com/~a/(b)/c_d.e?q=1&r=%41;s=t*u+v,w!\$\'@:/']
d['params'] = {'max_pages': 1000000000, 'max_seconds': 31536000}" "$SCRATCH/good.json"
assert_eq 201 "$(post_json /api/jobs "$SCRATCH/good.json")" "a valid body is still accepted"
assert_eq 1000000000 "$(field "d['params']['max_pages']")" "... with max_pages at its bound"
kill -TERM "$SERVE_PID"
wait "$SERVE_PID" || fail "serve exited $? on SIGTERM: $(cat "$SCRATCH/serve.out.err")"
