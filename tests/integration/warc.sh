#!/usr/bin/env bash
# WARC capture end to end: a crawl of the demo web with --warc-dir archives every
# response the web sent (checked record by record against the replay's access log),
# the files rotate, and a crawl of the same job through a replay of those files
# fetches the same pages. Bad options get usage errors; serve refuses "warc": true
# without --warc-dir.
source "$(dirname "$0")/lib.sh"
make_scratch
start_private_pg
WARC=$SRC/demo/demo.warc.gz
JOBS=$SRC/demo/demo.jobs.json
CHECK=$SRC/tests/tools/check_warc_capture.py
crawl() { "$BIN" crawl --db "$DB_URL" "$@"; }
json() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))$2)" "$1"; }
urls_of() { psql_q "select url from pages where job_id = $1 order by url"; }
stop_serve() { kill -TERM "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null || true; }
wait_done() { # wait_done ID: until the job is done or failed (120 s)
  for _ in $(seq 1200); do
    local st
    st=$(psql_q "select state from jobs where id = $1")
    [[ $st == done || $st == failed ]] && return 0
    sleep 0.1
  done
  fail "job $1 did not end"
}

# --- options
assert_status 2 "--warc-dir that is not a directory is a usage error" -- \
  crawl --job "$JOBS" --topic sci.space --warc-dir "$SCRATCH/none"
assert_status 2 "--warc-max-size without --warc-dir is a usage error" -- \
  crawl --job "$JOBS" --topic sci.space --warc-max-size 1000
assert_status 2 "--set warc=true without --warc-dir is a usage error" -- \
  crawl --job "$JOBS" --topic sci.space --set warc=true
"$BIN" crawl --help | grep -q -- "--warc-dir DIR" || fail "crawl --help does not show --warc-dir"
"$BIN" serve --help | grep -q -- "--warc-dir DIR" || fail "serve --help does not show --warc-dir"
ok "crawl and serve show --warc-dir in --help"

# --- a crawl captured, with small files to rotate
mkdir "$SCRATCH/warc"
start_replay "$SCRATCH/access1.log" --warc "$WARC"
# The page classifier's verdicts (judge=examination) in both crawls: the crawl model's
# judgings fall at page counts the crawl reaches in whichever order answers come, and since
# session 22 that model also ends a website's read (docs/crawl.md), so its timing would
# add differences that say nothing of the capture.
crawl --job "$JOBS" --topic sci.space --proxy "$PROXY" --report "$SCRATCH/r1.json" \
  --set politeness_delay_ms=0 --set judge=examination \
  --warc-dir "$SCRATCH/warc" --warc-max-size 300000 \
  >"$SCRATCH/out1" 2>&1 || fail "the captured crawl failed: $(cat "$SCRATCH/out1")"
stop_replay
job1=$(json "$SCRATCH/r1.json" "['job_id']")
ok "the crawl with --warc-dir runs to the end (job $job1)"
out=$(python3 "$CHECK" "$SCRATCH/warc" "sitescout-job-$job1" "$SCRATCH/access1.log" \
  "$SCRATCH/archived.txt") || fail "the WARC files: $out"
ok "every response the web sent is archived, with its request, digests and links: $out"
files=$(sed 's/.*files=\([0-9]*\).*/\1/' <<<"$out")
[[ $files -ge 2 ]] || fail "no rotation at 300000 bytes: $files file(s)"
ok "the files rotate past --warc-max-size ($files files)"
robots=$(sed 's/.*robots=\([0-9]*\).*/\1/' <<<"$out")
# robots.txt of hosts the replay does not know get its 502 (no such name): no response.
unknown=$(grep -c '/robots.txt", "status": 502' "$SCRATCH/access1.log" || true)
assert_eq "$(json "$SCRATCH/r1.json" "['robots_requests']")" "$((robots + unknown))" \
  "a robots.txt response record per robots.txt fetch answered ($robots, and $unknown unknown hosts)"
# Every page the crawl stored with an HTTP status is among the responses archived.
missing=$(psql_q "select url from pages where job_id = $job1 and status is not null" |
  sort -u | comm -23 - "$SCRATCH/archived.txt")
[[ -z $missing ]] || fail "pages with a response but no response record: $(head -3 <<<"$missing")"
ok "every page fetched with a response has its response record"

# --- the capture replayed: the same job fetches the same pages
start_replay "$SCRATCH/access2.log" --warc "$SCRATCH/warc"
crawl --job "$JOBS" --topic sci.space --proxy "$PROXY" --report "$SCRATCH/r2.json" \
  --set politeness_delay_ms=0 --set judge=examination >"$SCRATCH/out2" 2>&1 ||
  fail "the crawl of the replayed capture failed: $(cat "$SCRATCH/out2")"
stop_replay
job2=$(json "$SCRATCH/r2.json" "['job_id']")
[[ -n $(urls_of "$job1") ]] || fail "job $job1 stored no pages"
# The two crawls need not take exactly the same path: websites are examined several at a
# time, and what one learns of another's links first depends on which answer came first
# (a loaded machine once gave the second crawl 2 more pages of one website in 2,042).
# What the capture must give: every page both fetched, answered alike; and the same pages
# and requests but for a handful.
urls_with_status() { psql_q "select url || ' ' || coalesce(status::text, error) from pages where job_id = $1"; }
requested() { python3 -c 'import json,sys; print("\n".join(sorted({json.loads(l)["url"] for l in open(sys.argv[1])})))' "$1"; }
same_but_few() { # same_but_few FILE1 FILE2: lines "KEY [VALUE]"; fails on a value that differs
  python3 - "$1" "$2" <<'PY'
import sys
a, b = ({l.split(" ", 1)[0]: l.rstrip("\n") for l in open(f) if l.strip()} for f in sys.argv[1:3])
differ = [(a[k], b[k]) for k in a.keys() & b.keys() if a[k] != b[k]]
assert not differ, "answered differently: %s" % differ[:5]
only = sorted(a.keys() ^ b.keys())
assert len(only) <= max(5, len(a) // 100), "%d of %d differ: %s" % (len(only), len(a), only[:10])
print("%d, %d in one only" % (len(a), len(only)))
PY
}
urls_with_status "$job1" >"$SCRATCH/pages1"
urls_with_status "$job2" >"$SCRATCH/pages2"
out=$(same_but_few "$SCRATCH/pages1" "$SCRATCH/pages2") || fail "the replayed capture's pages: $out"
ok "a crawl through the replayed capture stores the same pages, answered alike ($out)"
requested "$SCRATCH/access1.log" >"$SCRATCH/req1"
requested "$SCRATCH/access2.log" >"$SCRATCH/req2"
out=$(same_but_few "$SCRATCH/req1" "$SCRATCH/req2") || fail "the replayed capture's requests: $out"
ok "and requests the same URLs, training pages and robots.txt included ($out)"

# --- kill -9 mid-crawl: the file stays .open, whole records up to at most one cut off at
# its end; the replay serves it; the job resumed with --warc-dir adds a file.
mkdir "$SCRATCH/warc4"
start_replay "$SCRATCH/access4.log" --warc "$WARC"
"$BIN" crawl --db "$DB_URL" --job "$JOBS" --topic sci.space --proxy "$PROXY" \
  --set politeness_delay_ms=0 --warc-dir "$SCRATCH/warc4" >"$SCRATCH/out4" 2>&1 &
crawl_pid=$!
at_exit "kill -9 $crawl_pid"
for _ in $(seq 600); do
  f=$(ls "$SCRATCH/warc4"/*.open 2>/dev/null || true)
  [[ -n $f && $(stat -c %s "$f") -gt 200000 ]] && break
  kill -0 "$crawl_pid" 2>/dev/null || fail "the crawl ended before 200 KB were archived"
  sleep 0.1
done
kill -9 "$crawl_pid"
wait "$crawl_pid" 2>/dev/null || true
job4=$(psql_q "select max(id) from jobs")
open_file="$SCRATCH/warc4/sitescout-job-$job4-00000.warc.gz.open"
[[ -f $open_file ]] || fail "no .open file after kill -9: $(ls "$SCRATCH/warc4")"
out=$(python3 - "$open_file" "$SCRATCH/first_url" <<'PY'
import sys, zlib
data = open(sys.argv[1], "rb").read()
whole = cut = 0
first = None
while data:
    d = zlib.decompressobj(wbits=31)
    try:
        rec = d.decompress(data)
    except zlib.error:
        rec, d = b"", None
    if d is None or not d.eof:
        cut += 1  # the last member, cut off by the kill
        break
    assert rec.startswith(b"WARC/1.1\r\n") and rec.endswith(b"\r\n\r\n"), "a member is not a whole record"
    whole += 1
    if first is None and b"WARC-Type: response\r\n" in rec and b"\r\n\r\nHTTP/1.1 200 " in rec:
        first = rec.split(b"WARC-Target-URI: ", 1)[1].split(b"\r\n", 1)[0].decode()
    data = d.unused_data
open(sys.argv[2], "w").write(first or "")
print(f"{whole} whole records, {cut} cut off")
PY
) || fail "the killed crawl's file: $out"
ok "after kill -9 the file keeps its .open name and holds whole records ($out)"
stop_replay
start_replay "$SCRATCH/access5.log" --warc "$SCRATCH/warc4"
[[ -s $SCRATCH/first_url ]] || fail "no response record in the killed crawl's file"
code=$(curl -s -o /dev/null -w '%{http_code}' -x "$PROXY" "$(cat "$SCRATCH/first_url")" || true)
assert_eq 200 "$code" "the replay serves the killed crawl's .open file ($(cat "$SCRATCH/first_url"))"
stop_replay
start_replay "$SCRATCH/access6.log" --warc "$WARC"
crawl --resume "$job4" --proxy "$PROXY" --warc-dir "$SCRATCH/warc4" >"$SCRATCH/out6" 2>&1 ||
  fail "the resumed crawl failed: $(cat "$SCRATCH/out6")"
stop_replay
[[ -f $open_file && -f $SCRATCH/warc4/sitescout-job-$job4-00001.warc.gz ]] ||
  fail "the resumed job's files: $(ls "$SCRATCH/warc4")"
ok "the resumed job writes sitescout-job-$job4-00001.warc.gz and leaves the killed file alone"

# --- serve: "warc": true needs --warc-dir
start_replay "$SCRATCH/access3.log" --warc "$WARC"
start_serve "$SCRATCH/serve.out"
body=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["sci.space"]; j["params"]={"warc": True}; print(json.dumps(j))' "$JOBS")
code=$(curl -s -o "$SCRATCH/resp.json" -w '%{http_code}' -H 'Content-Type: application/json' \
  --data "$body" "$API/api/jobs")
assert_eq 422 "$code" "a job asking for warc on a serve without --warc-dir gets 422"
assert_eq "params.warc" "$(json "$SCRATCH/resp.json" "['error']['field']")" "the 422 names params.warc"
stop_serve
mkdir "$SCRATCH/warc3"
start_serve "$SCRATCH/serve3.out" --warc-dir "$SCRATCH/warc3"
body=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["sci.space"]; j["params"]={"warc": True, "politeness_delay_ms": 0, "max_pages": 40}; print(json.dumps(j))' "$JOBS")
code=$(curl -s -o "$SCRATCH/resp.json" -w '%{http_code}' -H 'Content-Type: application/json' \
  --data "$body" "$API/api/jobs")
assert_eq 201 "$code" "serve --warc-dir takes a job with \"warc\": true"
id=$(json "$SCRATCH/resp.json" "['id']")
assert_eq "true" "$(psql_q "select params->>'warc' from jobs where id = $id")" \
  "the job's params say warc: true"
wait_done "$id"
assert_eq done "$(psql_q "select state from jobs where id = $id")" "the served job ends done"
stop_serve
ls "$SCRATCH/warc3" | grep -qx "sitescout-job-$id-00000.warc.gz" ||
  fail "serve wrote no sitescout-job-$id-00000.warc.gz: $(ls "$SCRATCH/warc3")"
ok "the served job's fetches are in sitescout-job-$id-00000.warc.gz"
stop_replay
