#!/usr/bin/env bash
# The examples of README.md ("Using it", the curl session, the SQL line) and docs/api.md
# (the endpoints), run as written, in that order, against the demo web: each command must
# succeed and each curl must get a 2xx answer. What the test changes, and only that: the
# ports (free ones for 8080 and 8081), `build/sitescout` (the binary under test), a wait
# for the replay started with `&` to listen, and waits for the job to be crawling or to
# have ended before the lines that need it so (a site of it, DELETE, export). The server
# the curl examples talk to is started as the README's paragraph says. Skipped: README's
# first block (scripts/demo and scripts/test: demo.sh and CI run them) and `experiment`
# (eight 3,000-page crawls; experiment.sh runs it small).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
make_scratch
export SITESCOUT_HOME=$SCRATCH/home
mkdir -p "$SITESCOUT_HOME" "$SCRATCH/work/build"
chmod 755 "$SITESCOUT_HOME"
at_exit "'$BIN' db stop"
cd "$SCRATCH/work"
ln -s "$SRC/demo" demo
ln -s "$BIN" build/sitescout
BLOCK=("python3" "$SRC/tests/tools/md_blocks.py")
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
API_PORT=$(free_port)
REPLAY_PORT=$(free_port)

# The prelude of every block: curl fails on an HTTP error (--fail-with-body keeps the
# body for the message), and `wait_listening PORT` waits for a server started with `&`.
cat >prelude.sh <<PRE
set -euo pipefail
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
PRE

# run_block FILE N WHAT [SED...]: the block, ports changed, then the extra edits.
run_block() {
  local file=$1 n=$2 what=$3; shift 3
  "${BLOCK[@]}" "$SRC/$file" "$n" |
    sed -e "s/127\.0\.0\.1:8080/127.0.0.1:$API_PORT/g" -e "s/127\.0\.0\.1:8081/127.0.0.1:$REPLAY_PORT/g" "$@" \
      >"block.sh"
  cat prelude.sh block.sh >run.sh
  local status=0
  bash run.sh >"$SCRATCH/block.out" 2>&1 || status=$?
  ((status == 0)) || fail "$what: exit $status; the block as run:
$(cat block.sh)
--- its output (tail):
$(tail -20 "$SCRATCH/block.out")"
  ok "$what: every command succeeded ($(grep -cvE '^\s*(#|$)' block.sh) lines)"
}

# --- README, "Using it": db, replay (in the background), crawl, eval, db stop. The
# replay it starts stays up for the next blocks (stopped at exit).
run_block README.md 2 "README: Using it" \
  -e "s|^\(build/sitescout replay .*&\)\(.*\)$|\1\2\necho \$! >$SCRATCH/replay.pid; wait_listening $REPLAY_PORT|"
at_exit "kill \$(cat '$SCRATCH/replay.pid')"
assert_contains "$(cat "$SCRATCH/block.out")" "relevant" "... the crawl and eval reported what they found"
[[ -s report.json ]] || fail "crawl --report report.json wrote nothing"
ok "... crawl wrote report.json"

# --- README, the curl session, against `sitescout serve` on the embedded database (the
# server is not in the block: the paragraph before it starts it, as the test does here).
build/sitescout db start >/dev/null
"$BIN" serve --listen "127.0.0.1:$API_PORT" --proxy "http://127.0.0.1:$REPLAY_PORT" \
  >"$SCRATCH/serve.out" 2>"$SCRATCH/serve.err" &
serve=$!
at_exit "kill $serve"
for _ in $(seq 200); do grep -q '^listening on ' "$SCRATCH/serve.out" && break; sleep 0.05; done
run_block README.md 3 "README: the curl session and export" \
  -e "s|^\(curl -s http://127.0.0.1:$API_PORT/api/jobs/\$id/sites/.*\)$|wait_job crawling http://127.0.0.1:$API_PORT\n\1|" \
  -e "s|^\(build/sitescout export .*\)$|wait_job 'done\\|failed' http://127.0.0.1:$API_PORT\n\1|"
rows=$(wc -l <sites.csv)
((rows >= 1)) || fail "export wrote no header line"
ok "... export wrote sites.csv ($rows lines)"
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
  -e "s|^\(curl -s -X DELETE .*\)$|wait_job 'done\\|failed' \$API\n\1|"
assert_contains "$(cat "$SCRATCH/block.out")" "HTTP/1.1 201" "... the job was created (201)"
