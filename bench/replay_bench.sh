#!/usr/bin/env bash
# Benchmark `sitescout replay` on the dev web: index time, RSS after indexing, and
# homepage throughput with wrk -t2 -c64 (origin-form and proxy-form requests).
# Builds nothing: uses build/sitescout (or $SITESCOUT_BIN). Only talks to 127.0.0.1.
#
#   bench/replay_bench.sh [WARC]      default ../shared/webs/dev.warc.gz
#   DURATION=30s bench/replay_bench.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${SITESCOUT_BIN:-$ROOT/build/sitescout}
SHARED=${SITESCOUT_SHARED:-$ROOT/../shared}
WARC=${1:-$SHARED/webs/dev.warc.gz}
SITES=${WARC%.warc.gz}.sites.tsv
DURATION=${DURATION:-10s}

[ -x "$BIN" ] || { echo "no $BIN: build it first (cmake --build build)" >&2; exit 1; }
[ -f "$WARC" ] && [ -f "$SITES" ] || { echo "need $WARC and $SITES" >&2; exit 1; }
command -v wrk >/dev/null || { echo "wrk is not installed" >&2; exit 1; }

TMP=$(mktemp -d)
PID=
cleanup() {
    if [ -n "$PID" ]; then
        kill "$PID" 2>/dev/null || true
        wait "$PID" 2>/dev/null || true
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT

tail -n +2 "$SITES" | cut -f1 >"$TMP/hosts"
echo "# machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), $(free -g | awk '/^Mem:/ {print $2}') GiB"
echo "# binary:  $BIN ($("$BIN" version 2>/dev/null || echo "?"))"
echo "# archive: $WARC ($(stat -c %s "$WARC") bytes), $(wc -l <"$TMP/hosts") hosts"
cat "$WARC" >/dev/null # page cache warm, as it is for a server that was just started before

# 1. Start-up: index the archive, then print "listening on".
: >"$TMP/out" # exists before the server's own redirection creates it
t0=$(date +%s%N)
"$BIN" replay --warc "$WARC" --listen 127.0.0.1:0 >"$TMP/out" 2>"$TMP/err" &
PID=$!
until grep -q '^listening on ' "$TMP/out"; do
    kill -0 "$PID" 2>/dev/null || { cat "$TMP/err" >&2; exit 1; }
    sleep 0.005
done
t1=$(date +%s%N)
PORT=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$TMP/out")
index_s=$(sed -n 's/.* in \([0-9.]*\) s$/\1/p' "$TMP/err")
records=$(sed -n 's/.*indexed \([0-9]*\) records.*/\1/p' "$TMP/err")
rss_kb=$(awk '/^VmRSS/ {print $2}' "/proc/$PID/status")
echo "index:   $records records in ${index_s} s (start to 'listening': $(((t1 - t0) / 1000000)) ms)"
echo "rss:     $((rss_kb / 1024)) MB after indexing (VmRSS $rss_kb kB)"

# 2. Throughput: every host's homepage in turn, 2 threads, 64 connections.
# Server CPU time (utime + stime, in clock ticks) tells the cost per response even when
# other work shares the two cores.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
hz=$(getconf CLK_TCK)
for mode in origin proxy; do
    c0=$(cpu_ticks)
    wrk -t2 -c64 -d"$DURATION" --latency -s "$ROOT/bench/replay_homepages.lua" \
        "http://127.0.0.1:$PORT/" -- "$TMP/hosts" "$mode" >"$TMP/wrk.$mode"
    c1=$(cpu_ticks)
    n=$(awk '/requests in/ {print $1}' "$TMP/wrk.$mode")
    rps=$(awk '/^Requests\/sec:/ {print $2}' "$TMP/wrk.$mode")
    p50=$(awk '$1 == "50%" {print $2}' "$TMP/wrk.$mode")
    p99=$(awk '$1 == "99%" {print $2}' "$TMP/wrk.$mode")
    errs=$(grep -E 'Non-2xx|Socket errors' "$TMP/wrk.$mode" | tr -s ' ' | tr '\n' ';' || true)
    echo "wrk:     $mode-form homepages: $rps responses/s (p50 $p50, p99 $p99) ${errs:-no errors}"
    echo "cpu:     server $(((c1 - c0) * 1000000 / hz / n)) us CPU per response ($n responses)"
done
rss_kb=$(awk '/^VmRSS/ {print $2}' "/proc/$PID/status")
hwm_kb=$(awk '/^VmHWM/ {print $2}' "/proc/$PID/status")
echo "rss:     $((rss_kb / 1024)) MB after load (peak $((hwm_kb / 1024)) MB)"
echo "command: wrk -t2 -c64 -d$DURATION --latency -s bench/replay_homepages.lua http://127.0.0.1:PORT/ -- HOSTS [proxy]"
