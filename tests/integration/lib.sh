# Shared helpers for the bash integration tests (sourced, not run).
# CTest passes SITESCOUT_BIN (the binary under test), SITESCOUT_SRC and SITESCOUT_SHARED.
set -euo pipefail

BIN=${SITESCOUT_BIN:?SITESCOUT_BIN must name the sitescout binary}
SRC=${SITESCOUT_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
SHARED=${SITESCOUT_SHARED:-$SRC/../shared}
export SITESCOUT_LOG=${SITESCOUT_LOG:-warn}
unset SITESCOUT_DB

# The tests start python3 and psql hundreds of times: a directory first on the PATH names
# the interpreters themselves, not wrappers that start another interpreter first. For
# python3, Debian's (scripts/setup.sh installs it; the tests use its standard library
# only), not a pyenv shim (~0.6 CPU-seconds a start); for psql, the newest PostgreSQL's,
# not Debian's pg_wrapper (a Perl script: 60 ms against 15). Links, not shell functions:
# `python3 ... &` must give $! the interpreter's own process to kill.
TOOLDIR=$(mktemp -d /tmp/sitescout-tools.XXXXXX)
chmod 755 "$TOOLDIR" # also for the tests that run a command as nobody
[[ -x /usr/bin/python3 ]] && ln -s /usr/bin/python3 "$TOOLDIR/python3"
real_psql=$(ls /usr/lib/postgresql/*/bin/psql 2>/dev/null | sort -V | tail -1 || true)
[[ -n $real_psql ]] && ln -s "$real_psql" "$TOOLDIR/psql"
PATH=$TOOLDIR:$PATH

checks=0
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { checks=$((checks + 1)); echo "ok $checks - $*"; }

# assert_eq EXPECTED ACTUAL WHAT
assert_eq() { [[ "$1" == "$2" ]] || fail "$3: expected '$1', got '$2'"; ok "$3"; }
# assert_contains HAYSTACK NEEDLE WHAT
assert_contains() { [[ "$1" == *"$2"* ]] || fail "$3: '$2' not in: $1"; ok "$3"; }
# assert_status EXPECTED WHAT -- command...
assert_status() {
  local want=$1 what=$2; shift 3
  local got=0
  "$@" >/dev/null 2>&1 || got=$?
  [[ $got -eq $want ]] || fail "$what: exit $got, expected $want"
  ok "$what"
}

# A private scratch directory the postgres user can reach, removed at exit.
make_scratch() {
  SCRATCH=$(mktemp -d /tmp/sitescout-test.XXXXXX)
  chmod 755 "$SCRATCH"
  cleanup_hooks=("${cleanup_hooks[@]}")
}
cleanup_hooks=()
on_exit() {
  local rc=$?
  for hook in "${cleanup_hooks[@]}"; do eval "$hook" >/dev/null 2>&1 || true; done
  [[ -n ${SCRATCH:-} ]] && rm -rf "$SCRATCH"
  rm -rf "$TOOLDIR"
  if [[ $rc -eq 0 ]]; then echo "$checks passed, 0 failed"; fi
  exit $rc
}
trap on_exit EXIT
at_exit() { cleanup_hooks+=("$1"); }

# Start a private PostgreSQL cluster in $SCRATCH/pg; sets PGDIR and DB_URL.
start_private_pg() {
  PGDIR=$SCRATCH/pg
  "$BIN" db --data-dir "$PGDIR" start >/dev/null
  at_exit "'$BIN' db --data-dir '$PGDIR' stop"
  DB_URL=$("$BIN" db --data-dir "$PGDIR" url)
}

# pg_crash DIR: an immediate stop of the private cluster in DIR (its sessions end without a
# word, as in a crash), as the postgres user when run as root.
pg_crash() {
  local pg_ctl
  pg_ctl=$(ls /usr/lib/postgresql/*/bin/pg_ctl | sort -V | tail -1)
  if [[ $(id -u) == 0 ]]; then
    runuser -u postgres -- "$pg_ctl" -D "$1/data" -m immediate stop >/dev/null
  else
    "$pg_ctl" -D "$1/data" -m immediate stop >/dev/null
  fi
}

