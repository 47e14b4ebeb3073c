#!/usr/bin/env bash
# The database's cost of a crawl (issue 15): JOBS website crawls of BUDGET pages, one
# after another on one private PostgreSQL (so the later ones meet the earlier ones'
# rows), each with the crawler's and PostgreSQL's CPU seconds and, per 1,000 pages, the
# statements, transactions and WAL bytes, from pg_stat_statements and
# pg_stat_database, and the full-page images written to the WAL (pg_stat_wal). Prints one row per job, the
# ratio over all of them, the row updates of the last job, then the statements that cost
# the last job most.
#
# Usage: bench/dbcost.sh [--web dev|dev-large] [--budget N] [--jobs N] [--topic T]
#                        [--workers N] [--pg-conf 'name = value']... [--no-statements]
#                        [-- extra crawl options, e.g. --set k=v]
#   defaults: dev, 3000 pages, 3 jobs, sci.space, 1 process. --workers N runs each job
#   with `serve --workers 0` and N `sitescout worker` processes instead of `crawl`.
#   Uses build/sitescout (SITESCOUT_BIN); dev-large is built on demand by
#   bench/dev_large.sh. --no-statements runs PostgreSQL without pg_stat_statements (its
#   own cost, with track_planning, is in pg_cpu otherwise; the statement columns then
#   print "-").
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${SITESCOUT_BIN:-$top/build/sitescout}
shared=${SITESCOUT_SHARED:-$top/../shared}
webname=dev budget=3000 jobs=3 topic=sci.space workers=0 pgconf="" statements=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --web) webname=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --topic) topic=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    --pg-conf) pgconf+="$2"$'\n'; shift 2 ;;
    --no-statements) statements=0; shift ;;
    --) shift; break ;;
    *) echo "dbcost.sh: unknown option $1 (see the head of the script)" >&2; exit 2 ;;
  esac
done
case $webname in
  dev) web=$shared/webs/dev ;;
  dev-large) web=$("$top/bench/dev_large.sh") ;;
  *) echo "dbcost.sh: --web dev or dev-large" >&2; exit 2 ;;
esac

tmp=$(mktemp -d /tmp/dbcost.XXXXXX)
chmod 755 "$tmp"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  "$bin" db --data-dir "$tmp/pg" stop >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
"$bin" replay --warc "$web.warc.gz" --listen 127.0.0.1:0 >"$tmp/replay" 2>&1 &
pids+=($!)
for _ in $(seq 1200); do grep -q '^listening' "$tmp/replay" && break; sleep 0.1; done
proxy="http://$(sed -n 's/^listening on //p' "$tmp/replay")"

# A private cluster with pg_stat_statements loaded.
"$bin" db --data-dir "$tmp/pg" start >/dev/null 2>&1
"$bin" db --data-dir "$tmp/pg" stop >/dev/null 2>&1
if ((statements)); then
  printf "shared_preload_libraries = 'pg_stat_statements'\npg_stat_statements.track_planning = on\n" \
    >>"$tmp/pg/data/postgresql.conf"
fi
printf "%s" "$pgconf" >>"$tmp/pg/data/postgresql.conf"
"$bin" db --data-dir "$tmp/pg" start >/dev/null 2>&1
db=$("$bin" db --data-dir "$tmp/pg" url)
q() { psql "$db" -X -q -tA -v ON_ERROR_STOP=1 -c "$1"; }
((statements)) && q "create extension if not exists pg_stat_statements" >/dev/null
"$bin" db --db "$db" migrate >/dev/null 2>&1

# CPU seconds of the cluster's processes (the postmaster and its children).
pg_cpu() {
  local pm
  pm=$(head -1 "$tmp/pg/data/postmaster.pid")
  python3 - "$pm" <<'PY'
import os, sys
pm, hz, total = int(sys.argv[1]), os.sysconf("SC_CLK_TCK"), 0
for d in os.listdir("/proc"):
    if not d.isdigit():
        continue
    try:
        f = open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        continue
    if int(d) == pm or int(f[1]) == pm:   # ppid
        total += int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])  # utime stime cutime cstime
print(total / hz)
PY
}

# One job: `crawl`, or serve --workers 0 plus N workers; prints its id, seconds and the
# crawler processes' CPU seconds.
run_job() {
  if ((workers == 0)); then
    /usr/bin/time -f '%U %S' -o "$tmp/cpu" "$bin" crawl --db "$db" --job "$web.jobs.json" \
      --topic "$topic" --proxy "$proxy" --report "$tmp/r.json" --set politeness_delay_ms=0 \
      --set max_pages="$budget" "$@" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    python3 - "$tmp/r.json" "$tmp/cpu" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); u, s = open(sys.argv[2]).read().split()[-2:]
print(r["job_id"], r["seconds"], float(u) + float(s))
PY
    return
  fi
  python3 - "$web.jobs.json" "$topic" "$budget" >"$tmp/job.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))[sys.argv[2]]
