#!/usr/bin/env bash
# The fetcher against the replay web: a breadth-first fetch of the whole demo web is
# polite (robots.txt first and obeyed, one connection per host, the delay kept),
# follows redirects as it should, and survives every fault the replay can inject.
source "$(dirname "$0")/lib.sh"
BENCH=${FETCH_BENCH:?FETCH_BENCH must name the fetch_bench program}
make_scratch
WARC=$SRC/demo/demo.warc.gz
SITES=$SRC/demo/demo.sites.tsv
check_log() { python3 "$SRC/tests/tools/check_access_log.py" "$@"; }
count() { awk -F'\t' -v s="$1" '$1 == s' "$2" | wc -l; }

# --- the whole demo web, no delay
start_replay "$SCRATCH/all.log" --warc "$WARC"
"$BENCH" --sites "$SITES" --proxy "$PROXY" --max-in-flight 32 --results "$SCRATCH/all.tsv" >"$SCRATCH/all.out"
stop_replay
ok_pages=$(count ok "$SCRATCH/all.tsv")
[[ $ok_pages -gt 2000 ]] || fail "only $ok_pages pages fetched from the demo web"
ok "BFS fetched $ok_pages HTML pages of the demo web"
out=$(check_log "$SCRATCH/all.log" "$WARC") || fail "politeness: $out"
ok "robots.txt fetched first and obeyed, one connection per host ($(tail -1 <<<"$out"))"
[[ $(count robots "$SCRATCH/all.tsv") -gt 0 ]] || fail "no URL was refused by robots.txt"
ok "disallowed URLs are reported as robots, not fetched"
# An alias host answers 301 to its www twin: a redirect to another site is reported.
grep -qP '^redirect\t301\thttp://motherremote.com/\t' "$SCRATCH/all.tsv" || fail "alias redirect not reported"
ok "a redirect to another host is reported as a redirect"
# A moved page answers 301 within its host: followed, final URL differs.
moved=$(awk -F'\t' '$1 == "ok" && $3 != $4' "$SCRATCH/all.tsv" | wc -l)
[[ $moved -gt 0 ]] || fail "no same-host redirect was followed"
ok "same-host redirects are followed ($moved pages)"
[[ $(count not_html "$SCRATCH/all.tsv") -gt 0 ]] || fail "no PDF/image was recognised as not HTML"
ok "non-HTML bodies are not kept"
[[ $(count dns "$SCRATCH/all.tsv") -gt 0 ]] || fail "dead hosts were not reported as dns failures"
ok "links to dead hosts give dns failures"
# Every fetched page is in the archive as a 200 (the replay served the recorded page).
n404=$(awk -F'\t' '$1 == "ok" && $2 != 200' "$SCRATCH/all.tsv" | wc -l)
assert_eq 0 "$n404" "every ok page has status 200"

# --- per-host delay: 150 ms between two requests to a host
start_replay "$SCRATCH/delay.log" --warc "$WARC"
"$BENCH" --sites "$SITES" --proxy "$PROXY" --delay-ms 150 --max-pages 400 >/dev/null
stop_replay
out=$(check_log "$SCRATCH/delay.log" "$WARC" --delay-ms 150) || fail "delay: $out"
ok "150 ms kept between requests to one host ($(tail -1 <<<"$out"))"

# --- faults: errors, resets, slow bodies and latency: no crash, failures reported
start_replay "$SCRATCH/faults.log" --warc "$WARC" --seed 7 --error-rate 0.1 --reset-rate 0.1 \
  --slow-rate 0.05 --latency-ms 2
# An unreachable robots.txt holds its host back (RFC 9309); retry it soon here. Pages are
# not asked again (--retries 0): each fault shows in the results as it came.
"$BENCH" --sites "$SITES" --proxy "$PROXY" --max-pages 1500 --robots-retry-ms 200 --retries 0 \
  --results "$SCRATCH/faults.tsv" >/dev/null
stop_replay
[[ $(count http_error "$SCRATCH/faults.tsv") -gt 0 ]] || fail "injected 5xx not reported"
[[ $(count network "$SCRATCH/faults.tsv") -gt 0 ]] || fail "injected resets not reported"
[[ $(count ok "$SCRATCH/faults.tsv") -gt 500 ]] || fail "too few pages under faults"
ok "under injected faults the fetch completes and reports errors and resets"
out=$(check_log "$SCRATCH/faults.log" "$WARC") || fail "politeness under faults: $out"
ok "still polite under faults"

