#!/usr/bin/env bash
# The examples of README.md and docs/*.md, run as written, in order, against the demo web:
# each command must succeed, each curl must get a 2xx answer, and what they print is
# checked where the docs say what it is. What the test changes, and only that: the ports
# (free ones for 8080 and 8081), `build/sitescout` (the binary under test, also first on
# the PATH for a bare `sitescout`), /tmp/sitescout-* (the examples' outputs) into the
# test's scratch directory, a wait for a server started with `&` to listen (and its pid
# kept to stop it at exit), and waits for the job to be crawling, to have found a website
# or to have ended before the lines that need it so. The README's curl session runs
# against the server its paragraph starts.
#
# Skipped, and why:
#   README.md 1 (scripts/demo, scripts/test): demo.sh and CI run them; the setup.sh they
#     share is checked here for its progress output (a stand-in cmake).
#   README.md 4, docs/experiment.md 1's first command: eight 3,000-page crawls of the
#     dev web; experiment.sh runs experiment small, and so does experiment.md's second.
#   docs/api.md 1: the synopsis of `serve`, not a command.
#   docs/crawl.md 1's `crawl --resume 7`: needs an interrupted job 7 (crawl.sh kills one).
#   docs/classifier.md 1: a second build tree and the dev web; bench/ runs it.
#   docs/deploy.md 1-3: docker-compose, a remote PostgreSQL, docker run on other machines
#     (deploy.sh checks the files; bench/deploy_test.sh runs the compose file).
#   docs/eval.md 1-2: the dev web (../shared, not in the repository), a PORT to fill in
#     and 50 s for all topics; eval.sh and eval_all.sh run eval.
#   docs/eval.md 3-4: bench/eval_all.sh over 23 topics and bench/alltopics_crawl.sh, 46
#     crawls of the dev web (benchmarks).
#   docs/testing.md 1-4: the test suite and the fuzzers themselves.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# The blocks skipped (FILE:N), as listed above; every other block must be run below.
SKIPPED=(README.md:1 README.md:4 docs/api.md:1 docs/classifier.md:1 docs/deploy.md:1
  docs/deploy.md:2 docs/deploy.md:3 docs/eval.md:1 docs/eval.md:2 docs/eval.md:3 docs/eval.md:4 docs/testing.md:1 docs/testing.md:2
  docs/testing.md:3 docs/testing.md:4)
declare -A RUN=()
make_scratch
export SITESCOUT_HOME=$SCRATCH/home
mkdir -p "$SITESCOUT_HOME" "$SCRATCH/work/build" "$SCRATCH/tmp"
chmod 755 "$SITESCOUT_HOME"
at_exit "'$BIN' db stop"
at_exit "[[ -f '$SCRATCH/bg.pids' ]] && kill \$(cat '$SCRATCH/bg.pids')"
BLOCK=("python3" "$SRC/tests/tools/md_blocks.py")

# --- README, "Two commands": scripts/setup.sh, which both run, shows the build's progress
# (a first build is a minute or more) and still fails when the build does. A stand-in
# cmake prints what cmake prints; setup.sh runs from a copy, so it builds nothing real.
mkdir -p "$SCRATCH/setup/scripts" "$SCRATCH/stubs"
cp "$SRC/scripts/setup.sh" "$SCRATCH/setup/scripts/"
cat >"$SCRATCH/stubs/cmake" <<'STUB'
#!/usr/bin/env bash
if [[ $1 == -S ]]; then mkdir -p "$4" && touch "$4/CMakeCache.txt"; exit 0; fi
for p in 0 2 5 9 14 20 27 33 40 46 53 60 66 73 80 86 93 100; do
  printf '[%3d%%] Building C object common/CMakeFiles/x.dir/x%d.c.o\n' "$p" "$p"
  echo "gmake[2]: Leaving directory '/x'"
done
if [[ -n ${STUB_FAIL:-} ]]; then echo "x.c:1:1: error: expected ';'"; exit 2; fi
echo '[100%] Built target sitescout'
STUB
printf '#!/bin/sh\necho "install ok installed"\n' >"$SCRATCH/stubs/dpkg-query"
printf '#!/bin/sh\nexit 0\n' >"$SCRATCH/stubs/npm"
chmod +x "$SCRATCH/stubs/"*
PATH=$SCRATCH/stubs:$PATH bash "$SCRATCH/setup/scripts/setup.sh" >"$SCRATCH/setup.out" 2>&1 ||
  fail "setup.sh with a build that succeeds: $(cat "$SCRATCH/setup.out")"
