#!/usr/bin/env bash
# `sitescout replay` fault injection: each option does what it says, deterministically.
set -euo pipefail
. "$SITESCOUT_SRC/tests/integration/replay_lib.sh"

"${WARCX[@]}" "$DEMO" list >"$TMP/list"
# 40 distinct HTML pages with bodies of at least 2 KB, and their records.
awk -F'\t' '$2 == 200 && $1 ~ /\.html$/ && n++ % 50 == 7 && ++k <= 40 {print $1}' "$TMP/list" \
    >"$TMP/pages"
mkdir "$TMP/rec"
"${WARCX[@]}" "$DEMO" dump "$TMP/pages" "$TMP/rec"
big=-1 # a page whose body is larger than 2 KB
for i in $(seq 0 39); do
    if [ "$(stat -c %s "$TMP/rec/$i.body")" -gt 2048 ]; then
        big=$i
        break
    fi
done
[ "$big" -ge 0 ] || fail "no page over 2 KB in the sample"
BIGURL=$(sed -n "$((big + 1))p" "$TMP/pages")
BIGLEN=$(stat -c %s "$TMP/rec/$big.body")

# statuses URLFILE: the status of each URL, one line each (through $PROXY).
statuses() {
    while read -r url; do
        curl -s -x "$PROXY" -o /dev/null -w '%{http_code}\n' "$url"
    done <"$1"
}

# --error-rate 1: every request is a 500 or a 503.
start_replay err1 --warc "$DEMO" --error-rate 1 --seed 3
statuses "$TMP/pages" >"$TMP/err1"
stop_replay
[ "$(grep -cvE '^(500|503)$' "$TMP/err1")" = 0 ] || fail "error-rate 1: $(sort "$TMP/err1" | uniq -c)"
grep -qx 500 "$TMP/err1" && grep -qx 503 "$TMP/err1" || fail "error-rate 1: not both 500 and 503"
ok "--error-rate 1: 40 of 40 requests answered 500 or 503 (both occur)"

# --error-rate 0.5: about half, the same again with the same seed, not with another.
start_replay errA --warc "$DEMO" --error-rate 0.5 --seed 7
statuses "$TMP/pages" >"$TMP/errA"
for _ in $(seq 1 20); do
    curl -s -x "$PROXY" -o /dev/null -w '%{http_code}\n' "$BIGURL"
done >"$TMP/retries"
stop_replay
start_replay errB --warc "$DEMO" --error-rate 0.5 --seed 7
statuses "$TMP/pages" >"$TMP/errB"
stop_replay
start_replay errC --warc "$DEMO" --error-rate 0.5 --seed 8
statuses "$TMP/pages" >"$TMP/errC"
stop_replay
n=$(grep -cE '^50[03]$' "$TMP/errA" || true)
[ "$n" -ge 10 ] && [ "$n" -le 30 ] || fail "error-rate 0.5: $n of 40 errors"
cmp -s "$TMP/errA" "$TMP/errB" || fail "error-rate 0.5: same seed, different statuses"
! cmp -s "$TMP/errA" "$TMP/errC" || fail "error-rate 0.5: seed 8 gives the same statuses as 7"
grep -qx 200 "$TMP/retries" && grep -qE '^50[03]$' "$TMP/retries" ||
    fail "retries of one URL: $(sort "$TMP/retries" | uniq -c)"
ok "--error-rate 0.5: $n of 40 errors; reproducible with --seed; retries of a URL can succeed"

# --latency-ms: exponential delays with about that mean.
start_replay lat --warc "$DEMO" --latency-ms 100 --access-log "$TMP/lat.log"
while read -r url; do
    curl -s -x "$PROXY" -o /dev/null -w '%{time_total}\n' "$url"
done <"$TMP/pages" >"$TMP/lat"
stop_replay
python3 - "$TMP/lat" "$TMP/lat.log" <<'PY' || fail "latency"
import json, sys
# The replay's own delays (its log), not curl's times: those add connecting and
# scheduling, which grow on a loaded machine. curl can only have had each answer after it.
t = [float(x) * 1000 for x in open(sys.argv[1])]
ms = [json.loads(l)['ms'] for l in open(sys.argv[2])]
assert len(ms) == len(t), (len(ms), len(t))
mean = sum(ms) / len(ms)
assert 50 <= mean <= 200, 'mean latency %.1f ms' % mean
assert max(ms) - min(ms) > 50, 'delays do not vary: %s' % ms
late = [(a, b) for a, b in zip(ms, t) if b < a - 1]
assert not late, 'curl had answers before the replay sent them: %s' % late
print('# mean %.1f ms, min %.1f, max %.1f' % (mean, min(ms), max(ms)))
PY
ok "--latency-ms 100: mean delay of 40 requests in [50, 200] ms, varying, logged in ms"