# --- redirect loops: every URL with content loops (itself, or two hops), robots.txt too.
# A page ends as too_many_redirects after 1 + 5 requests, never retried; a looping
# robots.txt is "unavailable" after 1 + 5 (RFC 9309 §2.3.1.2), so its host is crawled.
start_replay "$SCRATCH/loop.log" --warc "$WARC" --redirect-loop-rate 1
"$BENCH" --sites "$SITES" --proxy "$PROXY" --robots-retry-ms 200 --results "$SCRATCH/loop.tsv" >/dev/null
stop_replay
loops=$(count too_many_redirects "$SCRATCH/loop.tsv")
[[ $loops -gt 50 ]] || fail "only $loops pages reported as redirect loops: $(cut -f1 "$SCRATCH/loop.tsv" | sort | uniq -c)"
assert_eq 0 "$(count robots "$SCRATCH/loop.tsv")" "a looping robots.txt does not hold its host back"
out=$(python3 - "$SCRATCH/loop.log" "$SCRATCH/loop.tsv" <<'PY'
import collections, json, sys
asked = collections.Counter()
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("fault") == "loop":
        asked[e["url"].replace("?replay-loop=1", "").replace("&replay-loop=1", "")] += 1
pages = [l.split("\t")[2] for l in open(sys.argv[2]) if l.startswith("too_many_redirects\t")]
robots = [u for u in asked if u.endswith("/robots.txt")]
assert robots, "no robots.txt looped"
bad = {u: n for u, n in asked.items() if n != 6}
assert not bad, "not asked 1 + 5 times: %s" % list(bad.items())[:5]
assert set(pages) <= set(asked), set(pages) - set(asked)
print("%d looping pages and %d looping robots.txt, each asked 6 times" % (len(pages), len(robots)))
PY
) || fail "redirect loops: $out"
ok "redirect loops: $out"

# --- stalls: a transfer gone silent mid-body is cut by the fetcher's deadline, reported
# as a timeout, and the fetch goes on: every stalled page and nothing else times out
# (not asked again here, --retries 0: a retry draws anew and would not stall).
start_replay "$SCRATCH/stall.log" --warc "$WARC" --seed 3 --stall-rate 0.1 --stall-ms 600000
start=$(date +%s)
"$BENCH" --sites "$SITES" --proxy "$PROXY" --max-pages 400 --timeout-ms 2000 --robots-retry-ms 200 --retries 0 \
  --results "$SCRATCH/stall.tsv" >/dev/null
took=$(($(date +%s) - start))
stop_replay
stalled=$(grep '"fault": "stall"' "$SCRATCH/stall.log" | grep -vc '/robots.txt"' || true)
[[ $stalled -gt 5 ]] || fail "only $stalled pages stalled"
assert_eq "$stalled" "$(count timeout "$SCRATCH/stall.tsv")" "each of the $stalled stalled pages is reported as a timeout"
# The budget of 400 is reached whatever else the breadth-first order met (dead hosts and
# 404s vary with the order in which hosts answer, so the ok count is not fixed).
results=$(wc -l <"$SCRATCH/stall.tsv")
assert_eq 400 "$results" "the fetch used its whole budget past the stalls"
[[ $(count ok "$SCRATCH/stall.tsv") -gt 0 ]] || fail "no page fetched beside the stalls: $(cut -f1 "$SCRATCH/stall.tsv" | sort | uniq -c)"
[[ $took -lt 500 ]] || fail "stalls held the fetch for $took s" # uncut: 600 s
ok "the fetch goes on past the stalls ($took s; 600 s stalls)"

# --- timeouts: latency far above the transfer timeout (robots.txt off: an unreachable
# robots.txt would rightly hold the host back for minutes)
start_replay "$SCRATCH/slow.log" --warc "$WARC" --seed 1 --latency-ms 3000
start=$(date +%s)
"$BENCH" --sites <(printf 'host\nwww.oceansummit.com\n') --proxy "$PROXY" --timeout-ms 300 \
  --no-robots --results "$SCRATCH/slow.tsv" >/dev/null
stop_replay
[[ $(count timeout "$SCRATCH/slow.tsv") -gt 0 ]] || fail "no timeout reported: $(cat "$SCRATCH/slow.tsv")"
[[ $(( $(date +%s) - start )) -lt 20 ]] || fail "timeouts took too long"
ok "a slow host times out"