progress=$(grep -cE '^ +\[ *[0-9]+%\]' "$SCRATCH/setup.out" || true)
((progress >= 8 && progress <= 12)) ||
  fail "setup.sh shows $progress progress lines (want one every 10%): $(cat "$SCRATCH/setup.out")"
! grep -q 'make\[' "$SCRATCH/setup.out" || fail "setup.sh shows make's chatter: $(cat "$SCRATCH/setup.out")"
assert_contains "$(cat "$SCRATCH/setup.out")" "built in" "setup.sh shows the build's progress, one line every 10% ($progress lines)"
status=0
STUB_FAIL=1 PATH=$SCRATCH/stubs:$PATH bash "$SCRATCH/setup/scripts/setup.sh" >"$SCRATCH/setup.out" 2>&1 || status=$?
((status != 0)) || fail "setup.sh succeeded although the build failed"
assert_contains "$(cat "$SCRATCH/setup.out")" "error: expected" "... and fails with the compiler's error when the build fails"

# --- the examples run in a directory that looks like a clone: demo/, build/sitescout.
cd "$SCRATCH/work"
ln -s "$SRC/demo" demo
ln -s "$BIN" build/sitescout
API_PORT=$(free_port)
REPLAY_PORT=$(free_port)

# The prelude of every block: curl fails on an HTTP error (--fail-with-body keeps the
# body for the message); `wait_listening PORT` waits for a server started with `&`.
cat >"$SCRATCH/prelude.sh" <<PRE
set -euo pipefail
PATH=$SCRATCH/work/build:\$PATH
curl() { command curl --fail-with-body --max-time 60 "\$@"; }
wait_listening() {
  for _ in \$(seq 200); do command curl -s -o /dev/null "http://127.0.0.1:\$1/" && return 0; sleep 0.1; done
  echo "nothing listens on \$1" >&2; return 1
}
# wait_job STATES API: until job \$id's state is one of STATES (a | b pattern).
wait_job() {
  for _ in \$(seq 900); do
    local state=\$(command curl -s "\$2/api/jobs/\$id" | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])')
    [[ "|\$1|" == *"|\$state|"* ]] && return 0
    sleep 0.2
  done
  echo "job \$id never reached \$1" >&2; return 1
}
# wait_found API: until job \$id has found a relevant website.
wait_found() {
  for _ in \$(seq 900); do
    [[ \$(command curl -s "\$1/api/jobs/\$id/sites?relevant=true&role=discovered&limit=1" |
      python3 -c 'import json,sys; print(len(json.load(sys.stdin)["sites"]))') != 0 ]] && return 0
    sleep 0.2
  done
  echo "job \$id found no relevant website" >&2; return 1
}
PRE

# run_block FILE N WHAT [SED...]: the block, ports, outputs and servers started with `&`
# changed as the header says, then the extra edits; its output in $SCRATCH/block.out.
run_block() {
  local file=$1 n=$2 what=$3; shift 3
  RUN[$file:$n]=1
  "${BLOCK[@]}" "$SRC/$file" "$n" |
    sed -e "s/127\.0\.0\.1:8080/127.0.0.1:$API_PORT/g" -e "s/127\.0\.0\.1:8081/127.0.0.1:$REPLAY_PORT/g" \
      -e "s|/tmp/sitescout-|$SCRATCH/tmp/sitescout-|g" "$@" |
    sed -E "s|^(.* --listen 127\.0\.0\.1:([0-9]+) *&)(.*)$|\1\3\necho \$! >>$SCRATCH/bg.pids; wait_listening \2|" \
      >"$SCRATCH/block.sh"
  cat "$SCRATCH/prelude.sh" "$SCRATCH/block.sh" >"$SCRATCH/run.sh"
  local status=0
  bash "$SCRATCH/run.sh" >"$SCRATCH/block.out" 2>&1 || status=$?
  ((status == 0)) || fail "$what: exit $status; the block as run:
$(cat "$SCRATCH/block.sh")
--- its output (tail):
$(tail -20 "$SCRATCH/block.out")"
  ok "$what: every command succeeded ($(grep -cvE '^\s*(#|$)' "$SCRATCH/block.sh") lines)"
}
# drop_cmd PATTERN: a sed program deleting the command whose first line matches PATTERN,
# with its continuation lines.
drop_cmd() { echo "\\|$1|{:a;/\\\\\$/{N;ba};d}"; }

