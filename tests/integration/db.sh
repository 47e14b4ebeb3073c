#!/usr/bin/env bash
# The embedded PostgreSQL cluster and the schema: start/stop/status, migrations
# (idempotent, concurrent), the relevant_websites view, crash recovery, non-root use.
source "$(dirname "$0")/lib.sh"
make_scratch
start_private_pg
db() { "$BIN" db --data-dir "$PGDIR" "$@"; }

# --- start, status, url, psql
out=$(db status)
assert_contains "$out" "running (pid" "status says running"
assert_contains "$DB_URL" "postgresql://sitescout@/sitescout?host=$PGDIR/run" "url points at the private socket"
assert_eq "1" "$(db psql -X -tA -c 'select 1')" "db psql -c runs a query"
# The newest migration is the schema version.
latest=$(ls "$SRC/sql" | sed -n 's/^0*\([0-9][0-9]*\)_.*\.sql$/\1/p' | sort -n | tail -1)
n_migrations=$(ls "$SRC/sql" | grep -c '^[0-9][0-9][0-9]_.*\.sql$')
assert_eq "$(db start | head -1)" "PostgreSQL is running; schema version $latest" "start when running is a no-op"

# A relative --data-dir is the same cluster, named from the current directory.
rel=$(cd "$(dirname "$PGDIR")" && "$BIN" db --data-dir "$(basename "$PGDIR")" status)
assert_contains "$rel" "running (pid" "a relative --data-dir finds the running cluster"
assert_contains "$rel" "host=$PGDIR/run" "... and names its socket by an absolute path"

# --- migrations: applied once, second run is a no-op
assert_eq "schema version $latest" "$("$BIN" db --db "$DB_URL" migrate)" "migrate reports the version"
assert_eq "schema version $latest" "$("$BIN" db --db "$DB_URL" migrate)" "migrate again: same version"
assert_eq "$n_migrations" "$(psql_q 'select count(*) from schema_migrations')" "one row per migration"
for t in jobs sites edges pages metrics models; do
  assert_eq "$t" "$(psql_q "select to_regclass('public.$t')")" "table $t exists"
done
assert_eq "job_id 30 state 30" "$(psql_q "select string_agg(attname || ' ' || attstattarget, ' '
  order by attname) from pg_attribute where attrelid = 'sites'::regclass
  and attname in ('job_id', 'state')")" "the crawl's own columns of sites have a small statistics target"

# --- two migrators at once on an empty database: both succeed, one schema
psql_q 'create database race'
RACE_URL=${DB_URL/\/sitescout\?/\/race?}
"$BIN" db --db "$RACE_URL" migrate >"$SCRATCH/m1" 2>&1 &
p1=$!
"$BIN" db --db "$RACE_URL" migrate >"$SCRATCH/m2" 2>&1 &
p2=$!
wait $p1 || fail "first concurrent migrator failed: $(cat "$SCRATCH/m1")"
wait $p2 || fail "second concurrent migrator failed: $(cat "$SCRATCH/m2")"
ok "two concurrent migrators both succeed"
assert_eq "$n_migrations" "$(psql "$RACE_URL" -X -tA -c 'select count(*) from schema_migrations')" \
  "concurrent migrators applied the schema once"

# --- the user-facing view answers, best first, training sites excluded
psql_q "insert into jobs (id, topic, body, params) values (7, 'sci.space', '{}', '{}')"
psql_q "insert into sites (job_id, host, homepage, role, state, confidence, relevant, pages_visited, examined_at) values
  (7, 'train.example', 'http://train.example/', 'train', 'examined', 0.99, true, 25, now()),
  (7, 'b.example', 'http://b.example/', 'discovered', 'examined', 0.80, true, 4, now()),
  (7, 'a.example', 'http://a.example/', 'discovered', 'examined', 0.95, true, 6, now()),
  (7, 'no.example', 'http://no.example/', 'discovered', 'examined', 0.10, false, 2, now()),
  (7, 'start.example', 'http://start.example/', 'start', 'examined', 0.90, true, 3, now()),
  (7, 'border.example', 'http://border.example/', 'discovered', 'border', null, null, 0, null)"
