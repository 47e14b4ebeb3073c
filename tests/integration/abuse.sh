#!/usr/bin/env bash
# sitescout serve against a hostile user (issue 16, findings 3 and 6): job bodies that
# smuggle bytes into URLs or ask for absurd budgets, escaped NULs, requests without
# Host, huge declared bodies, garbage, route enumeration without the token, a port in
# use, and a flood of connections that never finish their headers. The server has no
# web to reach: the one job stored here cannot run, and no other body may be stored.
source "$(dirname "$0")/lib.sh"
make_scratch
start_private_pg
PROXY=http://127.0.0.1:9 # nothing listens there
ABUSE=("python3" "$SRC/tests/tools/http_abuse.py")

# req METHOD PATH [curl args...]: the body in $SCRATCH/body, prints the status.
req() {
  local m=$1 p=$2; shift 2
  curl -s -o "$SCRATCH/body" -D "$SCRATCH/headers" -w '%{http_code}' -X "$m" "$@" "$API$p"
}
body() { cat "$SCRATCH/body"; }
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$SCRATCH/body"; }
post_json() { req POST "$1" -H 'Content-Type: application/json' --data-binary "@$2"; }
# raw_field JSON EXPR: a field of http_abuse.py raw's answer (as d)
raw_field() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); print($2)" "$1"; }
# job_with EXPR OUT: the demo job, changed by a python statement on d.
job_with() {
  python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))['sci.space']
$1
json.dump(d, open(sys.argv[2], 'w'))" "$SRC/demo/demo.jobs.json" "$2"
}

