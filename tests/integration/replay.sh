#!/usr/bin/env bash
# `sitescout replay` serves web archives byte-exact through curl -x: records, 404/502,
# redirects, robots.txt, origin-form, the access log, plain/truncated/corrupt WARCs.
set -euo pipefail
. "$SITESCOUT_SRC/tests/integration/replay_lib.sh"

"${WARCX[@]}" "$DEMO" list >"$TMP/list"
NREC=$(wc -l <"$TMP/list")
[ "$NREC" -gt 2000 ] || fail "the demo web lists only $NREC records"
REQS=0 # requests sent by curl, to count access-log lines

start_replay demo --warc "$DEMO" --access-log "$TMP/access.log"
grep -q "indexed $NREC records" "$TMP/demo.err" || fail "index count: $(cat "$TMP/demo.err")"
ok "indexed all $NREC response records of the demo web"

# Every record through the proxy over keep-alive connections, read independently.
"${WARCX[@]}" "$DEMO" check "127.0.0.1:$PORT" >"$TMP/check.txt" ||
    fail "records differ: $(cat "$TMP/check.txt")"
grep -qx "checked $NREC records, 0 differ" "$TMP/check.txt" || fail "$(cat "$TMP/check.txt")"
ok "all $NREC records byte-exact (status, body, Content-Type, Location, Date, Server)"

# A sample through curl: every 40th record, all robots.txt records, redirects, queries.
{
    awk 'NR % 40 == 1' "$TMP/list"
    grep '/robots\.txt	' "$TMP/list"
    awk -F'\t' '($2 == 301 || $2 == 302) && ++n <= 20' "$TMP/list"
    grep -m5 '?' "$TMP/list"
} | cut -f1 | sort -u >"$TMP/sample.urls"
mkdir "$TMP/rec"
"${WARCX[@]}" "$DEMO" dump "$TMP/sample.urls" "$TMP/rec"
i=0
while read -r url; do
    want=$(cat "$TMP/rec/$i.status")
    got=$(fetch "$url" s)
    REQS=$((REQS + 1))
    [ "$got" = "$want" ] || fail "$url: status $got, recorded $want"
    cmp -s "$TMP/s.body" "$TMP/rec/$i.body" || fail "$url: body differs from the record"
    for h in Content-Type Location Last-Modified Content-Length; do
        [ "$(header "$TMP/s.head" "$h")" = "$(header "$TMP/rec/$i.head" "$h")" ] ||
            fail "$url: $h '$(header "$TMP/s.head" "$h")', recorded '$(header "$TMP/rec/$i.head" "$h")'"
    done
    i=$((i + 1))
done <"$TMP/sample.urls"
ok "$i sampled records identical through curl -x (status, body, headers)"
grep -c '/robots\.txt$' "$TMP/sample.urls" >/dev/null || fail "no robots.txt in the sample"
ok "robots.txt records served as recorded ($(grep -c '/robots\.txt$' "$TMP/sample.urls"))"

# Redirects come back as recorded, not followed.
redir=$(awk -F'\t' '$2 == 301 {print $1; exit}' "$TMP/list")
echo "$redir" >"$TMP/redir.url"
mkdir "$TMP/r"
"${WARCX[@]}" "$DEMO" dump "$TMP/redir.url" "$TMP/r"
[ "$(fetch "$redir" r)" = 301 ] || fail "$redir: not a 301"
REQS=$((REQS + 1))
loc=$(header "$TMP/r.head" Location)
[ -n "$loc" ] && [ "$loc" = "$(header "$TMP/r/0.head" Location)" ] || fail "$redir: Location '$loc'"
ok "301 returned as recorded with Location $loc (not followed)"