# --reset-rate 1: the connection is reset halfway through the body.
start_replay reset --warc "$DEMO" --reset-rate 1 --access-log "$TMP/reset.log"
rc=0
got=$(curl -s -x "$PROXY" -o "$TMP/reset.body" -w '%{size_download}' "$BIGURL") || rc=$?
stop_replay
[ "$rc" = 56 ] || [ "$rc" = 18 ] || fail "reset: curl exit $rc (want 56 or 18)"
[ "$got" -lt "$BIGLEN" ] || fail "reset: got all $got bytes"
cmp -s "$TMP/reset.body" <(head -c "$got" "$TMP/rec/$big.body") || fail "reset: the part sent differs"
grep -q '"fault": "reset"' "$TMP/reset.log" || fail "reset not in the access log"
ok "--reset-rate 1: curl fails (exit $rc) after $got of $BIGLEN bytes; logged as reset"

# --slow-rate 1: the body dribbles out over about --slow-ms, intact.
start_replay slow --warc "$DEMO" --slow-rate 1 --slow-ms 1000 --access-log "$TMP/slow.log"
t=$(curl -s -x "$PROXY" -o "$TMP/slow.body" -w '%{time_total}' "$BIGURL")
t2=$(curl -s -x "$PROXY" -o /dev/null -w '%{time_starttransfer}' "$BIGURL")
stop_replay
cmp -s "$TMP/slow.body" "$TMP/rec/$big.body" || fail "slow: body differs"
python3 -c "import sys; t, f = float('$t'), float('$t2'); sys.exit(not (0.85 <= t <= 5 and f < 0.5))" ||
    fail "slow: took $t s, first byte after $t2 s"
grep -q '"fault": "slow"' "$TMP/slow.log" || fail "slow not in the access log"
ok "--slow-rate 1 --slow-ms 1000: body intact after $t s (first byte after $t2 s)"

# --redirect-loop-rate 1: every page answers 301 or 302, to itself or to a partner URL
# that redirects back; the same on every request and with the same seed, not with another.
# loops URLFILE OUT: "status location" of each URL, then of each partner it names.
loops() {
    while read -r url; do
        curl -s -x "$PROXY" -o /dev/null -w '%{http_code} %{redirect_url}\n' "$url"
    done <"$1" >"$2"
}
start_replay loop1 --warc "$DEMO" --redirect-loop-rate 1 --seed 3 --access-log "$TMP/loop1.log"
loops "$TMP/pages" "$TMP/loop1"
loops "$TMP/pages" "$TMP/loop1b"
cut -d' ' -f2 "$TMP/loop1" | grep -F 'replay-loop=1' >"$TMP/partners" || true
loops "$TMP/partners" "$TMP/loop1p"
rc=0
curl -s -x "$PROXY" -L --max-redirs 20 -o /dev/null "$(head -1 "$TMP/pages")" || rc=$?
stop_replay
python3 - "$TMP/pages" "$TMP/loop1" "$TMP/partners" "$TMP/loop1p" <<'PY' || fail "redirect loops"
import sys
pages = open(sys.argv[1]).read().split()
got = [l.split() for l in open(sys.argv[2])]
assert len(got) == len(pages) >= 30, (len(got), len(pages))
assert all(g[0] in ("301", "302") for g in got), got
assert {g[0] for g in got} == {"301", "302"}, "not both 301 and 302"
selfs = [u for u, g in zip(pages, got) if g[1] == u]
pairs = [u for u, g in zip(pages, got) if g[1] != u]
assert selfs and pairs, "not both kinds: %d self, %d pairs" % (len(selfs), len(pairs))
for u, g in zip(pages, got):
    if g[1] != u:
        assert g[1] == u + ("&" if "?" in u else "?") + "replay-loop=1", (u, g)
partners = open(sys.argv[3]).read().split()
back = [l.split() for l in open(sys.argv[4])]
assert len(back) == len(partners) == len(pairs)
for p, b in zip(partners, back):
    assert b[0] in ("301", "302") and b[1] == p[: -len("replay-loop=1") - 1], (p, b)