# --- hostile hosts: a 100 MB page, binary junk, an endless spider trap
start_replay "$SCRATCH/hostile.log" --warc "$WARC" --huge-host huge.test --junk-host junk.test \
  --trap-host trap.test
printf 'host\nhuge.test\njunk.test\ntrap.test\n' >"$SCRATCH/hostile.tsv"
"$BENCH" --sites "$SCRATCH/hostile.tsv" --proxy "$PROXY" --max-pages 300 \
  --results "$SCRATCH/hostile.out.tsv" >/dev/null
stop_replay
huge=$(awk -F'\t' '$3 == "http://huge.test/"' "$SCRATCH/hostile.out.tsv")
[[ $(cut -f1 <<<"$huge") == ok && $(cut -f6 <<<"$huge") == 1 ]] || fail "huge page: $huge"
[[ $(cut -f5 <<<"$huge") -le $((2 * 1024 * 1024)) ]] || fail "huge page kept more than 2 MiB: $huge"
ok "a 100 MB page is cut at 2 MiB"
grep -qP '^ok\t200\thttp://junk.test/' "$SCRATCH/hostile.out.tsv" || fail "junk host page not fetched"
ok "binary junk labelled HTML is fetched and parsed without harm"
trap_pages=$(grep -c 'trap.test' "$SCRATCH/hostile.out.tsv" || true)
[[ $trap_pages -ge 250 ]] || fail "spider trap gave only $trap_pages pages"
ok "the spider trap keeps generating pages; the page budget ends the fetch"

# --- destinations (issue 16, finding 4): a service of this host, bound to 0.0.0.0, is never
# reached, without a proxy (every connection's address is checked) or with one (IP
# literals are). Only this machine's own addresses are ever contacted.
own=$(ip -o -4 addr show scope global 2>/dev/null | awk '{sub("/.*", "", $4); print $4; exit}' || true)
# listen_here: a TCP listener on 0.0.0.0 that logs one line per connection to
# $SCRATCH/listener.log and answers a small page; sets LPORT.
listen_here() {
  python3 - "$SCRATCH/listener.port" "$SCRATCH/listener.log" <<'PY' &
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 0))
s.listen(16)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, peer = s.accept()
    c.settimeout(5)
    try:
        first = c.recv(4096).split(b"\r\n", 1)[0].decode("latin-1")
    except OSError:
        first = "-"
    with open(sys.argv[2], "a") as log:
        log.write("%s %s\n" % (peer[0], first))
    body = b"<html><body>a service of this host</body></html>"
    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n"
              b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    c.close()
PY
  at_exit "kill $!"
  for _ in $(seq 100); do [[ -s $SCRATCH/listener.port ]] && break; sleep 0.05; done
  LPORT=$(cat "$SCRATCH/listener.port")
  : >"$SCRATCH/listener.log"
}
listen_here
# Spellings of this host's addresses, each with a path of its own (fetch_bench fetches a
# URL once), and a name only if /etc/hosts has it (no DNS query leaves the host).
spellings=("127.0.0.1" "127.1" "0x7f.0.0.1" "2130706433" "0177.0.0.1" "0.0.0.0" "[::ffff:127.0.0.1]"
  "[::ffff:7f00:1]" "localhost")
