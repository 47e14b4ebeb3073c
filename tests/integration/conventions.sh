#!/usr/bin/env bash
# sitescout serve's HTTP conventions (docs/api.md, "Conventions"): HEAD on every GET
# route and on the dashboard's files, entity tags and 304, CORS for --cors-origin only,
# Accept honoured or 406, and one JSON style (spacing; timestamps the same in JSON and
# CSV). No job runs (--workers 0): a queued job and sites written with psql suffice.
source "$(dirname "$0")/lib.sh"
make_scratch
export SCRATCH
start_private_pg
PROXY=http://127.0.0.1:9 # nothing is fetched
ORIGIN=https://dash.example.org
TOKEN=conventions-token

# req METHOD PATH [curl args...]: the body in $SCRATCH/body, the head in $SCRATCH/headers;
# prints the status. header NAME: a header of the last answer ("" when absent).
req() {
  local m=$1 p=$2; shift 2
  : >"$SCRATCH/body" # curl leaves the file alone when no body comes
  curl -s -o "$SCRATCH/body" -D "$SCRATCH/headers" -w '%{http_code}' -X "$m" "$@" "$API$p"
}
# head_req PATH [HEADER...]: HEAD over a raw socket (curl trusts a HEAD answer to have no
# body); the head in $SCRATCH/headers, what came after it in $SCRATCH/body; prints the status.
head_req() {
  python3 - "$API" "$@" <<'PY'
import socket, sys, os
host, port = sys.argv[1][len("http://"):].rsplit(":", 1)
req = "HEAD %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" % sys.argv[2]
req += "".join(h + "\r\n" for h in sys.argv[3:]) + "\r\n"
s = socket.create_connection((host, int(port)), timeout=30)
s.sendall(req.encode())
got = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    got += b
head, _, rest = got.partition(b"\r\n\r\n")
d = os.environ["SCRATCH"]
open(d + "/headers", "wb").write(head + b"\r\n")
open(d + "/body", "wb").write(rest)
print(head.split(b" ")[1].decode())
PY
}
auth=(-H "Authorization: Bearer $TOKEN")
header() { sed -n "s/^$1: *//Ip" "$SCRATCH/headers" | tr -d '\r' | head -1; }
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$SCRATCH/body"; }
size() { wc -c <"$SCRATCH/body" | tr -d ' '; }

# An origin that is not one is refused (exit 2), from the command line or the environment.
rc=0
timeout 30 "$BIN" serve --listen 127.0.0.1:0 --workers 0 --db "$DB_URL" \
  --cors-origin 'https://dash.example.org/' >"$SCRATCH/bad" 2>&1 || rc=$?
assert_eq 2 "$rc" "--cors-origin with a path is refused"
assert_contains "$(cat "$SCRATCH/bad")" "--cors-origin wants an origin" "... saying what it wants"
rc=0
SITESCOUT_CORS_ORIGIN='*' timeout 30 "$BIN" serve --listen 127.0.0.1:0 --workers 0 \
  --db "$DB_URL" >"$SCRATCH/bad" 2>&1 || rc=$?
assert_eq "2 1" "$rc $(grep -c "not '\*'" "$SCRATCH/bad")" "SITESCOUT_CORS_ORIGIN='*' is refused too"
assert_contains "$("$BIN" serve --help)" "--cors-origin ORIGIN" "serve --help names --cors-origin"

start_serve "$SCRATCH/serve.out" --workers 0 --token "$TOKEN" --cors-origin "$ORIGIN"
job_body 0 8 "$SCRATCH/job.json"
assert_eq 201 "$(req POST /api/jobs "${auth[@]}" -H 'Content-Type: application/json' \
  --data-binary "@$SCRATCH/job.json")" "a job to read"