print("# %d self-redirects, %d loops of two" % (len(selfs), len(pairs)))
PY
cmp -s "$TMP/loop1" "$TMP/loop1b" || fail "redirect loops: a second request answers differently"
[ "$rc" = 47 ] || fail "curl -L on a loop: exit $rc (want 47, too many redirects)"
grep -q '"status": 30[12], .*"fault": "loop"' "$TMP/loop1.log" || fail "loop not in the access log"
ok "--redirect-loop-rate 1: all $(wc -l <"$TMP/pages") pages loop (301 and 302, self and two-hop), every time; curl -L gives up"

# --stall-rate 1: half the body, then silence for --stall-ms, then the rest.
start_replay stall --warc "$DEMO" --stall-rate 1 --stall-ms 1500 --access-log "$TMP/stall.log"
out=$(curl -s -x "$PROXY" -o "$TMP/stall.body" -w '%{time_starttransfer} %{time_total}' "$BIGURL")
stop_replay
cmp -s "$TMP/stall.body" "$TMP/rec/$big.body" || fail "stall: body differs"
# (1.4, not 1.5: the replay's timer may fire a fraction of a millisecond before curl's
# clock reaches 1.5 s, as it did once on a busy machine at 1.4997 s; without the stall the
# whole answer takes milliseconds.)
python3 -c "import sys; f, t = map(float, '$out'.split()); sys.exit(not (f < 1.0 and 1.4 <= t < 15))" ||
    fail "stall: first byte and end after $out s"
grep -q '"fault": "stall"' "$TMP/stall.log" || fail "stall not in the access log"
ok "--stall-rate 1 --stall-ms 1500: half the body at once, 1.5 s of silence, then the rest ($out s)"
# A long stall: a client with a low-speed limit hangs up during the silence, after half.
start_replay stall2 --warc "$DEMO" --stall-rate 1 --stall-ms 600000 --access-log "$TMP/stall2.log"
rc=0
cut=$(curl -s -x "$PROXY" -o "$TMP/stall2.body" -w '%{size_download}' --speed-limit 1000 \
    --speed-time 2 --max-time 30 "$BIGURL") || rc=$?
stop_replay
[ "$rc" = 28 ] && [ "$cut" = $((BIGLEN / 2)) ] || fail "stall: curl exit $rc after $cut bytes"
cmp -s "$TMP/stall2.body" <(head -c "$cut" "$TMP/rec/$big.body") || fail "stall: the half sent differs"
grep -q "\"bytes\": $((BIGLEN / 2)), .*\"fault\": \"stall\"" "$TMP/stall2.log" ||
    fail "the cut stall is not logged with its $((BIGLEN / 2)) bytes: $(cat "$TMP/stall2.log")"
ok "--stall-ms 600000: a low-speed limit cuts the transfer (curl exit 28) after $cut of $BIGLEN bytes"

# Rates 0.5: about half the pages loop, and about half of the others stall; the same
# ones again with the same seed, not with another.
for run in A B C; do
    seed=7
    [ "$run" = C ] && seed=8
    start_replay "half$run" --warc "$DEMO" --redirect-loop-rate 0.5 --stall-rate 0.5 --stall-ms 50 \
        --seed "$seed" --access-log "$TMP/half$run.log"
    statuses "$TMP/pages" >"$TMP/half$run"
    stop_replay
done
out=$(python3 - "$TMP/halfA" "$TMP/halfB" "$TMP/halfC" "$TMP/halfA.log" "$TMP/halfB.log" \
    "$TMP/halfC.log" <<'PY'
import json, sys
st = [open(f).read().split() for f in sys.argv[1:4]]
logs = [[json.loads(l).get("fault") for l in open(f)] for f in sys.argv[4:7]]
n = len(st[0])
assert n >= 30 and all(len(x) == n for x in st + logs), [len(x) for x in st + logs]
assert set(st[0]) <= {"200", "301", "302"}, set(st[0])
loops = sum(s != "200" for s in st[0])
stalls = logs[0].count("stall")
assert n // 4 <= loops <= 3 * n // 4, ("loops", loops, n)
assert (n - loops) // 4 <= stalls <= 3 * (n - loops) // 4, ("stalls", stalls, n - loops)
assert all((f == "loop") == (s != "200") for f, s in zip(logs[0], st[0])), "loops are logged as such"
assert st[0] == st[1] and logs[0] == logs[1], "same seed, different faults"
assert st[0] != st[2] and logs[0] != logs[2], "seed 8 draws the same faults as 7"
print("%d of %d pages loop, %d of the others stall" % (loops, n, stalls))
PY
) || fail "rates 0.5: $out"
ok "--redirect-loop-rate 0.5 --stall-rate 0.5: $out; reproducible with --seed"

