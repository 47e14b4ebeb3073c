#!/usr/bin/env bash
# The issue-4 fetcher benchmark: a breadth-first fetch of a whole replay web by sitescout
# (bench/fetch_bench, ROUNDS times), wget -r, wget2 -r (32 threads, as issue 15 races it)
# and a minimal Scrapy spider, one after the
# other through one `sitescout replay`, each counted from its own figures and from the
# replay's access log (bench/fetch_count.py); then html_bench's gumbo-only ceiling.
# Figures and how to read them: docs/benchmarks/fetch.md, "Fetching (issue 4)". Only talks to
# 127.0.0.1 (every tool goes through the replay proxy, https included).
#
#   bench/fetch_compare.sh [WARC]      default ../shared/webs/dev.warc.gz
#   BUILD=DIR  a Release build (default build-bench):
#       cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release && cmake --build build-bench -j2
#   ROUNDS=N   fetch_bench runs (default 3)    TOOLS="sitescout wget wget2 scrapy html" (default all)
#   KEEP=1     keep the scratch directory (logs, the access log, wget's files)
# Needs wget, wget2, GNU time and Debian's python3-scrapy; installs them with apt-get when
# run as root.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build-bench}
BIN=${SITESCOUT_BIN:-$BUILD/sitescout}
FETCH_BENCH=$BUILD/bench/fetch_bench
HTML_BENCH=$BUILD/bench/html_bench
SHARED=${SITESCOUT_SHARED:-$ROOT/../shared}
WARC=${1:-$SHARED/webs/dev.warc.gz}
SITES=${WARC%.warc.gz}.sites.tsv
ROUNDS=${ROUNDS:-3}
TOOLS=${TOOLS:-sitescout wget wget2 scrapy html}
START_HOST=start.fetch-compare.test # wget's start page (below)
SCRAPY=/usr/bin/scrapy # Debian's, whatever python3 comes first on PATH

die() { echo "fetch_compare: $*" >&2; exit 1; }
want() { [[ " $TOOLS " == *" $1 "* ]]; }
for f in "$BIN" "$FETCH_BENCH" "$HTML_BENCH"; do
    [[ -x $f ]] || die "no $f: build it first (see the top of $0)"
done
[[ -f $WARC && -f $SITES ]] || die "need $WARC and $SITES"

