#!/usr/bin/env bash
# `sitescout eval --all-topics` on the dev web: a row per topic, the mean and worst F1 over
# all topics and the untuned ones, --tuned marking, --min-relevant, the JSON report, a
# failing topic, and the usage errors. Skipped (77) without ../shared's dev web.
source "$(dirname "$0")/lib.sh"
WEB=$SHARED/webs
[[ -f $WEB/dev.warc.gz && -f $WEB/dev-alltopics.jobs.json ]] || { echo "no dev web in $WEB"; exit 77; }
make_scratch
LABELS=$WEB/dev-alltopics.sites.tsv
SPACE=subject.Science.Physics.Space_Astronomy      # 9 relevant training websites
POLIT=subject.Citizenship.Politics_and_government  # 12
JOBS=$SCRATCH/two.jobs.json
# Two topics of the 32, each with its first 50 other websites: about 2 s a topic.
python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); json.dump({t: dict(j[t], other_sites=j[t]["other_sites"][:50]) for t in sys.argv[3:]}, open(sys.argv[2], "w"))' \
  "$WEB/dev-alltopics.jobs.json" "$JOBS" "$SPACE" "$POLIT"
ev() { "$BIN" eval "$@"; }

# --- the command line
err=$(ev --all-topics --job "$JOBS" --topic "$SPACE" 2>&1 || true)
assert_eq "sitescout eval: --topic and --all-topics exclude each other" "$(head -1 <<<"$err")" \
  "--topic with --all-topics is refused in one line"
assert_status 2 "--topic with --all-topics exits 2" -- ev --all-topics --job "$JOBS" --topic "$SPACE"
assert_status 2 "--save-model with --all-topics exits 2" -- ev --all-topics --job "$JOBS" --save-model
assert_status 2 "--tuned without --all-topics exits 2" -- ev --job "$JOBS" --topic "$SPACE" --tuned x
assert_status 2 "--min-relevant without --all-topics exits 2" -- ev --job "$JOBS" --topic "$SPACE" --min-relevant 1
assert_status 2 "a negative --min-relevant exits 2" -- ev --all-topics --job "$JOBS" --min-relevant -1
assert_status 1 "a missing jobs file exits 1" -- ev --all-topics --job "$SCRATCH/nope.json"

start_replay "$SCRATCH/replay.log" --warc "$WEB/dev.warc.gz"
common=(--labels "$LABELS" --proxy "$PROXY" --set politeness_delay_ms=0)

# --- both topics, POLIT declared tuned
ev --all-topics --job "$JOBS" "${common[@]}" --tuned "$POLIT,sci.space" --report "$SCRATCH/all.json" \
  >"$SCRATCH/all.out" 2>"$SCRATCH/all.err" || fail "eval --all-topics failed: $(cat "$SCRATCH/all.err")"
out=$(cat "$SCRATCH/all.out")
assert_contains "$out" "$JOBS: cross-validation over 2 topics" "the heading names the file, the mode, the topics"
assert_eq 2 "$(grep -c '^\[[12]/2\] subject\..*: website F1 [01]\.[0-9]*, .* pages per website' "$SCRATCH/all.err")" \
  "one progress line per topic on stderr"
# The rows and the summary lines agree: mean and worst over all, and over the untuned one.
python3 - "$SCRATCH/all.out" "$SPACE" "$POLIT" <<'EOF2' || fail "table"
import re, statistics, sys
text, space, polit = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
rows = {}
for line in text.splitlines():
    m = re.match(r"(\S+)( \(tuned\))? +(\d+) +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+) +([+-][\d.]+)$", line)
    if m:
        rows[m[1]] = dict(tuned=bool(m[2]), relevant=int(m[3]), f1=float(m[6]), pages=float(m[7]),
                          home=float(m[9]), improve=float(m[10]))
assert set(rows) == {space, polit}, rows
assert rows[polit]["tuned"] and not rows[space]["tuned"], "tuned marking"
assert (rows[space]["relevant"], rows[polit]["relevant"]) == (9, 12), rows
for r in rows.values():
    assert 0 < r["pages"] <= 7 and abs(r["f1"] - r["home"] - r["improve"]) < 0.0015, r
def part(name):
    m = re.search(r"^%s, (\d+) topics?: mean website F1 ([\d.]+), worst ([\d.]+) \((\S+)\); ([\d.]+) pages per website" % name, text, re.M)
    assert m, name + " line missing"
    return int(m[1]), float(m[2]), float(m[3]), m[4], float(m[5])
n, mean, worst, wt, pages = part("all")
f1 = [r["f1"] for r in rows.values()]
assert n == 2 and abs(mean - statistics.mean(f1)) < 0.0015 and worst == min(f1), (n, mean, worst)
assert rows[wt]["f1"] == worst, wt
assert abs(pages - statistics.mean(r["pages"] for r in rows.values())) < 0.006, pages
assert part("untuned")[:4] == (1, rows[space]["f1"], rows[space]["f1"], space), part("untuned")
EOF2
ok "rows with the tuned topic marked; the summary lines are the mean and worst of the rows"