# Synthetic hosts.
start_replay synth --warc "$DEMO" --trap-host trap.test --huge-host huge.test \
    --junk-host Junk.Test --access-log "$TMP/synth.log"

# The spider trap: following "Next day" gives new pages forever.
url=http://trap.test/
: >"$TMP/trap.urls"
for _ in $(seq 1 30); do
    code=$(fetch "$url" t)
    [ "$code" = 200 ] || fail "trap $url: $code"
    [[ $(header "$TMP/t.head" Content-Type) == text/html* ]] || fail "trap: not text/html"
    echo "$url" >>"$TMP/trap.urls"
    next=$(grep -o 'href="[^"]*">Next day' "$TMP/t.body" | sed 's/href="\([^"]*\)".*/\1/')
    [ -n "$next" ] || fail "trap page $url has no Next day link"
    url=http://trap.test$next
done
[ "$(sort -u "$TMP/trap.urls" | wc -l)" = 30 ] || fail "trap: pages repeat"
[ "$(grep -c 'href=' "$TMP/t.body")" -ge 5 ] || fail "trap: few links"
[ "$(fetch http://trap.test/robots.txt tr)" = 404 ] || fail "trap robots.txt"
ok "--trap-host: 30 pages deep, every page new ($(tail -1 "$TMP/trap.urls")), no robots.txt"

# The huge page: 100 MB of text/html.
out=$(curl -s -x "$PROXY" -o /dev/null -w '%{http_code} %{size_download} %{content_type}' \
    http://huge.test/any/page.html)
[ "$out" = "200 104857600 text/html" ] || fail "huge: $out"
ok "--huge-host: 200, 104857600 bytes of text/html"

# Junk: binary bytes labelled text/html (host names are matched case-insensitively).
out=$(fetch http://junk.test/index.html j)
[ "$(header "$TMP/j.head" Content-Type)" = text/html ] || fail "junk: content type"
python3 - "$TMP/j.body" <<'PY' || fail "junk: body is not binary junk"
import sys
b = open(sys.argv[1], 'rb').read()
assert 1024 <= len(b) < 262144, len(b)
assert b.count(0) > 0 and sum(c >= 0x80 for c in b) > len(b) // 4
try:
    b.decode('utf-8')
    sys.exit('junk decodes as UTF-8')
except UnicodeDecodeError:
    pass
PY
[ "$out" = 200 ] || fail "junk: $out"
cp "$TMP/j.body" "$TMP/j1.body"
fetch http://junk.test/index.html j >/dev/null
cmp -s "$TMP/j.body" "$TMP/j1.body" || fail "junk: not deterministic"
ok "--junk-host: $(stat -c %s "$TMP/j.body") bytes of binary junk as text/html, the same each time"

# The archive is still served next to the synthetic hosts.
[ "$(fetch "$BIGURL" b)" = 200 ] && cmp -s "$TMP/b.body" "$TMP/rec/$big.body" ||
    fail "archive not served with synthetic hosts"
stop_replay
grep -q '"url": "http://huge.test/any/page.html", "status": 200, "bytes": 104857600' \
    "$TMP/synth.log" || fail "huge page not logged with its size"
ok "the archive is served alongside; the access log has the huge page's 104857600 bytes"

# A client that goes away mid-response (it stops reading a slow body): its line says
# "hangup", since the replay logs its end when it notices, later than the client left
# (tests/tools/check_access_log.py then does not take that end for the client's).
start_replay hang --warc "$DEMO" --slow-rate 1 --slow-ms 5000 --access-log "$TMP/hang.log"
curl -s -o /dev/null --max-time 0.5 -x "$PROXY" http://feathers-africa.net/archive/page-2.html || true
# The replay notices at its next write of the slow body (within its 5 s), and flushes its
# log at least once a second: wait for the line, not for a time (a stop before it would
# cut the response itself).
for _ in $(seq 600); do
    grep -q 'page-2.html' "$TMP/hang.log" 2>/dev/null && break
    sleep 0.1
done
stop_replay
grep -q '"url": "http://feathers-africa.net/archive/page-2.html".*"fault": "slow+hangup"' "$TMP/hang.log" ||
    fail "a client gone mid-response is not logged as a hangup: $(cat "$TMP/hang.log")"
ok "a client gone mid-response is logged as a hangup"

echo "$CHECKS passed, 0 failed"