missing=()
command -v wget >/dev/null || missing+=(wget)
command -v wget2 >/dev/null || missing+=(wget2)
[[ -x /usr/bin/time ]] || missing+=(time)
[[ -x $SCRAPY ]] || missing+=(python3-scrapy)
if ((${#missing[@]})); then
    [[ $(id -u) -eq 0 ]] || die "missing Debian packages; as root: apt-get install -y ${missing[*]}"
    echo "== installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
        { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
fi

TMP=$(mktemp -d /tmp/fetch-compare.XXXXXX)
PID=
cleanup() {
    if [[ -n $PID ]]; then
        kill "$PID" 2>/dev/null || true
        wait "$PID" 2>/dev/null || true
    fi
    if [[ -n ${KEEP:-} ]]; then echo "scratch kept: $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

echo "# date:    $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "# machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), $(free -g | awk '/^Mem:/ {print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# source:  $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo "?"); $BUILD ($(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$BUILD/CMakeCache.txt" 2>/dev/null))"
echo "# tools:   $(wget --version | head -1); $(wget2 --version | head -1); $("$SCRAPY" version 2>/dev/null)"
echo "# web:     $WARC ($(stat -c %s "$WARC") bytes), $(($(wc -l <"$SITES") - 1)) homepages"
tail -n +2 "$SITES" | cut -f1 | sed 's|.*|http://&/|' >"$TMP/homepages"
# wget -r -i FILE runs one recursion per line of FILE, and each asks again for the URLs
# that failed (404, 502) in the ones before: on the dev web it had made 2.8 million
# requests after 14 minutes and was still going (docs/benchmarks/fetch.md). So wget starts from one
# page that links to every homepage instead, served by the replay from a second,
# one-record archive; it is not part of the web's page counts.
START=http://$START_HOST/
python3 - "$TMP/homepages" "$START" >"$TMP/start.warc" <<'PY'
import sys
links = ''.join('<a href="%s">%s</a>\n' % (u.strip(), u.strip()) for u in open(sys.argv[1]) if u.strip())
body = ('<!DOCTYPE html>\n<html><head><title>start</title></head><body>\n%s</body></html>\n' % links).encode()
http = b'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n' % len(body) + body
head = ('WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: %s\r\nWARC-Date: 2004-01-01T00:00:00Z\r\n'
        'WARC-Record-ID: <urn:uuid:6f1d0d1e-0000-4000-8000-000000000001>\r\n'
        'Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n' % (sys.argv[2], len(http)))
sys.stdout.buffer.write(head.encode() + http + b'\r\n\r\n')
PY
cat "$WARC" >/dev/null # page cache warm for every run alike

"$BIN" replay --warc "$WARC" --warc "$TMP/start.warc" --listen 127.0.0.1:0 --access-log "$TMP/access.log" \
    >"$TMP/replay.out" 2>"$TMP/replay.err" &
PID=$!
until grep -q '^listening on ' "$TMP/replay.out"; do
    kill -0 "$PID" 2>/dev/null || { cat "$TMP/replay.err" >&2; die "the replay did not start"; }
    sleep 0.05
done
PORT=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$TMP/replay.out")
PROXY=http://127.0.0.1:$PORT
# wget and Scrapy take the proxy from the environment; https goes there too (the replay
# refuses CONNECT), so nothing can leave the machine.
export http_proxy=$PROXY/ https_proxy=$PROXY/ HTTP_PROXY=$PROXY/ HTTPS_PROXY=$PROXY/ no_proxy='' NO_PROXY=''

# run NAME OWN_COUNT_COMMAND -- COMMAND...: time COMMAND (stdout to NAME.out, stderr to
# NAME.err), then append its line to runs.tsv for fetch_count.py.
run() {
    local name=$1 own=$2 t0 t1 rc=0
    shift 3
    echo "== $name: $*"
    t0=$(date +%s.%N)
    /usr/bin/time -f '%e %U %S %M' -o "$TMP/$name.time" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" || rc=$?
    t1=$(date +%s.%N)
    kill -0 "$PID" 2>/dev/null || die "the replay went away during $name: $(tail -2 "$TMP/replay.err")"
    local user sys rss
    read -r _ user sys rss < <(tail -1 "$TMP/$name.time")
    local count
    count=$(eval "$own") || count="?"
    awk -v n="$name" -v t0="$t0" -v t1="$t1" -v u="$user" -v s="$sys" -v r="$rss" -v c="$count" \
        'BEGIN { printf "%s\t%s\t%s\t%.3f\t%.2f\t%.1f\t%s\n", n, t0, t1, t1 - t0, u + s, r / 1024, c }' \
        >>"$TMP/runs.tsv"
    echo "   exit $rc, $(tail -1 "$TMP/runs.tsv" | cut -f4) s, own count: $count"
    sleep 2 # the access log is flushed at least once a second: runs do not mix
}

if want sitescout; then
    for i in $(seq "$ROUNDS"); do
        run "sitescout-$i" "awk '\$1 == \"pages_ok\" {print \$2}' $TMP/sitescout-$i.out" -- \
            "$FETCH_BENCH" --sites "$SITES" --proxy "$PROXY" --max-in-flight 64 --delay-ms 0
        sed 's/^/   /' "$TMP/sitescout-$i.out" | head -8
    done
fi
if want wget; then
    # Recursive, any depth, any host, robots.txt obeyed, no wait; the same link tags as
    # the others (a, area, frame, iframe). -nv: one line per file, then "Downloaded: N
    # files" (the start page is one of them: not counted).
    run wget "awk '/^Downloaded:/ {print \$2 - 1}' $TMP/wget.log" -- \
        wget -r -l inf -H -e robots=on --wait=0 --follow-tags=a,area,frame,iframe -nv \
        -o "$TMP/wget.log" -P "$TMP/wget" "$START"
    tail -1 "$TMP/wget.log" | sed 's/^/   /'
fi
if want wget2; then
    # The same recursion with 32 threads and a 1 s timeout (issue 15's settings); its own
    # count: the files it saved, the start page left out.
    run wget2 "echo \$((\$(find $TMP/wget2 -type f | wc -l) - 1))" -- \
        wget2 -r -l inf -H --robots=on --wait=0 --max-threads=32 --timeout=1 \
        --follow-tags=a/href,area/href,frame/src,iframe/src -nv \
        -o "$TMP/wget2.log" -P "$TMP/wget2" "$START"
fi
if want scrapy; then
    run scrapy "python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"bench/html_pages\"])' $TMP/scrapy.json" -- \
        "$SCRAPY" runspider "$ROOT/bench/fetch_spider.py" -a homepages="$TMP/homepages" \
        -a stats="$TMP/scrapy.json" -s LOG_FILE="$TMP/scrapy.log"
fi
kill "$PID"
wait "$PID" || true
PID=

if [[ -s $TMP/runs.tsv ]]; then
    echo
    python3 "$ROOT/bench/fetch_count.py" "$WARC" "$TMP/access.log" "$TMP/runs.tsv"
    if want sitescout; then
        rates=$(for i in $(seq "$ROUNDS"); do awk '$1 == "pages_per_s" {print $2}' "$TMP/sitescout-$i.out"; done | sort -n)
        echo
        echo "sitescout (fetch_bench's own pages/s) over $ROUNDS runs: best $(tail -1 <<<"$rates"), median $(sed -n "$(((ROUNDS + 1) / 2))p" <<<"$rates")"
    fi
fi
if want html; then
    echo
    echo "== gumbo-only ceiling: $HTML_BENCH $WARC 3"
    "$HTML_BENCH" "$WARC" 3
fi