job=$(field "d['id']")
# Two examined websites: one at a whole second (PostgreSQL's own JSON and text would cut
# its fraction and differ from each other), one with microseconds.
psql_q "insert into sites (job_id, host, homepage, role, state, confidence, relevant, pages_visited, examined_at) values
  ($job, 'a.example', 'http://a.example/', 'discovered', 'examined', 0.9, true, 3, '2026-01-02 03:04:05+00'),
  ($job, 'b.example', 'http://b.example/', 'discovered', 'examined', 0.8, true, 2, '2026-01-02 03:04:05.25+01')"

# --- HEAD: the GET's status and headers, no body
for path in "/api/jobs/$job" "/api/jobs/$job/sites" "/api/jobs/$job/sites.csv" /api/health /metrics; do
  assert_eq 200 "$(req GET "$path" "${auth[@]}")" "GET $path"
  n=$(size) type=$(header Content-Type)
  assert_eq 200 "$(head_req "$path" "Authorization: Bearer $TOKEN")" "HEAD $path"
  assert_eq "$n $type 0" "$(header Content-Length) $(header Content-Type) $(size)" \
    "... the GET's Content-Length and Content-Type, no body"
done
assert_eq 200 "$(req GET /)" "GET / (the dashboard)"
n=$(size)
assert_eq 200 "$(head_req /)" "HEAD /"
assert_eq "$n text/html; charset=utf-8 0" "$(header Content-Length) $(header Content-Type) $(size)" \
  "... the page's length and type, no body"
assert_eq 405 "$(req DELETE /api/health "${auth[@]}")" "DELETE /api/health is 405"
assert_eq "GET, HEAD, OPTIONS" "$(header Allow)" "... Allow names HEAD and OPTIONS"
assert_eq 204 "$(req OPTIONS "/api/jobs/$job" "${auth[@]}")" "OPTIONS on a route's path"
assert_eq "GET, HEAD, DELETE, OPTIONS" "$(header Allow)" "... says its methods in Allow"

