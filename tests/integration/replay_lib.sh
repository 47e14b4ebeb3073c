# Helpers for the replay integration tests (sourced): start `sitescout replay` on a free
# port, stop it, report. Needs SITESCOUT_BIN and SITESCOUT_SRC.
: "${SITESCOUT_BIN:?}" "${SITESCOUT_SRC:?}"
SITESCOUT_SHARED=${SITESCOUT_SHARED:-$SITESCOUT_SRC/../shared}
DEMO=$SITESCOUT_SRC/demo/demo.warc.gz
WARCX=(python3 "$SITESCOUT_SRC/tests/tools/warc_extract.py")
TMP=$(mktemp -d)
PIDS=()
CHECKS=0

cleanup() {
    for p in "${PIDS[@]}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND exited $?" >&2' ERR

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

ok() {
    CHECKS=$((CHECKS + 1))
    echo "ok $CHECKS - $*"
}

# start_replay NAME ARGS...: run `sitescout replay --listen 127.0.0.1:0 ARGS` in the
# background and wait for its "listening on" line. Sets PID, PORT and PROXY; output
# goes to $TMP/NAME.out and $TMP/NAME.err.
start_replay() {
    local name=$1
    shift
    : >"$TMP/$name.out" # exists before the background job's redirection creates it
    "$SITESCOUT_BIN" replay --listen 127.0.0.1:0 "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
    PID=$!
    PIDS+=("$PID")
    for _ in $(seq 1 600); do
        if grep -q '^listening on 127\.0\.0\.1:[0-9]*$' "$TMP/$name.out"; then
            PORT=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$TMP/$name.out")
            PROXY=http://127.0.0.1:$PORT
            return 0
        fi
        kill -0 "$PID" 2>/dev/null || fail "replay $name exited early: $(cat "$TMP/$name.err")"
        sleep 0.05
    done
    fail "replay $name did not print its address"
}

# stop_replay: SIGTERM the last started server; it must exit 0.
stop_replay() {
    kill -TERM "$PID"
    local rc=0
    wait "$PID" || rc=$?
    PIDS=("${PIDS[@]/$PID/}") # reaped: its number may be reused by another process
    [ "$rc" -eq 0 ] || fail "replay exited $rc after SIGTERM"
}

# fetch URL NAME [curl args...]: GET through the proxy; body in $TMP/NAME.body, head
# in $TMP/NAME.head; prints the status code.
fetch() {
    local url=$1 name=$2
    shift 2
    local rc=0
    curl -s --max-time 60 -x "$PROXY" -o "$TMP/$name.body" -D "$TMP/$name.head" \
        -w '%{http_code}' "$@" "$url" || rc=$?
    [ "$rc" = 0 ] || fail "curl exit $rc for $url"
}

# header FILE NAME: the value of a response header (first match, CR stripped).
header() {
    grep -i -m1 "^$2:" "$1" | cut -d: -f2- | sed 's/^ *//; s/\r$//' || true
}