got=$(psql_q "select string_agg(host || ':' || position || ':' || role || ':' || pages_visited, ',' order by position) from relevant_websites where job_id = 7")
assert_eq "a.example:1:discovered:6,start.example:2:start:3,b.example:3:discovered:4" "$got" \
  "relevant_websites lists relevant examined sites by position, start sites marked by role"
assert_eq "http://a.example/" "$(psql_q "select homepage from relevant_websites where job_id = 7 and position = 1")" \
  "relevant_websites has the homepage"
assert_eq "" "$(psql_q "select column_name from information_schema.columns where table_name = 'relevant_websites' and column_name = 'rank'")" \
  "the view has no 'rank' column: rank is the border rank (sites.rank), position the place in the list"

# --- a database that is not there: a clear one-line error, exit 1
err=$("$BIN" db --db "postgresql:///x?host=$SCRATCH/nowhere" migrate 2>&1 || true)
assert_contains "$err" "sitescout db: cannot connect to the database" "unreachable --db is reported"

# --- kill -9 of the server (with a client connected) and start again: recovered
psql "$DB_URL" -X -c 'select pg_sleep(60)' >/dev/null 2>&1 &
sleeper=$!
sleep 0.5
kill -9 "$(head -1 "$PGDIR/data/postmaster.pid")"
for _ in $(seq 300); do db status >/dev/null 2>&1 || [[ $? != 3 ]] || break; sleep 0.1; done
assert_status 3 "status after kill -9 says stopped (exit 3)" -- db status
db start >/dev/null || fail "start after kill -9 failed: $(tail -5 "$PGDIR/postgres.log")"
ok "start after kill -9 recovers"
assert_eq "3" "$(psql_q 'select count(*) from relevant_websites where job_id = 7')" "data survives the crash"
kill "$sleeper" 2>/dev/null || true

# --- a stale pid file naming a live process that is not PostgreSQL
db stop >/dev/null
sleep 300 &
impostor=$!
at_exit "kill $impostor"
printf '%s\n%s\n' "$impostor" "$PGDIR/data" >"$PGDIR/data/postmaster.pid"
chown --reference="$PGDIR/data" "$PGDIR/data/postmaster.pid"
db start >/dev/null || fail "start with a stale pid file failed: $(tail -5 "$PGDIR/postgres.log")"
ok "start with a stale pid file recovers"
assert_eq "1" "$(db psql -X -tA -c 'select 1')" "queries work after stale-pid recovery"

# --- stop
assert_eq "stopped" "$(db stop)" "stop"
assert_status 3 "status after stop exits 3" -- db status
assert_eq "stopped" "$(db stop)" "stop when stopped is fine"

# --- as a normal user (when we are root): own cluster, same commands. The clone may sit
# where that user cannot go (root's home, a private mktemp -d), so the user gets what it
# needs in a directory of its own: a copy of the binary (the migrations are compiled in)
# and SITESCOUT_HOME there.
if [[ $(id -u) -eq 0 ]]; then
  home=$SCRATCH/user
  mkdir -p "$home/bin"
  cp "$BIN" "$home/bin/sitescout"
  chown -R nobody "$home"
  as_nobody() {
    (cd "$home" && runuser -u nobody -- env SITESCOUT_LOG=warn SITESCOUT_HOME="$home" \
      "$home/bin/sitescout" db --data-dir "$home/pg" "$@")
  }
  at_exit "cd '$home' && runuser -u nobody -- env SITESCOUT_HOME='$home' '$home/bin/sitescout' db --data-dir '$home/pg' stop"
  as_nobody start >/dev/null || fail "db start as a normal user failed"
  ok "db start as a normal user"
  assert_eq "1" "$(as_nobody psql -X -tA -c 'select 1')" "db psql as a normal user"
  assert_eq "nobody" "$(stat -c %U "$home/pg/data")" "the normal user's cluster belongs to them"
  as_nobody stop >/dev/null
fi