# Unknown URL on a known host: 404 with a small HTML page.
host=$(head -1 "$TMP/list" | cut -f1 | sed 's|^http://\([^/]*\)/.*|\1|')
[ "$(fetch "http://$host/no/such/page.html" nf)" = 404 ] || fail "unknown URL: not 404"
REQS=$((REQS + 1))
grep -qi '^content-type: text/html' "$TMP/nf.head" && grep -q '<html>' "$TMP/nf.body" ||
    fail "404 without an HTML body"
[ "$(stat -c %s "$TMP/nf.body")" -lt 1024 ] || fail "404 body is not small"
ok "unknown URL on a known host: 404 with a small HTML body"

# Unknown host: 502 with a header saying so.
[ "$(fetch "http://no-such-host.example/" nh)" = 502 ] || fail "unknown host: not 502"
REQS=$((REQS + 1))
[[ $(header "$TMP/nh.head" Proxy-Status) == *error=dns_error* ]] || fail "no Proxy-Status dns_error"
ok "unknown host: 502 with Proxy-Status: ...; error=dns_error"

# Query strings are part of the URL.
qurl=$(grep -m1 '?' "$TMP/list" | cut -f1)
[ "$(fetch "$qurl" q1)" = 200 ] || fail "$qurl: not 200"
[ "$(fetch "${qurl}x" q2)" = 404 ] || fail "${qurl}x: not 404"
REQS=$((REQS + 2))
ok "query strings are part of the URL"

# Origin-form requests routed by the Host header (wrk, browsers).
home=$(awk -F'\t' '$2 == 200 && $1 ~ /^http:\/\/[^\/]*\/$/ {print $1; exit}' "$TMP/list")
hhost=$(echo "$home" | sed 's|^http://\([^/]*\)/$|\1|')
"${WARCX[@]}" "$DEMO" get "$home" | python3 -c \
    'import sys; b = sys.stdin.buffer.read(); sys.stdout.buffer.write(b[b.index(b"\r\n\r\n") + 4:])' \
    >"$TMP/home.rec"
code=$(curl -s -o "$TMP/o.body" -w '%{http_code}' -H "Host: $hhost" "http://127.0.0.1:$PORT/")
REQS=$((REQS + 1))
[ "$code" = 200 ] && cmp -s "$TMP/o.body" "$TMP/home.rec" || fail "origin-form $hhost: $code"
ok "origin-form GET / with Host: $hhost gives the recorded homepage"

# The request URL is normalised like the archive's: scheme/host case, default port.
exec 3<>"/dev/tcp/127.0.0.1/$PORT"
printf 'GET HTTP://%s:80 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' "${hhost^^}" >&3
cat <&3 >"$TMP/raw.txt"
exec 3<&-
REQS=$((REQS + 1))
status_line=$(head -1 "$TMP/raw.txt")
[[ $status_line == "HTTP/1.1 200 "* ]] || fail "normalised URL: $status_line"
grep -qi '^connection: close' "$TMP/raw.txt" || fail "no Connection: close when asked"
python3 - "$TMP/raw.txt" "$TMP/home.rec" <<'PY' || fail "normalised URL: body differs"
import sys
raw, rec = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read()
sys.exit(raw[raw.index(b'\r\n\r\n') + 4:] != rec)
PY
ok "HTTP://${hhost^^}:80 is served as $home"

# HEAD: the head with the full Content-Length, and no body.
curl -s -x "$PROXY" -I "$home" >"$TMP/head.txt"
REQS=$((REQS + 1))
[ "$(header "$TMP/head.txt" Content-Length)" = "$(stat -c %s "$TMP/home.rec")" ] ||
    fail "HEAD Content-Length"
ok "HEAD answers with the recorded head"

# Keep-alive: two URLs in one curl run share one connection.
curl -s -x "$PROXY" -o /dev/null -o /dev/null "$home" "$qurl"
REQS=$((REQS + 2))
for _ in $(seq 300); do [ -s "$TMP/access.log" ] && break; sleep 0.1; done # flushed each second
[ -s "$TMP/access.log" ] || fail "access log not flushed while running (30 s)"
ok "access log written while the server runs"

stop_replay
grep -q 'stopped after' "$TMP/demo.err" || fail "no clean-stop message"
ok "SIGTERM: clean shutdown, exit 0"

python3 - "$TMP/access.log" "$((NREC + REQS))" "$home" "$qurl" "$hhost" <<'PY' || fail "access log"
import json, sys
path, want, home, qurl, hhost = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
lines = [json.loads(l) for l in open(path)]
assert len(lines) == want, 'access log has %d lines, want %d' % (len(lines), want)
for e in lines:
    assert set(e) >= {'ts', 'method', 'url', 'status', 'bytes', 'ms', 'conn'}, e
    assert isinstance(e['ts'], float) and e['ts'] > 1.6e9 and e['ms'] >= 0, e
by = {}
for e in lines:
    by.setdefault(e['url'], []).append(e)
assert any(e['status'] == 502 for e in by['http://no-such-host.example/']), 'no 502 line'
assert any(e['status'] == 404 and e['bytes'] > 0 for e in lines if e['url'].endswith('/no/such/page.html'))
assert any(e['method'] == 'HEAD' and e['bytes'] == 0 for e in by[home]), 'no HEAD line'
assert any(e['method'] == 'GET' and e['bytes'] > 0 for e in by['http://%s/' % hhost])
# The last two requests were one curl run over one connection.
assert lines[-1]['url'] == qurl and lines[-2]['url'] == home, lines[-2:]
assert lines[-1]['conn'] == lines[-2]['conn'], 'keep-alive did not reuse the connection'
PY
ok "access log: one JSON line per request ($((NREC + REQS))), fields and connection ids"

# The dev web, if present: every sampled host's homepage is the recorded one.
DEV=$SITESCOUT_SHARED/webs/dev.warc.gz
if [ -f "$DEV" ]; then
    start_replay dev --warc "$DEV"
    tail -n +2 "$SITESCOUT_SHARED/webs/dev.sites.tsv" | awk -F'\t' 'NR % 30 == 1 {print "http://" $1 "/"}' \
        >"$TMP/dev.urls"
    mkdir "$TMP/dev"
    "${WARCX[@]}" "$DEV" dump "$TMP/dev.urls" "$TMP/dev"
    i=0
    while read -r url; do
        [ -f "$TMP/dev/$i.status" ] || fail "$url has no record in the dev web"
        code=$(fetch "$url" d)
        [ "$code" = "$(cat "$TMP/dev/$i.status")" ] && cmp -s "$TMP/d.body" "$TMP/dev/$i.body" ||
            fail "dev web $url: status $code or body differs"
        i=$((i + 1))
    done <"$TMP/dev.urls"
    ok "dev web: $i sampled homepages (of dev.sites.tsv hosts) are the recorded ones"
    "${WARCX[@]}" "$DEV" check "127.0.0.1:$PORT" >"$TMP/devcheck.txt" ||
        fail "dev web records differ: $(cat "$TMP/devcheck.txt")"
    grep -qx "checked [0-9]* records, 0 differ" "$TMP/devcheck.txt" || fail "$(cat "$TMP/devcheck.txt")"
    stop_replay
    ok "dev web: $(cut -d' ' -f2 "$TMP/devcheck.txt") records byte-exact"
else
    echo "# $DEV not found: dev web check skipped"
fi

# A plain (uncompressed) WARC serves the same.
gzip -dc "$DEMO" >"$TMP/demo.warc"
start_replay plain --warc "$TMP/demo.warc"
i=0
while read -r url; do
    code=$(fetch "$url" p)
    [ "$code" = "$(cat "$TMP/rec/$i.status")" ] && cmp -s "$TMP/p.body" "$TMP/rec/$i.body" ||
        fail "plain WARC: $url differs"
    i=$((i + 1))
done < <(awk 'NR <= 20' "$TMP/sample.urls")
stop_replay
ok "plain .warc: sampled records identical"

# A truncated WARC: the last record is skipped with a warning naming the file.
size=$(stat -c %s "$DEMO")
head -c $((size - 3000)) "$DEMO" >"$TMP/cut.warc.gz"
start_replay cut --warc "$TMP/cut.warc.gz"
grep -q "warn.*cut\.warc\.gz: offset [0-9]* (gzip member): truncated record at the end of the file skipped" \
    "$TMP/cut.err" || fail "no truncation warning: $(cat "$TMP/cut.err")"
first=$(head -1 "$TMP/sample.urls")
[ "$(fetch "$first" c)" = "$(cat "$TMP/rec/0.status")" ] || fail "truncated WARC: $first not served"
last=$(tail -1 "$TMP/list" | cut -f1)
code=$(fetch "$last" c)
[ "$code" = 404 ] || [ "$code" = 502 ] || fail "truncated WARC: the cut record $last gave $code"
stop_replay
ok "truncated .warc.gz: warning, last record skipped ($last -> $code), the rest served"

# Corrupt WARCs: exit 1 with the file and the record's offset.
python3 - "$DEMO" "$TMP/bad.warc.gz" "$TMP/demo.warc" "$TMP/bad.warc" >"$TMP/offsets" <<'PY'
import sys, zlib
src, bad_gz, plain, bad_plain = sys.argv[1:5]
data = bytearray(open(src, 'rb').read())
# gzip: damage the deflate data of the member that holds byte 1,000,000.
off, target = 0, 1000000
while True:
    d = zlib.decompressobj(31)
    chunk = bytes(data[off:off + (1 << 20)])
    d.decompress(chunk)
    end = off + len(chunk) - len(d.unused_data)
    if end > target:
        break
    off = end
for i in range(off + 12, off + 60):
    data[i] = 0xff
open(bad_gz, 'wb').write(data)
# plain: break the version line of the 100th record.
p = bytearray(open(plain, 'rb').read())
at = -1
for _ in range(100):
    at = p.index(b'WARC/1.1\r\n', at + 1)
p[at + 3] = ord('X')
open(bad_plain, 'wb').write(p)
print(off, at)
PY
read -r goff poff <"$TMP/offsets"
rc=0
"$SITESCOUT_BIN" replay --warc "$TMP/bad.warc.gz" --listen 127.0.0.1:0 >/dev/null 2>"$TMP/bad1.err" || rc=$?
[ "$rc" = 1 ] || fail "corrupt .warc.gz: exit $rc"
grep -qF "sitescout replay: $TMP/bad.warc.gz: offset $goff (gzip member): corrupt gzip data" \
    "$TMP/bad1.err" || fail "corrupt .warc.gz message: $(cat "$TMP/bad1.err")"
ok "corrupt .warc.gz: exit 1, names the file and member offset $goff"
rc=0
"$SITESCOUT_BIN" replay --warc "$TMP/bad.warc" --listen 127.0.0.1:0 >/dev/null 2>"$TMP/bad2.err" || rc=$?
[ "$rc" = 1 ] || fail "corrupt .warc: exit $rc"
grep -qxF "sitescout replay: $TMP/bad.warc: offset $poff: not a WARC record" "$TMP/bad2.err" ||
    fail "corrupt .warc message: $(cat "$TMP/bad2.err")"
ok "corrupt .warc: exit 1, names the file and record offset $poff"

# Command-line errors.
rc=0
"$SITESCOUT_BIN" replay --listen 127.0.0.1:0 2>"$TMP/u.err" || rc=$?
[ "$rc" = 2 ] && grep -q "Try 'sitescout replay --help'" "$TMP/u.err" || fail "missing --warc: exit $rc"
rc=0
"$SITESCOUT_BIN" replay --warc "$DEMO" --error-rate 1.5 2>"$TMP/u.err" || rc=$?
[ "$rc" = 2 ] || fail "bad rate: exit $rc"
help=$("$SITESCOUT_BIN" replay --help)
[[ $help == *--trap-host* && $help == usage:* ]] || fail "--help"
ok "usage errors exit 2; --help documents the options"

echo "$CHECKS passed, 0 failed"