d["params"] = {"politeness_delay_ms": 0, "max_pages": int(sys.argv[3])}
json.dump(d, open("/dev/stdout", "w"))
PY
  local wp=() w job t0 t1
  for w in $(seq "$workers"); do
    "$bin" worker --db "$db" --proxy "$proxy" --jobs 1 >"$tmp/w$w.out" 2>"$tmp/w$w.err" &
    wp+=($!)
  done
  for w in $(seq "$workers"); do
    for _ in $(seq 200); do grep -q '^working' "$tmp/w$w.out" && break; sleep 0.05; done
  done
  t0=$(date +%s.%N)
  job=$(curl -sf -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/job.json" \
    "$api/api/jobs" | python3 -c "import json,sys; print(json.load(sys.stdin)['id'])")
  until [[ $(q "select state from jobs where id = $job") =~ ^(done|failed)$ ]]; do sleep 0.2; done
  t1=$(date +%s.%N)
  local cpu
  cpu=$(python3 - "${wp[@]}" <<'PY'
import os, sys
hz, total = os.sysconf("SC_CLK_TCK"), 0
for p in sys.argv[1:]:
    f = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
    total += int(f[11]) + int(f[12])
print(total / hz)
PY
)
  kill "${wp[@]}"
  wait "${wp[@]}" 2>/dev/null || true
  # The job's seconds from its training's end: as `crawl`'s report counts them.
  local secs
  secs=$(q "select extract(epoch from (finished_at - started_at)) from jobs where id = $job")
  echo "$job $secs $cpu"
}

if ((workers > 0)); then
  "$bin" serve --listen 127.0.0.1:0 --db "$db" --workers 0 >"$tmp/serve" 2>&1 &
  pids+=($!)
  for _ in $(seq 200); do grep -q '^listening' "$tmp/serve" && break; sleep 0.05; done
  api="http://$(sed -n 's/^listening on //p' "$tmp/serve")"
fi

# CPU seconds of one process (the replay's: the web's own share of the machine).
proc_cpu() {
  python3 -c 'import os, sys
f = open(f"/proc/{sys.argv[1]}/stat").read().rsplit(")", 1)[1].split()
print((int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK"))' "$1"
}

# Full-page images written to the WAL so far: the first change of a page after a
# checkpoint begins writes the whole page (a timed checkpoint begins every 5 minutes).
fpi() { q "select wal_fpi from pg_stat_wal"; }

printf '%4s %7s %8s %9s %9s %9s %10s %10s %10s %9s %7s\n' job pages pages/s crawl_cpu pg_cpu \
  pg/crawl replay_cpu stmts/1k xacts/1k walMB/1k fpi/1k
: >"$tmp/cpus"
for i in $(seq "$jobs"); do
  ((statements)) && q "select pg_stat_statements_reset()" >/dev/null
  q "select pg_stat_reset()" >/dev/null
  lsn=$(q "select pg_current_wal_lsn()")
  cpu0=$(pg_cpu)
  fpi0=$(fpi)
  rcpu0=$(proc_cpu "${pids[0]}")
  read -r job secs ccpu < <(run_job "$@")
  cpu1=$(pg_cpu)
  rcpu=$(python3 -c "print($(proc_cpu "${pids[0]}") - $rcpu0)")
  pages=$(q "select pages_downloaded from jobs where id = $job")
  stmts=-1
  ((statements)) && stmts=$(q "select coalesce(sum(calls), 0) from pg_stat_statements
    where query !~* 'pg_stat_statements|pg_stat_reset|pg_current_wal_lsn'")
  xacts=$(q "select xact_commit + xact_rollback from pg_stat_database where datname = current_database()")
  wal=$(q "select pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn')")
  fpis=$(($(fpi) - fpi0))
  echo "$ccpu $cpu0 $cpu1" >>"$tmp/cpus"
  python3 - "$job" "$pages" "$secs" "$ccpu" "$cpu0" "$cpu1" "$stmts" "$xacts" "$wal" "$rcpu" \
    "$fpis" <<'PY'
import sys
job, pages, secs, ccpu, c0, c1, stmts, xacts, wal, rcpu, fpis = sys.argv[1:]
pages, secs, ccpu, pg = int(pages), float(secs), float(ccpu), float(c1) - float(c0)
k = pages / 1000 if pages else 1
st = "%.0f" % (int(stmts) / k) if int(stmts) >= 0 else "-"
print("%4s %7d %8.0f %9.1f %9.1f %9.2f %10.1f %10s %10.0f %9.2f %7.0f" % (job, pages, pages / secs,
      ccpu, pg, pg / ccpu if ccpu else 0, float(rcpu), st, int(xacts) / k, int(float(wal)) / k / 1e6,
      int(fpis) / k))
PY
done
# A checkpoint's cost (its writes, the full-page images after it) falls into the jobs it
# begins in: over all the jobs, PostgreSQL's CPU against the crawler's.
python3 - "$tmp/cpus" <<'PY'
import sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
crawl, pg = sum(r[0] for r in rows), sum(r[2] - r[1] for r in rows)
print("all jobs: crawler %.1f s, PostgreSQL %.1f s, PG / crawl %.2f" % (crawl, pg, pg / crawl))
PY
echo
echo "row updates in the last job (table, updates, of them HOT, inserts, dead rows):"
q "select relname, n_tup_upd, n_tup_hot_upd, n_tup_ins, n_dead_tup from pg_stat_user_tables
   where relname in ('sites', 'pages', 'edges', 'jobs') order by relname" | tr '|' '\t'
((statements)) || exit 0
echo
echo "the last job's costliest statements (calls, total ms, planning ms, mean ms, query):"
q "select sum(calls), round(sum(total_exec_time)::numeric, 0), round(sum(total_plan_time)::numeric, 0)
   from pg_stat_statements" | tr '|' '\t' | sed 's/^/all: /'
q "select calls, round(total_exec_time::numeric, 0), round(total_plan_time::numeric, 0),
   round(mean_exec_time::numeric, 3),
   left(regexp_replace(query, '\s+', ' ', 'g'), 110) from pg_stat_statements
   order by total_exec_time desc limit 12" | tr '|' '\t'