# --- README, "Using it": db, replay (in the background), crawl, eval, db stop. The
# replay it starts stays up for the next blocks (stopped at exit).
run_block README.md 2 "README: Using it"
assert_contains "$(cat "$SCRATCH/block.out")" "relevant" "... the crawl and eval reported what they found"
[[ -s $SCRATCH/tmp/sitescout-report.json ]] || fail "crawl --report /tmp/sitescout-report.json wrote nothing"
ok "... crawl wrote its report in /tmp"

# --- README, the curl session, against `sitescout serve` on the embedded database (the
# server is not in the block: the paragraph before it starts it, as the test does here).
build/sitescout db start >/dev/null
"$BIN" serve --listen "127.0.0.1:$API_PORT" --proxy "http://127.0.0.1:$REPLAY_PORT" \
  >"$SCRATCH/serve.out" 2>"$SCRATCH/serve.err" &
serve=$!
at_exit "kill $serve"
for _ in $(seq 200); do grep -q '^listening on ' "$SCRATCH/serve.out" && break; sleep 0.05; done
run_block README.md 3 "README: the curl session and export" \
  -e "s|^\(host=\$(curl .*\)$|wait_found http://127.0.0.1:$API_PORT\n\1|" \
  -e "s|^\(curl -s http://127.0.0.1:$API_PORT/api/jobs/\$id/sites/\$host/pages\)\(.*\)$|\1 >$SCRATCH/why.json\2|" \
  -e "s|^\(build/sitescout export .*\)$|wait_job 'done\\|failed' http://127.0.0.1:$API_PORT\n\1|"
rows=$(wc -l <"$SCRATCH/tmp/sitescout-sites.csv")
((rows >= 2)) || fail "export wrote no relevant website"
ok "... export wrote /tmp/sitescout-sites.csv ($rows lines)"
# "why that verdict" explains one: a website the crawl found and judged, with its prior,
# the posterior after each page and why the reading stopped (not a training website's nulls).
python3 - "$SCRATCH/why.json" <<'PY' || fail "README's 'why that verdict' explains nothing: $(head -c 600 "$SCRATCH/why.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["role"] == "discovered" and d["relevant"] is True, d["role"]
assert d["prior"] is not None and d["stop"]["reason"] and d["stop"]["verdict_by"], d["stop"]
assert d["pages"] and all(p["posterior"] is not None for p in d["pages"])
PY
ok "... 'why that verdict' explains a discovered website's verdict (prior, posteriors, stop reason)"
assert_contains "$(build/sitescout db psql -c 'select 1' 2>&1)" "1" "the embedded database still answers"

