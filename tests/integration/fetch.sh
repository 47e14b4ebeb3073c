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
# An unreachable robots.txt holds its host back (RFC 9309); retry it soon here.
"$BENCH" --sites "$SITES" --proxy "$PROXY" --max-pages 1500 --robots-retry-ms 200 \
  --results "$SCRATCH/faults.tsv" >/dev/null
stop_replay
[[ $(count http_error "$SCRATCH/faults.tsv") -gt 0 ]] || fail "injected 5xx not reported"
[[ $(count network "$SCRATCH/faults.tsv") -gt 0 ]] || fail "injected resets not reported"
[[ $(count ok "$SCRATCH/faults.tsv") -gt 500 ]] || fail "too few pages under faults"
ok "under injected faults the fetch completes and reports errors and resets"
out=$(check_log "$SCRATCH/faults.log" "$WARC") || fail "politeness under faults: $out"
ok "still polite under faults"

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