# wait_no_lease JOB: a runner sets its job done, then lets the lease go: wait for that
# (60 s at most), not for a time; the caller asserts the outcome.
wait_no_lease() {
  for _ in $(seq 600); do
    [[ -z $(psql_q "select worker from jobs where id = $1") ]] && return 0
    sleep 0.1
  done
}

# A loopback TCP port nothing listens on (connections to it are refused).
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

psql_q() { psql "$DB_URL" -X -q -tA -v ON_ERROR_STOP=1 -c "$1"; }

# start_replay LOGFILE ARGS...: a replay server on a free port; sets PROXY.
start_replay() {
  local log=$1; shift
  local out="$SCRATCH/replay.$RANDOM.out"
  "$BIN" replay --listen 127.0.0.1:0 --access-log "$log" "$@" >"$out" 2>&1 &
  local pid=$!
  at_exit "kill $pid"
  for _ in $(seq 1200); do # 60 s: a large archive is indexed first
    grep -q '^listening on ' "$out" && break
    kill -0 "$pid" 2>/dev/null || fail "replay did not start: $(cat "$out")"
    sleep 0.05
  done
  grep -q '^listening on ' "$out" || fail "replay is not listening after 60 s: $(cat "$out")"
  PROXY="http://$(sed -n 's/^listening on //p' "$out")"
  REPLAY_PID=$pid
}

# stop_replay: SIGTERM the last replay server and wait, so its access log is complete.
stop_replay() {
  kill -TERM "$REPLAY_PID"
  wait "$REPLAY_PID" 2>/dev/null || true
}

# start_serve OUT ARGS...: sitescout serve on a free port; sets API and SERVE_PID.
start_serve() {
  local out=$1; shift
  "$BIN" serve --listen 127.0.0.1:0 --db "$DB_URL" --proxy "$PROXY" "$@" >"$out" 2>"$out.err" &
  SERVE_PID=$!
  at_exit "kill -9 $SERVE_PID"
  for _ in $(seq 1200); do # 60 s
    grep -q '^listening on ' "$out" && break
    kill -0 "$SERVE_PID" 2>/dev/null || fail "serve did not start: $(cat "$out" "$out.err")"
    sleep 0.05
  done
  grep -q '^listening on ' "$out" || fail "serve is not listening after 60 s: $(cat "$out" "$out.err")"
  API="http://$(sed -n 's/^listening on //p' "$out")"
}

# The demo job, sci.space, with or without a politeness delay.
# (JOB_PARAMS, a JSON object, adds to the params: '{"judge_pages": 200}', say.)
job_body() { # job_body DELAY_MS CONCURRENCY OUT [MAX_PAGES [TRAIN_PAGES_PER_SITE]]
  python3 - "$SRC/demo/demo.jobs.json" "$1" "$2" "${4:-0}" "${5:-0}" "${JOB_PARAMS:-{\}}" >"$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["sci.space"]
d["params"] = {"politeness_delay_ms": int(sys.argv[2]), "concurrency": int(sys.argv[3])}
if int(sys.argv[4]) > 0:
    d["params"]["max_pages"] = int(sys.argv[4])
if int(sys.argv[5]) > 0:
    d["params"]["train_pages_per_site"] = int(sys.argv[5])
d["params"].update(json.loads(sys.argv[6]))
json.dump(d, open("/dev/stdout", "w"))
PY
}

# assert_job_counts JOB WHAT: the job's counters equal its rows (examined and relevant
# websites, training ones aside) and no website is left claimed.
assert_job_counts() {
  local counted="job_id = $1 and role not in ('train', 'train_other') and state = 'examined'"
  assert_eq "$(psql_q "select count(*) from sites where $counted")" \
    "$(psql_q "select sites_examined from jobs where id = $1")" "$2: examined websites counted once each"
  assert_eq "$(psql_q "select count(*) from sites where $counted and relevant")" \
    "$(psql_q "select relevant_found from jobs where id = $1")" "$2: relevant websites counted once each"
  assert_eq 0 "$(psql_q "select count(*) from sites where job_id = $1 and state = 'claimed'")" \
    "$2: no website left claimed"
}
