#!/usr/bin/env bash
# scripts/demo as a user runs it: off a terminal with --keep it crawls the demo job to
# the end, prints the relevant websites and keeps the dashboard up until SIGTERM; stopped
# mid-crawl it ends too. Either way it leaves no server running and no temporary file.
# The demo's embedded PostgreSQL lives in a scratch SITESCOUT_HOME, stopped at the end.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
make_scratch
export SITESCOUT_HOME=$SCRATCH/home TMPDIR=$SCRATCH/tmp
mkdir -p "$SITESCOUT_HOME" "$TMPDIR"
chmod 755 "$SITESCOUT_HOME"
DEMO=$SRC/scripts/demo
at_exit "'$SRC/build/sitescout' db stop"

# wait_for FILE TEXT SECONDS PID: until FILE holds TEXT; fails if PID ends first.
wait_for() {
  for _ in $(seq $(($3 * 10))); do
    grep -q "$2" "$1" && return 0
    kill -0 "$4" 2>/dev/null || fail "the demo ended before '$2': $(tail -5 "$1") $(tail -5 "$1.err")"
    sleep 0.1
  done
  fail "no '$2' within $3 s: $(tail -5 "$1")"
}

# left_behind ADDRS...: what the demo left: files in TMPDIR, processes holding a file
# there open, addresses still answering. Empty when clean.
left_behind() {
  local what=""
  [[ -z $(ls -A "$TMPDIR") ]] || what+="files: $(ls -A "$TMPDIR"); "
  local fds
  fds=$(find /proc/[0-9]*/fd -lname "$TMPDIR/*" 2>/dev/null | cut -d/ -f3 | sort -u | tr '\n' ' ')
  [[ -z $fds ]] || what+="processes: $fds; "
  for addr in "$@"; do
    curl -s -o /dev/null --max-time 2 "http://$addr/" && what+="still answering: $addr; "
  done
  echo "$what"
}

# terminate PID WHAT: SIGTERM the demo; it must end non-zero and leave nothing behind
# (uses $api and $proxy, the addresses it printed).
terminate() {
  kill -TERM "$1"
  local status=0
  wait "$1" || status=$?
  ((status != 0)) || fail "the demo exited 0 on SIGTERM"
  ok "$2 (exit $status)"
  assert_eq "" "$(left_behind "$api" "$proxy")" "... leaving no server, process or temporary file"
}

# --- the whole demo, kept up with --keep, then SIGTERM
"$DEMO" --port 0 --keep </dev/null >"$SCRATCH/keep.out" 2>"$SCRATCH/keep.out.err" &
demo=$!
at_exit "kill $demo"
wait_for "$SCRATCH/keep.out" 'press Ctrl-C to stop' 420 "$demo"
out=$(cat "$SCRATCH/keep.out")
assert_contains "$out" "== job 1: done" "the demo job ran to its end"
assert_contains "$out" "== top relevant websites" "... and the demo printed the websites it found"
ranked=$(grep -cE '^ +[0-9]+\. http' "$SCRATCH/keep.out" || true)
((ranked >= 3)) || fail "only $ranked relevant websites listed: $out"
ok "$ranked relevant websites listed, best first"
read -r proxy api < <(sed -n 's/^ *replay web: http:\/\/\([^ ]*\) *dashboard: http:\/\/\([^/]*\)\/.*/\1 \2/p' "$SCRATCH/keep.out")
[[ -n $api && -n $proxy ]] || fail "no addresses in: $out"
assert_eq 200 "$(curl -s -o /dev/null -w '%{http_code}' "http://$api/api/jobs/1")" \
  "with --keep the dashboard stays up after the job"
terminate "$demo" "SIGTERM ends the kept demo"

# --- stopped in the middle of its crawl
"$DEMO" --port 0 </dev/null >"$SCRATCH/stop.out" 2>"$SCRATCH/stop.out.err" &
demo=$!
at_exit "kill $demo"
wait_for "$SCRATCH/stop.out" '== job 2 posted' 300 "$demo"
read -r proxy api < <(sed -n 's/^ *replay web: http:\/\/\([^ ]*\) *dashboard: http:\/\/\([^/]*\)\/.*/\1 \2/p' "$SCRATCH/stop.out")
terminate "$demo" "SIGTERM during the crawl ends the demo"

# --- a usage error says so
assert_status 2 "an unknown option is a usage error" -- "$DEMO" --bogus