SITESCOUT_LOG=info start_serve "$SCRATCH/serve.out" --workers 1
ADDR=${API#http://}

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

# --- strict decoding: an escaped NUL anywhere in the path or the query is refused
for target in "/api/jobs/1%00" "/index.html%00.css" "/api/jobs/1/sites?order=confidence%00x" \
  "/api/jobs?state=done%00" "/api/jobs?%00=1"; do
  assert_eq 400 "$(req GET "$target")" "GET $target is 400"
  assert_eq bad_request "$(field "d['error']['code']")" "... with the JSON error body"
done
# A raw NUL byte, which curl cannot send, is refused the same way.
out=$("${ABUSE[@]}" raw "$ADDR" 'GET /index.html\x00.css HTTP/1.1\r\nHost: x\r\n\r\n' --wait 2)
assert_eq 400 "$(raw_field "$out" "d['status']")" "GET /index.html<NUL>.css is 400"
out=$("${ABUSE[@]}" raw "$ADDR" 'GET /api/jobs?state=done\x00x HTTP/1.1\r\nHost: x\r\n\r\n' --wait 2)
assert_eq bad_request "$(raw_field "$out" "json.loads(d['body'])['error']['code']")" \
  "GET /api/jobs?state=done<NUL>x is 400 bad_request"
assert_eq 200 "$(req GET /api/jobs/1)" "GET /api/jobs/1 still answers"
# --- a path that is not UTF-8 once decoded names nothing: 404, not the database's error
for target in /api/jobs/1/sites/%ff /api/jobs/1/sites/caf%e9/pages /api/jobs/%c3; do
  assert_eq 404 "$(req GET "$target")" "GET $target (not UTF-8 once decoded) is 404"
  assert_eq not_found "$(field "d['error']['code']")" "... with the JSON error body"
done
assert_eq 400 "$(req GET '/api/jobs?%ff=1')" "a query parameter named %ff is 400"
assert_eq invalid "$(field "d['error']['code']")" "... with the JSON error body (code invalid)"
assert_eq 200 "$(req GET /index.html)" "... and so does the dashboard"

# --- HTTP/1.1 requires Host (RFC 9112 §3.2); HTTP/1.0 does not
assert_eq 400 "$(req GET /api/health -H 'Host:')" "HTTP/1.1 without Host is 400"
assert_eq bad_request "$(field "d['error']['code']")" "... with the JSON error body"
assert_eq 200 "$(req GET /api/health --http1.0 -H 'Host:')" "HTTP/1.0 without Host is answered"

# --- a declared body over the cap is refused before any of it is read
out=$("${ABUSE[@]}" raw "$ADDR" 'POST /api/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n\r\n')
assert_eq 413 "$(raw_field "$out" "d['status']")" "Content-Length 50 MB: 413 without a byte of body sent"
assert_eq too_big "$(raw_field "$out" "json.loads(d['body'])['error']['code']")" \
  "... with the JSON error body"
assert_eq True "$(raw_field "$out" "d['closed']")" "... and the connection closed"
# --- framing errors: answered with the JSON error body (the gate, server/httpgate.c), not
# libmicrohttpd's HTML, and the connection closed; heads at the limits still served.
# frame BYTES STATUS CODE WHAT
frame() {
  local out
  out=$("${ABUSE[@]}" raw "$ADDR" "$1" --wait 5)
  assert_eq "$2 $3 True" "$(raw_field "$out" \
    "'%s %s %s' % (d['status'], json.loads(d['body'])['error']['code'] if d['body'] else '', d['closed'])")" \
    "$4: $2 $3, JSON, closed"
}
frame '\x01\x02\xfe\xff\x00\r\n' 400 bad_request "a garbage request line"
frame '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03' 400 bad_request \
  "a TLS hello to the plain port (at once, no line end needed)"
frame 'GET /api/health HTTP/1.1\r\nHost x\r\n\r\n' 400 bad_request "a header line without a colon"
frame 'GET /api/health HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n' 400 bad_request "obsolete line folding"
frame 'GET /api/health HTTP/1.1\r\nHost: x\ry\r\n\r\n' 400 bad_request "a bare CR in a header"
frame 'GET  /api/health HTTP/1.1\r\nHost: x\r\n\r\n' 400 bad_request "two spaces in the request line"
frame 'POST /api/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n' 400 bad_request \
  "a Content-Length that is not a number"
frame 'POST /api/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nab' \
  400 bad_request "two Content-Length fields that differ"
frame 'POST /api/jobs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\nab' \
  400 bad_request "Content-Length beside Transfer-Encoding (request smuggling)"
frame 'GET /api/health HTTP/2.0\r\nHost: x\r\n\r\n' 505 bad_request "HTTP/2.0 in an HTTP/1 request line"
long_path=$(printf 'a%.0s' $(seq 9000))
frame "GET /$long_path HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n" 414 too_big "a 9 KB request line"
many=$(for i in $(seq 101); do printf 'X-%d: v\\r\\n' "$i"; done)
frame "GET /api/health HTTP/1.1\\r\\nHost: x\\r\\n$many\\r\\n" 431 too_big "102 header fields"
frame 'POST /api/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n' \
  411 length_required "a chunked body (here with a malformed chunk)"
# At the limits, libmicrohttpd gets the request and the API answers it.
many=$(for i in $(seq 99); do printf 'X-%d: v\\r\\n' "$i"; done)
out=$("${ABUSE[@]}" raw "$ADDR" "GET /api/health HTTP/1.1\\r\\nHost: x\\r\\n$many\\r\\n" --wait 2)
assert_eq 200 "$(raw_field "$out" "d['status']")" "100 header fields are served"
pad=$(printf 'p%.0s' $(seq 8000))
out=$("${ABUSE[@]}" raw "$ADDR" "GET /api/health HTTP/1.1\\r\\nHost: x\\r\\nX-Pad: $pad\\r\\n\\r\\n" --wait 2)
assert_eq 200 "$(raw_field "$out" "d['status']")" "an 8 KB head is served"
# Two requests in one write: the gate looks at the first, libmicrohttpd serves both.
out=$("${ABUSE[@]}" raw "$ADDR" 'GET /api/health HTTP/1.1\r\nHost: x\r\n\r\nGET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' --wait 5)
assert_eq 2 "$(raw_field "$out" "d['answers']")" "two pipelined requests get two answers"
frame 'GET /api/health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\n\r\n' \
  400 bad_request "two Authorization fields (the first would decide)"
# --- every request of a kept-alive connection gets the first's framing checks (issue 29):
# after a good request, a faulty head is answered 400 with the JSON error body and the
# connection closed, so that the request sent behind it (GET /api/smuggled) never runs.
"${ABUSE[@]}" smuggle "$ADDR" >"$SCRATCH/smuggle"
while IFS= read -r line; do
  [[ $line == "smuggled "* ]] && continue
  want="200 400:bad_request smuggled no"
  # libmicrohttpd refuses that one itself, with its own HTML page (docs/api.md, Framing)
  [[ $line == "a Content-Length that is not a number: "* ]] && want="200 400 smuggled no"
  assert_eq "$want" "${line#*: }" "kept alive, then ${line%%:*}"
done <"$SCRATCH/smuggle"
assert_eq "smuggled 0 of 9" "$(tail -1 "$SCRATCH/smuggle")" "no request behind a faulty head runs"

# --- a port in use: one line naming the address and the reason, exit 1
err=$("$BIN" serve --listen "$ADDR" --db "$DB_URL" 2>&1) && fail "serve ran on a port in use"
assert_eq "sitescout serve: cannot listen on $ADDR: Address already in use" "$err" \
  "a port in use: one clear line"

# --- a flood of connections from one address (127.0.0.3) that never finish their
# headers, and a garbage request that never ends its line (from 127.0.0.1).
assert_contains "$(cat "$SCRATCH/serve.out.err")" \
  "connections, 64 from one address; a request's head within 10 s" "the default limits"
"${ABUSE[@]}" flood "$ADDR" --source 127.0.0.3 --conns 80 --out "$SCRATCH/flood" --seconds 40 &
flood=$!
"${ABUSE[@]}" raw "$ADDR" 'GET /api/health HTTP/1.1\r\nHost: x\r\nX-Never: ends' --wait 40 \
  >"$SCRATCH/garbage" &
garbage=$!
for _ in $(seq 300); do [[ -s $SCRATCH/flood ]] && break; sleep 0.1; done
assert_eq "held 64 refused 16" "$(head -1 "$SCRATCH/flood")" \
  "80 connections from one address: 64 held, the rest closed at once"
# First, while the flood's connections are surely held (the deadline cuts them 10 s on).
status=0
curl -s -o /dev/null --interface 127.0.0.3 --max-time 5 "$API/api/health" || status=$?
[[ $status -ne 0 && $status -ne 28 ]] || fail "the flooding address got a connection (curl $status)"
ok "the flooding address is refused at once (curl exit $status)"
assert_eq 200 "$(req GET /api/health --interface 127.0.0.2 --max-time 5)" \
  "health answers another address within 5 s while the flood holds"
assert_eq 200 "$(req GET /api/health --max-time 5)" "... and 127.0.0.1 too"
wait "$flood"
assert_eq "cut 64 of 64" "$(tail -1 "$SCRATCH/flood")" \
  "connections trickling their headers a byte a second are closed (the 10 s deadline)"
wait "$garbage"
garbage=$(cat "$SCRATCH/garbage")
assert_eq "408 timeout True" "$(raw_field "$garbage" \
  "'%s %s %s' % (d['status'], json.loads(d['body'])['error']['code'], d['closed'])")" \
  "a head that never ends gets 408 with the JSON error body at the deadline, then is closed"
assert_eq 200 "$(req GET /api/health --interface 127.0.0.3 --max-time 5)" \
  "the flooding address is served again once its connections are gone"
kill -TERM "$SERVE_PID"
wait "$SERVE_PID" || fail "serve exited $? on SIGTERM: $(cat "$SCRATCH/serve.out.err")"

# --- a slow flood from three addresses over every connection (issue 29): a client from
# a fourth address is served at once, in the place of a flooder's connection, not closed.
# 160 descriptors make 80 connections; the header deadline (60 s) cuts none meanwhile.
printf '#!/usr/bin/env bash\nulimit -n 160 && exec "%s" "$@"\n' "$BIN" >"$SCRATCH/fewfds"
chmod +x "$SCRATCH/fewfds"
bin_was=$BIN
BIN=$SCRATCH/fewfds
SITESCOUT_LOG=info start_serve "$SCRATCH/few.out" --workers 1 --header-timeout 60
BIN=$bin_was
assert_contains "$(cat "$SCRATCH/few.out.err")" "at most 80 connections" "160 descriptors: 80 connections"
fills=()
for i in 5 6 7; do
  "${ABUSE[@]}" flood "${API#http://}" --source "127.0.0.$i" --conns 40 --out "$SCRATCH/fill.$i" \
    --seconds 3 &
  fills+=($!)
done
for i in 5 6 7; do
  for _ in $(seq 300); do [[ -s $SCRATCH/fill.$i ]] && break; sleep 0.1; done
  [[ -s $SCRATCH/fill.$i ]] || fail "the flood from 127.0.0.$i did not settle in 30 s"
done
assert_eq 200 "$(req GET /api/health --interface 127.0.0.2 --max-time 5)" \
  "120 connections from three addresses over 80: a fourth address is served"
wait "${fills[@]}"
kill -TERM "$SERVE_PID"
wait "$SERVE_PID" || fail "serve exited $? on SIGTERM: $(cat "$SCRATCH/few.out.err")"

# --- with a token, nothing but the dashboard's files is answered without it
start_serve "$SCRATCH/token.out" --workers 1 --token s3cret
assert_eq 401 "$(req GET /api/nothing)" "an unknown path without the token is 401, not 404"
assert_eq unauthorized "$(field "d['error']['code']")" "... with the JSON error body"
assert_eq 401 "$(req PUT /api/jobs)" "a wrong method without the token is 401, not 405"
assert_eq 401 "$(req GET /nothing)" "a path outside /api without the token is 401"
assert_eq 401 "$(req GET /api/health)" "health wants the token, as before"
assert_eq 200 "$(req GET /)" "the dashboard's page needs no token"
assert_eq 200 "$(req GET /app.js)" "... nor its script"
assert_eq 404 "$(req GET /api/nothing -H 'Authorization: Bearer s3cret')" \
  "with the token, an unknown path is 404"
assert_eq 405 "$(req PUT /api/jobs -H 'Authorization: Bearer s3cret')" "... a wrong method 405"
for scheme in bearer BEARER bEaReR; do
  assert_eq 200 "$(req GET /api/jobs -H "Authorization: $scheme s3cret")" \
    "the scheme is case-insensitive: '$scheme' (RFC 7235)"
done
assert_eq 401 "$(req GET /api/jobs -H 'Authorization: Basic s3cret')" "another scheme is 401"
for pair in "s3cret|wrong" "wrong|s3cret"; do
  assert_eq 400 "$(req GET /api/jobs -H "Authorization: Bearer ${pair%|*}" \
    -H "Authorization: Bearer ${pair#*|}")" "two Authorization fields ($pair) are 400: no copy decides"
  assert_eq bad_request "$(field "d['error']['code']")" "... with the JSON error body"
done
kill -TERM "$SERVE_PID"
wait "$SERVE_PID" || fail "serve exited $? on SIGTERM: $(cat "$SCRATCH/token.out.err")"

# --- IPv6: --listen [::1]:0 serves (loopback: no token); a bad bracket form is refused
"$BIN" serve --listen '[::1]:0' --db "$DB_URL" --workers 1 >"$SCRATCH/v6.out" 2>"$SCRATCH/v6.err" &
v6_pid=$!
at_exit "kill -9 $v6_pid"
for _ in $(seq 200); do grep -q '^listening on ' "$SCRATCH/v6.out" && break; sleep 0.05; done
v6=$(sed -n 's/^listening on //p' "$SCRATCH/v6.out")
assert_contains "$v6" "[::1]:" "serve listens on [::1] and says so in brackets"
assert_eq '{"status":"ok"}' "$(curl -sg "http://$v6/api/health" | tr -d '\n ')" \
  "... and answers there"
kill -TERM "$v6_pid"
wait "$v6_pid" || fail "the IPv6 serve exited $? on SIGTERM"
assert_status 2 "--listen '[::1]' without a port is a usage error" -- "$BIN" serve --listen '[::1]'
err=$("$BIN" serve --listen '[::2]:0' --db "$DB_URL" 2>&1) && fail "a non-loopback IPv6 address without a token ran"
assert_contains "$err" "needs --token" "an IPv6 address other than ::1 needs a token"

# --- a database outage (issue 29): /api/health says 503 at once, not after the pooled
# connection's wait for the database to come back (60 s here), and no error body holds
# PostgreSQL's own text (a serve that waits 1 s answers the list).
SITESCOUT_DB_WAIT_SECONDS=60 start_serve "$SCRATCH/wait.out" --workers 1
api_wait=$API
SITESCOUT_DB_WAIT_SECONDS=1 start_serve "$SCRATCH/short.out" --workers 1
assert_eq 200 "$(req GET /api/jobs)" "before the outage: jobs are listed"
api_short=$API API=$api_wait
assert_eq 200 "$(req GET /api/health)" "before the outage: health is 200"
"$BIN" db --data-dir "$PGDIR" stop >/dev/null
assert_eq 503 "$(req GET /api/health --max-time 20)" \
  "health at the start of an outage: 503 without waiting out the store's 60 s"
assert_eq database "$(field "d['error']['code']")" "... code database"
API=$api_short
assert_eq 503 "$(req GET /api/jobs --max-time 30)" "the job list during the outage: 503"
assert_eq "database: the database failed or does not answer (the server's log says why)" \
  "$(field "d['error']['code'] + ': ' + d['error']['message']")" \
  "... with a fixed message, not PostgreSQL's"