# --- ETag and If-None-Match
assert_eq 200 "$(req GET "/api/jobs/$job" "${auth[@]}")" "GET the job"
tag=$(header ETag)
[[ $tag =~ ^\"[^\"]+\"$ ]] || fail "no strong ETag on the job: '$tag'"
ok "the job's answer has a strong ETag ($tag)"
assert_eq 304 "$(req GET "/api/jobs/$job" "${auth[@]}" -H "If-None-Match: $tag")" \
  "GET again with If-None-Match: the ETag is 304"
assert_eq "$tag 0" "$(header ETag) $(size)" "... with the ETag and no body"
assert_eq 304 "$(req GET "/api/jobs/$job" "${auth[@]}" -H "If-None-Match: \"x\", W/$tag")" \
  "If-None-Match with a list holding it (weak) is 304"
assert_eq 304 "$(head_req "/api/jobs/$job" "Authorization: Bearer $TOKEN" 'If-None-Match: *')" "HEAD with If-None-Match: * is 304"
assert_eq 200 "$(req GET "/api/jobs/$job" "${auth[@]}" -H 'If-None-Match: "x"')" "another ETag gets the body"
assert_eq 200 "$(req GET "/api/jobs/$job/sites" "${auth[@]}")" "GET the sites"
stag=$(header ETag)
assert_eq 304 "$(req GET "/api/jobs/$job/sites" "${auth[@]}" -H "If-None-Match: $stag")" \
  "the site list is 304 with its ETag"
assert_eq 200 "$(req POST "/api/jobs/$job/stop" "${auth[@]}")" "stop the queued job"
assert_eq 200 "$(req GET "/api/jobs/$job" "${auth[@]}" -H "If-None-Match: $tag")" \
  "once the job changed, its old ETag gets the body"
[[ $(header ETag) != "$tag" && -n $(header ETag) ]] || fail "the ETag did not change: $(header ETag)"
ok "... under a new ETag"

# --- CORS: the configured origin alone; its preflight passes the token gate
pre=(-H "Access-Control-Request-Method: POST" -H "Access-Control-Request-Headers: authorization, content-type")
assert_eq 204 "$(req OPTIONS /api/jobs -H "Origin: $ORIGIN" "${pre[@]}")" \
  "a preflight from $ORIGIN is 204 without the token"
assert_eq "$ORIGIN" "$(header Access-Control-Allow-Origin)" "... allows the origin"
assert_eq "GET, HEAD, POST, OPTIONS" "$(header Access-Control-Allow-Methods)" "... the path's methods"
assert_contains "$(header Access-Control-Allow-Headers)" "Authorization, Content-Type" "... Authorization and Content-Type"
[[ $(header Access-Control-Max-Age) -gt 0 ]] || fail "no Access-Control-Max-Age: $(cat "$SCRATCH/headers")"
ok "... for a while (Max-Age $(header Access-Control-Max-Age))"
assert_eq 200 "$(req GET "/api/jobs/$job" "${auth[@]}" -H "Origin: $ORIGIN")" "a call from $ORIGIN"
assert_eq "$ORIGIN" "$(header Access-Control-Allow-Origin)" "... is allowed"
assert_contains "$(header Access-Control-Expose-Headers)" ETag "... and may read the ETag"
assert_eq 401 "$(req GET "/api/jobs/$job" -H "Origin: $ORIGIN")" "a call from $ORIGIN without the token is 401"
assert_eq "$ORIGIN" "$(header Access-Control-Allow-Origin)" "... which the page may read"
assert_eq 401 "$(req OPTIONS /api/jobs -H "Origin: https://evil.example" "${pre[@]}")" \
  "a preflight from another origin meets the token gate"
assert_eq 200 "$(req GET "/api/jobs/$job" "${auth[@]}" -H "Origin: https://evil.example")" "a call from another origin"
grep -qi '^access-control-' "$SCRATCH/headers" && fail "CORS headers for another origin: $(cat "$SCRATCH/headers")"
ok "... gets no CORS headers"

# --- Accept: honoured, or 406 with a JSON error
for accept in 'application/json' 'application/*' '*/*' 'text/html, */*;q=0.1'; do
  assert_eq 200 "$(req GET "/api/jobs/$job" "${auth[@]}" -H "Accept: $accept")" "Accept: $accept takes JSON"
done
for accept in 'text/html' 'text/*' 'application/json;q=0, */*'; do
  assert_eq 406 "$(req GET "/api/jobs/$job" "${auth[@]}" -H "Accept: $accept")" "Accept: $accept is 406"
done
assert_eq "not_acceptable application/json" "$(field "d['error']['code']") $(header Content-Type)" \
  "... with a JSON error"
assert_eq 406 "$(req GET "/api/jobs/$job/sites.csv" "${auth[@]}" -H "Accept: application/json")" \
  "sites.csv with Accept: application/json is 406"
assert_eq 200 "$(req GET "/api/jobs/$job/sites.csv" "${auth[@]}" -H "Accept: text/*")" "... with Accept: text/* 200"
assert_eq 406 "$(req POST /api/jobs "${auth[@]}" -H 'Accept: text/html' -H 'Content-Type: application/json' \
  --data-binary "@$SCRATCH/job.json")" "POST /api/jobs with Accept: text/html is 406"
assert_eq 1 "$(psql_q "select count(*) from jobs")" "... and creates no job"

# --- one JSON style: compact everywhere, one timestamp format in JSON, NDJSON and CSV
compact() { # every JSON text of the last body (one, or one a line) without white space between tokens
  python3 - "$SCRATCH/body" "$1" <<'PY' || fail "$2: not compact: $(head -c 300 "$SCRATCH/body")"
import json, re, sys
text = open(sys.argv[1]).read()
for doc in (text.splitlines() if sys.argv[2] == "lines" else [text]):
    json.loads(doc)
    assert not re.search(r"\s", re.sub(r'"(?:\\.|[^"\\])*"', '""', doc)), doc
PY
  ok "$2 is compact JSON"
}
for path in "/api/jobs/$job" /api/jobs "/api/jobs/$job/sites" "/api/jobs/$job/sites/a.example" \
  "/api/jobs/$job/border" "/api/jobs/$job/metrics" /api/health /api/openapi.json /api/jobs/999999; do
  req GET "$path" "${auth[@]}" >/dev/null
  compact one "GET $path"
done
req GET "/api/jobs/$job/sites.ndjson" "${auth[@]}" >/dev/null
compact lines "sites.ndjson"
ndjson=$(python3 -c "import json,sys; print(' '.join(json.loads(l)['examined_at'] for l in open(sys.argv[1])))" "$SCRATCH/body")
req GET "/api/jobs/$job/sites.csv" "${auth[@]}" >/dev/null
csv=$(python3 -c "import csv,sys; print(' '.join(r['examined_at'] for r in csv.DictReader(open(sys.argv[1], newline=''))))" "$SCRATCH/body")
req GET "/api/jobs/$job/sites?order=confidence" "${auth[@]}" >/dev/null
json=$(field "' '.join(s['found_at'] for s in d['sites'])")
assert_eq "2026-01-02T03:04:05.000000Z 2026-01-02T02:04:05.250000Z" "$json" \
  "the JSON's timestamps are RFC 3339 in UTC with microseconds"
assert_eq "$json" "$csv" "... the CSV's are the same"
assert_eq "$json" "$ndjson" "... and the NDJSON's"
req GET "/api/jobs/$job" "${auth[@]}" >/dev/null
[[ $(field "d['created_at']") =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$ ]] ||
  fail "created_at: $(field "d['created_at']")"
ok "the job's created_at is in the same format"

# --- the OpenAPI document lists 304 for every GET, 406 for every answer with a body
req GET /api/openapi.json "${auth[@]}" >/dev/null
missing=$(field "' '.join(m.upper() + ' ' + p + ' ' + c for p, ops in sorted(d['paths'].items())
  for m, op in ops.items() for c in (['304', '406'] if m == 'get' else ['406'] if m != 'delete' else [])
  if c not in op['responses'])")
assert_eq "" "$missing" "the OpenAPI document lists 304 and 406 where they come"

# --- a server without --cors-origin gives no CORS headers
start_serve "$SCRATCH/plain.out" --workers 0
assert_eq 204 "$(req OPTIONS /api/jobs -H "Origin: $ORIGIN" "${pre[@]}")" \
  "without --cors-origin, OPTIONS is answered"
assert_eq "GET, HEAD, POST, OPTIONS" "$(header Allow)" "... with Allow"
grep -qi '^access-control-\|^vary:' "$SCRATCH/headers" && fail "CORS headers without --cors-origin: $(cat "$SCRATCH/headers")"
ok "... and no CORS headers"

# --- a job's runner, alive or not (issue 29: a runner that died without a word, e.g. on a
# full disk, leaves the job's state as it was; its lease says the truth). No worker runs
# here, so the job's lease is written with psql: renewed just now, then an hour ago.
req GET "/api/jobs/$job" >/dev/null
assert_eq None "$(field "d['runner']")" "a queued job has no runner"
psql_q "update jobs set state = 'training', worker = 'elsewhere:4242:0', heartbeat_at = now() where id = $job"
sleep 1.3 # past docs/api.md's freshness promise (the cached answer above)
assert_eq 200 "$(req GET "/api/jobs/$job")" "GET a training job"
assert_eq "elsewhere:4242:0 True" "$(field "d['runner']['worker'], d['runner']['alive']" | tr -d "(),'")" \
  "... its runner, alive"
psql_q "update jobs set heartbeat_at = now() - interval '1 hour' where id = $job"
sleep 1.3
req GET "/api/jobs/$job" >/dev/null
assert_eq "False" "$(field "d['runner']['alive']")" "... a runner whose lease ran out is not alive"