# The report: each topic as `eval --report` writes it, and the summary from the topics.
ev --job "$JOBS" --topic "$SPACE" "${common[@]}" --report "$SCRATCH/one.json" >/dev/null 2>&1 ||
  fail "eval --topic $SPACE failed"
python3 - "$SCRATCH/all.json" "$SCRATCH/one.json" "$SPACE" "$POLIT" <<'EOF2' || fail "report"
import json, statistics, sys
r, one = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
space, polit = sys.argv[3], sys.argv[4]
t = {x["topic"]: x for x in r["topics"]}
assert [x["topic"] for x in r["topics"]] == [space, polit], list(t)
assert t[polit]["tuned"] is True and t[space]["tuned"] is False
assert t[space]["relevant_sites"] == 9 and t[polit]["relevant_sites"] == 12
strip = lambda d: {k: v for k, v in d.items() if k not in ("seconds", "seconds_total", "tuned", "relevant_sites")}
assert strip(t[space]) == strip(one), [k for k in one if t[space].get(k) != one[k]]
s = r["summary"]
f1 = {k: v["website"]["f1"] for k, v in t.items()}
assert s["all"]["topics"] == 2 and abs(s["all"]["mean_f1"] - statistics.mean(f1.values())) < 1e-6
assert s["all"]["worst_f1"] == min(f1.values()) and f1[s["all"]["worst_topic"]] == s["all"]["worst_f1"]
pages = statistics.mean(v["website"]["pages_per_site"] for v in t.values())
assert abs(s["all"]["mean_pages_per_site"] - pages) < 1e-5
assert s["untuned"]["topics"] == 1 and s["untuned"]["worst_topic"] == space
assert s["untuned"]["mean_f1"] == s["untuned"]["worst_f1"] == f1[space]
assert s["tuned"] == [polit] and s["failed"] == [] and s["skipped"] == [], s
assert s["mode"] == "cv" and s["min_relevant"] == 0
print("all: mean F1 %.3f, worst %.3f (%s)" % (s["all"]["mean_f1"], s["all"]["worst_f1"], s["all"]["worst_topic"]))
EOF2
ok "--report: the topics as eval --report writes them, the summary their mean and worst"

# --- --min-relevant, and topics that fail: one cannot be loaded, one gives no page. Both run
# (exit 1), SPACE is skipped under 10 relevant websites; no topic is evaluated.
FAILS=$SCRATCH/fails.jobs.json
python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); json.dump({sys.argv[3]: j[sys.argv[3]], "bad.job": {"topic": "bad.job", "relevant_sites": ["ftp://a.org/"], "other_sites": ["http://b.com/"]}, "no.web": {"topic": "no.web", "relevant_sites": ["http://nowhere-%d.invalid/" % i for i in range(10)], "other_sites": ["http://elsewhere.invalid/", "http://away.invalid/"]}}, open(sys.argv[2], "w"))' \
  "$JOBS" "$FAILS" "$SPACE"
got=0
ev --all-topics --job "$FAILS" "${common[@]}" --min-relevant 10 --report "$SCRATCH/fails.json" \
  >"$SCRATCH/fails.out" 2>"$SCRATCH/fails.err" || got=$?
assert_eq 1 "$got" "failing topics: exit 1"
out=$(cat "$SCRATCH/fails.out")
[[ $(grep '^bad.job ' <<<"$out") =~ ^bad\.job\ +0\ +FAILED:\ job:\ .*relevant_sites\[0\] ]] ||
  fail "the bad job's row: $out"
ok "the bad job's row names its error"
assert_contains "$out" "no.web" "the topic without pages has its row"
assert_contains "$(grep '^no.web' <<<"$out")" "FAILED: evaluation: " "... with its error"
assert_contains "$out" "(1 skipped: fewer than 10 relevant training websites)" "the heading counts the skipped topic"
assert_contains "$(cat "$SCRATCH/fails.err")" "[1/3] $SPACE: skipped, 9 relevant training websites" \
  "the skipped topic has its progress line"
assert_contains "$(cat "$SCRATCH/fails.err")" "sitescout eval: 2 of 2 topics failed" "the last line counts the failures"
python3 - "$SCRATCH/fails.json" "$SPACE" <<'EOF2' || fail "failures report"
import json, sys
r = json.load(open(sys.argv[1]))
s = r["summary"]
assert s["skipped"] == [sys.argv[2]] and s["failed"] == ["bad.job", "no.web"], s
assert s["all"]["topics"] == 0 and s["all"]["mean_f1"] is None and s["all"]["worst_topic"] is None, s
assert [t["topic"] for t in r["topics"]] == ["bad.job", "no.web"]
assert all(t["error"] for t in r["topics"]) and r["topics"][1]["relevant_sites"] == 10
EOF2
ok "the report lists the failed and skipped topics"