if [[ -n $own ]]; then
  IFS=. read -r a b c d <<<"$own"
  own_at=${#spellings[@]}
  spellings+=("$own" "$(( (a << 24) | (b << 16) | (c << 8) | d ))" "[::ffff:$own]")
  # The listener does answer there: with --allow-private the page is fetched.
  "$BENCH" --sites <(echo "$own:$LPORT") --allow-private --results "$SCRATCH/control.tsv" >/dev/null
  assert_eq ok "$(cut -f1 "$SCRATCH/control.tsv")" "control: with --allow-private $own:$LPORT is fetched"
  [[ $(wc -l <"$SCRATCH/listener.log") -ge 1 ]] || fail "control: the listener logged no request"
  : >"$SCRATCH/listener.log"
else
  echo "# this host has no global IPv4 address: only loopback spellings are checked"
fi
i=0
for sp in "${spellings[@]}"; do echo "$sp:$LPORT/$((i++))"; done >"$SCRATCH/own.tsv"
if grep -qw "$(hostname)" /etc/hosts; then echo "$(hostname):$LPORT/name" >>"$SCRATCH/own.tsv"; fi
"$BENCH" --sites "$SCRATCH/own.tsv" --results "$SCRATCH/own.out.tsv" >/dev/null
n=$(wc -l <"$SCRATCH/own.tsv")
assert_eq "$n" "$(count blocked "$SCRATCH/own.out.tsv")" \
  "no proxy: all $n spellings of this host's addresses are blocked ($(sed 's|:[0-9]*/[^/]*$||' "$SCRATCH/own.tsv" | paste -sd' '))"
if [[ -n $own ]]; then
  assert_contains "$(grep -F "http://$own:$LPORT/$own_at/" "$SCRATCH/own.out.tsv")" \
    "destination $own:$LPORT is an address of this host" "the error says why: this host's own address"
fi
assert_eq 0 "$(wc -l <"$SCRATCH/listener.log")" "no proxy: the listener got no connection"
# A DNS name is checked on the address it resolves to (the socket curl opens).
if grep -qw "$(hostname)" /etc/hosts; then
  "$BENCH" --sites <(echo "$(hostname):$LPORT") --no-robots --results "$SCRATCH/name.tsv" >/dev/null
  assert_contains "$(cat "$SCRATCH/name.tsv")" "blocked" "no proxy: a name of this host is blocked when connecting"
  assert_contains "$(cut -f7 "$SCRATCH/name.tsv")" "destination " "...with the address it resolved to"
fi

# With a proxy: IP literals are refused before anything is sent, also as redirect hops
# (a robots.txt redirect followed by the fetcher, a page's redirect to another site).
python3 - "$SCRATCH/hops.warc" "${own:-127.0.0.1}" "$LPORT" <<'PY'
import sys
out, own, port = open(sys.argv[1], "wb"), sys.argv[2], sys.argv[3]
def record(uri, http):
    http = http.replace("\n", "\r\n").encode()
    out.write(b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: %s\r\n"
              b"Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n"
              % (uri.encode(), len(http)) + http + b"\r\n\r\n")
page = "<html><body>home</body></html>"
record("http://robots.test/robots.txt",
       "HTTP/1.1 302 Found\nLocation: http://%s:%s/robots.txt\nContent-Length: 0\n\n" % (own, port))
record("http://robots.test/", "HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Length: %d\n\n%s" % (len(page), page))
record("http://moved.test/", "HTTP/1.1 301 Moved\nLocation: http://127.0.0.1:%s/\nContent-Length: 0\n\n" % port)
PY
start_replay "$SCRATCH/hops.log" --warc "$SCRATCH/hops.warc"
printf 'robots.test\nmoved.test\n' | cat - "$SCRATCH/own.tsv" | grep -v "^$(hostname):" >"$SCRATCH/hops.tsv" || true
"$BENCH" --sites "$SCRATCH/hops.tsv" --proxy "$PROXY" --results "$SCRATCH/hops.out.tsv" >/dev/null
stop_replay
grep -qP '^blocked\t0\thttp://robots.test/\t' "$SCRATCH/hops.out.tsv" ||
  fail "a robots.txt redirecting to this host: $(cat "$SCRATCH/hops.out.tsv")"
ok "proxy: a robots.txt redirecting to this host's address blocks its host"
grep -qP '^redirect\t301\thttp://moved.test/\t' "$SCRATCH/hops.out.tsv" &&
  grep -qP "^blocked\t0\thttp://127.0.0.1:$LPORT/\t" "$SCRATCH/hops.out.tsv" ||
  fail "a redirect to 127.0.0.1: $(cat "$SCRATCH/hops.out.tsv")"
ok "proxy: a redirect to 127.0.0.1 is not followed there"
n=$(grep -vc "^$(hostname):" "$SCRATCH/own.tsv" || true)
assert_eq "$((n + 1))" "$(grep -cP "^blocked\t0\t[^\t]*:$LPORT/" "$SCRATCH/hops.out.tsv")" \
  "proxy: all $n IP spellings (and the redirect's target) are blocked"
assert_eq 0 "$(grep -c ":$LPORT/" "$SCRATCH/hops.log" || true)" \
  "proxy: none of them was asked of the proxy"
assert_eq 0 "$(wc -l <"$SCRATCH/listener.log")" "proxy: the listener got no connection"