# --- README, the SQL line below the curl session.
sql=$(python3 -c "
import re, sys
m = re.search(r\"And with SQL: \`build/sitescout db psql -c '(.*?)'\`\", open(sys.argv[1]).read(), re.S)
print(' '.join(m.group(1).split()) if m else '')" "$SRC/README.md")
[[ $sql == select* ]] || fail "README's SQL line not found: '$sql'"
build/sitescout db psql -c "$sql" >"$SCRATCH/sql.out" 2>&1 || fail "README's SQL failed: $(cat "$SCRATCH/sql.out")"
ok "README: the SQL query runs ($sql)"

# --- docs/api.md, the endpoints, on the same server. Waits: for the job to crawl before
# the lines that read a site of it and pause it, and for it to end before DELETE.
run_block docs/api.md 2 "docs/api.md: every endpoint example" \
  -e "s|^\(curl -s \$API/api/jobs/\$id/sites/.*\)$|wait_job crawling \$API\n\1|" \
  -e "s|^\(host=\$(curl -s \"\$API/api/jobs/\$id/sites?relevant=true.*\)$|wait_found \$API\n\1|" \
  -e "s|^\(curl -s -X DELETE .*\)$|wait_job 'done\\|failed' \$API\n\1|"
assert_contains "$(cat "$SCRATCH/block.out")" "HTTP/1.1 201" "... the job was created (201)"
kill "$serve" && wait "$serve" 2>/dev/null || true

# --- docs/crawl.md: the crawl with labels (the README's replay); the figures the page
# states for it ("about 990 pages ... 17 to 20 relevant websites") within 10%.
run_block docs/crawl.md 1 "docs/crawl.md: crawl with labels" -e "$(drop_cmd 'crawl --resume')"
[[ -s $SCRATCH/tmp/sitescout-report.json ]] || fail "crawl.md's --report wrote nothing"
read -r pages relevant < <(sed -nE 's/^ *pages downloaded ([0-9]+), websites examined [0-9]+, relevant ([0-9]+).*/\1 \2/p' \
  "$SCRATCH/block.out" | head -1) || fail "the crawl printed no figures: $(tail -5 "$SCRATCH/block.out")"
read -r doc_pages doc_low doc_high < <(python3 -c "
import re, sys
t = ' '.join(open(sys.argv[1]).read().split())
m = re.search(r'after about ([\d,]+) pages with them.*?finds (\d+) to (\d+) relevant websites', t)
print(m.group(1).replace(',', ''), m.group(2), m.group(3)) if m else print('? ? ?')" "$SRC/docs/crawl.md")
[[ $doc_pages != '?' ]] || fail "docs/crawl.md no longer states the demo job's figures as the test reads them"
within() { python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(a - b) > 0.1 * b)" "$1" "$2"; }
within "$pages" "$doc_pages" || fail "the demo crawl downloaded $pages pages; docs/crawl.md says about $doc_pages"
# The relevant websites: the range the page states, widened by 10% (a borderline website or
# two turns with the pages the crawl happened to read: the answers' order varies).
python3 -c "import sys; n, lo, hi = map(float, sys.argv[1:]); sys.exit(not 0.9 * lo <= n <= 1.1 * hi)" \
  "$relevant" "$doc_low" "$doc_high" ||
  fail "the demo crawl found $relevant relevant websites; docs/crawl.md says $doc_low to $doc_high"
ok "... $pages pages and $relevant relevant websites, as docs/crawl.md says (about $doc_pages, $doc_low to $doc_high)"
precision=$(sed -nE 's/^ *against the labels: precision ([0-9.]+),.*/\1/p' "$SCRATCH/block.out" | head -1)
python3 -c "import sys; sys.exit(float(sys.argv[1]) < 0.9)" "${precision:-0}" ||
  fail "the demo crawl's precision is ${precision:-not printed}; docs/crawl.md says none is wrong"
ok "... none wrong: precision $precision against the labels"

# --- docs/experiment.md: the small experiment on the demo web (the dev web's skipped).
run_block docs/experiment.md 1 "docs/experiment.md: the demo experiment" -e "$(drop_cmd '../shared/webs/dev.warc.gz')"
[[ -s $SCRATCH/tmp/sitescout-demo/summary.md ]] || fail "experiment wrote no summary.md"
ok "... it wrote /tmp/sitescout-demo/summary.md"

# --- docs/replay.md: a replay (foreground in the doc: here in the background), fetched
# as a proxy and as an origin.
REPLAY_PORT=$(free_port)
run_block docs/replay.md 1 "docs/replay.md: the replay as proxy and origin" \
  -e "s|^\(sitescout replay .*\)$|\1 \&|"
[[ $(grep -ci '<html' "$SCRATCH/block.out") -ge 2 ]] || fail "replay.md's curls got no page: $(head -c 300 "$SCRATCH/block.out")"
ok "... both answers are the website's page"

# --- docs/dashboard.md: a replay and `serve` (foreground in the doc: here in the
# background on a free port), then the dashboard at /.
REPLAY_PORT=$(free_port)
API_PORT=$(free_port)
run_block docs/dashboard.md 1 "docs/dashboard.md: replay and serve" \
  -e "s|^\(build/sitescout serve.*\)$|\1 --listen 127.0.0.1:$API_PORT \&|" \
  -e "s|^# then, in a browser: \(.*\)$|curl -s \1 >$SCRATCH/dash.html|"
assert_contains "$(cat "$SCRATCH/dash.html")" "<title>sitescout" "... the dashboard answers at /"

# --- the examples wrote nothing into the directory they ran in (a clone, for a user).
extra=$(ls -A | grep -vxE 'demo|build' || true)
[[ -z $extra ]] || fail "the examples wrote into the clone: $extra"
ok "the examples wrote nothing into the clone (their outputs go to /tmp)"

# --- every sh block of README.md and docs/*.md was run or is listed as skipped.
for path in "$SRC/README.md" "$SRC"/docs/*.md; do
  file=${path#"$SRC/"}
  for n in $(seq "$("${BLOCK[@]}" "$path" 0)"); do
    [[ -n ${RUN[$file:$n]:-} || " ${SKIPPED[*]} " == *" $file:$n "* ]] ||
      fail "$file's sh block $n is neither run by examples.sh nor listed as skipped (with why)"
  done
done
ok "every sh block of README.md and docs/*.md is run or skipped with a reason (${#RUN[@]} run, ${#SKIPPED[@]} skipped)"
