#!/usr/bin/env bash
# The dashboard (web/) in real headless Chromium: tests/browser/dashboard.test.mjs starts
# the demo job through the form against `sitescout serve` (real PostgreSQL, the replay
# web), watches it reach done, checks the plots and the relevant sites table, and saves
# a screenshot, dashboard.png, in the test's working directory (the build directory);
# then, on a job stopped by its page budget, the border view, a site page, labels
# (✓ / ✗, taken back; with the token too) and the picture of what it found (GET /graph,
# its limit and errors here; drawn, and measured with 2,000 websites, in the browser).
# Needs node, Debian's chromium and playwright-core (tests/browser/package-lock.json);
# installs what is missing when it can (apt-get as root, npm ci).
source "$(dirname "$0")/lib.sh"

CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [[ ! -x $CHROMIUM ]]; then
  [[ $(id -u) -eq 0 ]] || fail "$CHROMIUM is missing (apt-get install chromium)"
  apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 ||
    { apt-get update >/dev/null && apt-get install -y --no-install-recommends chromium >/dev/null; } ||
    fail "cannot install chromium"
fi
command -v node >/dev/null || fail "node is missing (apt-get install nodejs npm)"
if [[ ! -d $SRC/tests/browser/node_modules/playwright-core ]]; then
  (cd "$SRC/tests/browser" && npm ci --no-audit --no-fund --silent) ||
    fail "cannot install playwright-core (npm ci in tests/browser)"
fi

make_scratch
start_private_pg
start_replay "$SCRATCH/access.log" --warc "$SRC/demo/demo.warc.gz"

# start_serve NAME ARGS...: sitescout serve on a free port; sets URL and SERVE_PID.
start_serve() {
  local out=$SCRATCH/$1; shift
  "$BIN" serve --listen 127.0.0.1:0 --db "$DB_URL" --proxy "$PROXY" "$@" >"$out" 2>"$out.err" &
  SERVE_PID=$!
  at_exit "kill -9 $SERVE_PID"
  for _ in $(seq 200); do
    grep -q '^listening on ' "$out" && break
    kill -0 "$SERVE_PID" 2>/dev/null || fail "serve did not start: $(cat "$out.err")"
    sleep 0.05
  done
  URL="http://$(sed -n 's/^listening on //p' "$out")"
}
start_serve serve.out --workers 1

# The dashboard's files are served as they are in web/, with their content types.
for f in index.html app.js app.css vendor/uPlot.iife.min.js vendor/uPlot.min.css; do
  curl -s -o "$SCRATCH/file" "$URL/$f"
  cmp -s "$SCRATCH/file" "$SRC/web/$f" || fail "GET /$f is not web/$f"
done
ok "GET /FILE serves web/FILE"
ct() { curl -s -o /dev/null -w '%{content_type}' "$URL$1"; }
assert_eq "text/html; charset=utf-8" "$(ct /)" "GET / is the dashboard, as HTML"
assert_eq "text/javascript; charset=utf-8" "$(ct /app.js)" "JavaScript content type"
assert_eq "text/css; charset=utf-8" "$(ct /vendor/uPlot.min.css)" "CSS content type"
for p in /../README.md /vendor/../app.js /%2e%2e/README.md /web/index.html /vendor/ /openapi.json; do
  assert_eq 404 "$(curl -s --path-as-is -o /dev/null -w '%{http_code}' "$URL$p")" "GET $p is 404"
done
assert_eq 405 "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL/api/health")" \
  "the API still answers next to the files"


# The demo job, slowed down (a 50 ms politeness delay, four websites at a time) so that
# it runs long enough (~10 s) to be paused and resumed and to record several metrics
# samples (one every 2 s): without a delay it is done in about 2 s. max_pages (never
# reached: the border empties at ~800 pages) shows a progress bar.
python3 - "$SRC/demo/demo.jobs.json" >"$SCRATCH/job.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["sci.space"]
d["params"] = {"politeness_delay_ms": 50, "concurrency": 4, "max_pages": 5000}
json.dump(d, sys.stdout)
PY

# For the border view and a site page: the demo job through the API, without a delay,
# stopped by a page budget that leaves a border (it empties at ~800 pages).
python3 - "$SRC/demo/demo.jobs.json" >"$SCRATCH/explain.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["sci.space"]
d["params"] = {"politeness_delay_ms": 0, "concurrency": 8, "max_pages": 300, "judge_pages": 200}
json.dump(d, sys.stdout)
PY
explain_job=$(curl -s -H 'Content-Type: application/json' --data-binary "@$SCRATCH/explain.json" \
  "$URL/api/jobs" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
for _ in $(seq 600); do
  st=$(curl -s "$URL/api/jobs/$explain_job" | python3 -c 'import json, sys; print(json.load(sys.stdin)["state"])')
  [[ $st == done || $st == failed ]] && break
  sleep 0.2
done
assert_eq done "$st" "a job with a border left (#$explain_job) for the border view"
# The graph's answer (the picture's): limit and errors; its content is checked in the browser test.
gcode() { curl -s -o "$SCRATCH/graph.json" -w '%{http_code}' "$URL/api/jobs/$1/graph$2"; }
assert_eq 200 "$(gcode "$explain_job" '?limit=1')" "GET /graph?limit=1"
assert_eq "1 True" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(len(d["nodes"]), d["nodes"][0]["relevant"] and d["total"] > 1)' "$SCRATCH/graph.json")" \
  "one website, a relevant one, of more"
assert_eq 400 "$(gcode "$explain_job" '?limit=5001')" "GET /graph?limit=5001: 400"
assert_eq limit "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["error"]["field"])' \
  "$SCRATCH/graph.json")" "... naming the field"
assert_eq 404 "$(gcode 999999 '')" "GET /graph of no job: 404"

shot="$PWD/dashboard.png"
SITESCOUT_URL=$URL SITESCOUT_JOB=$SCRATCH/job.json SCREENSHOT=$shot CHROMIUM=$CHROMIUM \
  SITESCOUT_EXPLAIN_JOB=$explain_job \
  node --test --test-reporter=spec "$SRC/tests/browser/dashboard.test.mjs" ||
  fail "the browser test failed (serve log: $(tail -5 "$SCRATCH/serve.out.err"))"
ok "the demo job runs from the dashboard to done, with plots and relevant sites"
ok "the border view lists the next candidates; a site page explains a verdict (pages, posterior plot, stop reason, in-edges)"
ok "labels: ✗ takes a website out of the relevant list, ✓ marks a border website, taken back on its page"
ok "the picture of what it found: drawn as GET /graph says, a click opens a verdict page"
[[ -s $shot ]] || fail "no screenshot at $shot"
ok "screenshot: $shot"

# A server that wants a token (one server per database at a time: the first one goes).
kill -TERM "$SERVE_PID"
wait "$SERVE_PID" 2>/dev/null || true
start_serve serve-token.out --token s3cret
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
assert_eq 200 "$(code "$URL/")" "with --token, the dashboard's files need no token"
assert_eq 401 "$(code "$URL/api/jobs")" "... but the API does"
SITESCOUT_TOKEN_URL=$URL SITESCOUT_TOKEN=s3cret CHROMIUM=$CHROMIUM SITESCOUT_EXPLAIN_JOB=$explain_job \
  node --test --test-reporter=spec "$SRC/tests/browser/dashboard.test.mjs" ||
  fail "the browser test with a token failed"
ok "the dashboard asks for the token, then shows the jobs; a label is taken back with the token"
