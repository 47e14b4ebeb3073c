#!/usr/bin/env bash
# Judging from the crawl (issue 30): a few-shot job (5 relevant + 5 other example websites)
# on the dev web, crawled with the default verdicts (judge = crawl_model) and with the
# paper's (judge = examination). The crawl model's relevant websites are mostly on topic,
# the examination's are not; every relevant website says which model judged it, each
# judging is a stored model, the job's count matches the view; `sitescout judge` judges
# the paper's job again and its errors are one line each; spies choose the threshold at
# the crawl's end, and while it runs from judge_spy_pages pages with 20 relevant examples
# or more; a crawl (of 20 + 5 examples) killed -9 just after a judging keeps its counts
# and, resumed, ends judged by its last model.
source "$(dirname "$0")/lib.sh"
make_scratch
start_private_pg
WEB=$SHARED/webs
start_replay "$SCRATCH/access.log" --warc "$WEB/dev.warc.gz"
TOPIC=rec.sport.hockey # not a topic the judging was tuned on (docs/classifier.md)

python3 - "$WEB/dev-alltopics.jobs.json" "$TOPIC" "$SCRATCH" <<'PY'
import json, sys
jobs = json.load(open(sys.argv[1]))
for name, n in (("few", 5), ("twenty", 20)):
    j = dict(jobs[sys.argv[2]])
    j["relevant_sites"], j["other_sites"] = j["relevant_sites"][:n], j["other_sites"][:5]
    json.dump({sys.argv[2]: j}, open("%s/%s.json" % (sys.argv[3], name), "w"))
PY

# The share of a job's discovered relevant websites whose topic is TOPIC (the labels').
precision() {
  psql_q "select host from relevant_websites where job_id = $1 and role = 'discovered'" |
    python3 -c '
import sys
topic = {}
for line in open(sys.argv[1]).read().splitlines()[1:]:
    c = line.split("\t")
    topic[c[0]] = c[1]
hosts = sys.stdin.read().split()
print("%d %.3f" % (len(hosts), sum(topic.get(h) == sys.argv[2] for h in hosts) / max(1, len(hosts))))' \
      "$WEB/dev-alltopics.sites.tsv" "$TOPIC"
}
crawl() { # crawl OUT --set ...: a 3,000-page crawl of the few-shot job; sets JOB
  "$BIN" crawl --db "$DB_URL" --job "$SCRATCH/few.json" --topic "$TOPIC" --proxy "$PROXY" \
    --set politeness_delay_ms=0 --set max_pages=3000 "${@:2}" >"$SCRATCH/$1" 2>&1 ||
    fail "crawl failed: $(cat "$SCRATCH/$1")"
  JOB=$(psql_q "select max(id) from jobs")
}

# --- the default: the crawl model judges (at 500, 1,000 and 2,000 pages and at the end)
crawl model.out --report "$SCRATCH/model.json"
model_job=$JOB
read -r found prec <<<"$(precision "$model_job")"
[[ $found -ge 8 ]] || fail "the crawl model found $found relevant websites (8 or more expected)"
ok "the crawl model found $found relevant websites"
python3 -c "import sys; sys.exit(0 if $prec >= 0.8 else 1)" ||
  fail "precision of the crawl model's verdicts $prec (0.8 or more expected; the paper's: < 0.3)"
ok "precision of the crawl model's verdicts $prec >= 0.8"
assert_eq 0 "$(psql_q "select count(*) from relevant_websites where job_id = $model_job
  and (judged_by <> 'crawl_model' or model_id is null or judged_at is null)")" \
  "every relevant website was judged by a crawl model, which the view names"
models=$(psql_q "select count(*) from models where job_id = $model_job and kind = 'crawl'")
assert_eq 4 "$models" "one crawl model a judging: at 500, 1,000 and 2,000 pages and at the end"
assert_eq 0 "$(psql_q "select count(*) from models where job_id = $model_job and kind = 'crawl'
  and (length(data) < 1000 or (cv->>'threshold')::float8 is null)")" \
  "each crawl model is stored whole (its vocabulary and parameters) with its threshold"
assert_eq "0 0 0 1" "$(psql_q "select string_agg(((cv->>'spies')::int > 0)::int::text, ' ' order by id)
  from models where job_id = $model_job and kind = 'crawl'")" \
  "3,000 pages, under judge_spy_pages (4,000): spies at the end only"
assert_eq "1 1 1 4" "$(psql_q "select string_agg(cv->>'fits', ' ' order by id)
  from models where job_id = $model_job and kind = 'crawl'")" \
  "the model with spies is the bag of its fit and the spies' three; the others one fit"
assert_eq "3 2 4" "$(psql_q "select distinct (params->>'link_rounds') || ' ' || (params->>'link_slope')
  || ' ' || (params->>'exam_links') from models where job_id = $model_job and kind = 'crawl'")" \
  "each model's parameters name how its links weighed: 3 rounds, neighbours as sigma(2 (text + links)), an examination overruled above 4 nats"
python3 - "$SCRATCH/model.json" <<'PY' || fail "the report's judging figures: $(cat "$SCRATCH/model.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["retrains"] == 4, r["retrains"]
assert 0 < r["judge_cpu_seconds"] < r["cpu_seconds"], (r["judge_cpu_seconds"], r["cpu_seconds"])
PY
ok "the report counts 4 judgings and their CPU, a part of the crawl's"
assert_eq 0 "$(psql_q "select count(*) from sites s where job_id = $model_job and model_id is not null
  and not exists (select 1 from models m where m.id = s.model_id and m.job_id = $model_job
  and m.kind = 'crawl')")" "each verdict's model is one of the job's crawl models"
assert_eq "$(psql_q "select count(*) from relevant_websites where job_id = $model_job")" \
  "$(psql_q "select relevant_found from jobs where id = $model_job")" \
  "the job's relevant count is the view's"
assert_eq 0 "$(psql_q "select count(*) from pages p join sites s using (job_id, host)
  where p.job_id = $model_job and s.state = 'examined' and p.pr_target is not null
  and p.terms is null")" "every classified page keeps its terms"
assert_contains "$(cat "$SCRATCH/model.out")" "verdicts by the crawl model, judged 4 times" \
  "the crawl says who gave its verdicts"

# --- the paper's verdicts: nearly everything relevant
crawl paper.out --set judge=examination
paper_job=$JOB
read -r found prec <<<"$(precision "$paper_job")"
python3 -c "import sys; sys.exit(0 if $prec < 0.3 else 1)" ||
  fail "the examination's precision $prec: the few-shot case is no longer hard (this test's contrast is gone)"
ok "the paper's verdicts: $found relevant websites, precision $prec"
assert_contains "$(cat "$SCRATCH/paper.out")" "verdicts by the page classifier" \
  "the crawl says who gave its verdicts"
assert_eq 0 "$(psql_q "select count(*) from models where job_id = $paper_job and kind = 'crawl'")" \
  "judge=examination learns no crawl model"

# --- the websites examined after the first judging weigh their links by the crawl model:
# off-topic ones lightly (the paper's verdicts weigh nearly every link fully, few-shot)
low_share() { # low_share JOB SINCE: the share of links weighing < 0.7 from websites examined after SINCE
  psql_q "select round(coalesce(avg((e.weight < 0.7)::int), 0)::numeric, 3) from edges e
    join sites s on s.job_id = e.job_id and s.host = e.src_host
    where e.job_id = $1 and s.role = 'discovered' and s.examined_at > $2"
}
first=$(psql_q "select min(created_at) from models where job_id = $model_job and kind = 'crawl'")
model_low=$(low_share "$model_job" "'$first'")
paper_low=$(low_share "$paper_job" "'-infinity'")
python3 -c "import sys; sys.exit(0 if $model_low >= $paper_low + 0.2 else 1)" ||
  fail "links after the first judging weighing < 0.7: $model_low of the crawl model's, $paper_low of the paper's"
ok "links weighing < 0.7 after the first judging: $model_low (the paper's: $paper_low)"

# --- sitescout judge on the paper's job: a dry run changes nothing, then it judges
before=$(psql_q "select relevant_found from jobs where id = $paper_job")
dry=$("$BIN" judge --db "$DB_URL" --job "$paper_job" --dry-run \
  --labels "$WEB/dev-alltopics.sites.tsv") || fail "judge --dry-run: $dry"
assert_contains "$dry" "dry run: nothing written" "judge --dry-run says so"
assert_contains "$dry" "if written" "judge --dry-run --labels scores what it would write"
assert_eq "$before" "$(psql_q "select relevant_found from jobs where id = $paper_job")" \
  "a dry run changes no verdict"
out=$("$BIN" judge --db "$DB_URL" --job "$paper_job" --labels "$WEB/dev-alltopics.sites.tsv") ||
  fail "judge: $out"
assert_contains "$out" "verdicts changed" "judge reports what it changed"
assert_eq "$(echo "$dry" | grep -o '[0-9]* verdicts changed, [0-9]* relevant')" \
  "$(echo "$out" | head -1 | grep -o '[0-9]* verdicts changed, [0-9]* relevant')" \
  "the dry run said what the judging then changed"
scores() { grep -o 'precision [0-9.]* -> [0-9.]*, recall [0-9.]* -> [0-9.]* ([0-9]* -> [0-9]* found)' <<<"$1"; }
[[ -n $(scores "$out") ]] || fail "judge --labels prints no figures: $out"
assert_eq "$(scores "$dry")" "$(scores "$out")" \
  "the dry run scored the verdicts the judging then wrote"
read -r found prec <<<"$(precision "$paper_job")"
python3 -c "import sys; sys.exit(0 if $prec >= 0.8 else 1)" ||
  fail "judged again, the paper's job has precision $prec (0.8 or more expected)"
ok "judged again: $found relevant websites, precision $prec"
assert_eq "$(psql_q "select count(*) from relevant_websites where job_id = $paper_job")" \
  "$(psql_q "select relevant_found from jobs where id = $paper_job")" \
  "judged again, the job's relevant count is the view's"

# --- spies while the crawl runs, from judge_spy_pages pages with 20 relevant examples (spy_many)
spied=$("$BIN" judge --db "$DB_URL" --job "$model_job" --dry-run) || fail "judge: $spied"
judged() { # judged OPTIONS...: the threshold and spies of a dry run of the few-shot job
  "$BIN" judge --db "$DB_URL" --job "$model_job" --dry-run "$@" |
    grep -o 'threshold [0-9.e+-]* from [0-9]* spies' || fail "judge $*"
}
assert_eq "threshold 0.2 from 0 spies" "$(judged --spy-pages 1000000 --early-threshold 0.2 \
  --spy-many 5)" "under --spy-pages, one fit at --early-threshold"
assert_eq "threshold 0.2 from 0 spies" "$(judged --spy-pages 2000 --early-threshold 0.2)" \
  "5 relevant examples, fewer than --spy-many (20): one fit at --early-threshold"
[[ $spied =~ from\ ([0-9]+)\ spies && ${BASH_REMATCH[1]} -gt 0 ]] || fail "judge: no spies: $spied"
ok "from --spy-pages on (default 0: always), the spies choose: ${BASH_REMATCH[1]} spies"
assert_eq "$(grep -o 'threshold [0-9.e+-]* from [0-9]* spies' <<<"$spied")" \
  "$(judged --spy-pages 2000 --spy-many 5)" \
  "a crawl of 2,000 pages or more, 5 relevant examples: spies from --spy-pages 2000 --spy-many 5"

# --- kill -9 just after a judging, then resume: nothing half-written, judged again at the end;
# 20 relevant examples (spy_many), spies from 600 pages on (judge_spy_pages), not at 500
( exec "$BIN" crawl --db "$DB_URL" --job "$SCRATCH/twenty.json" --topic "$TOPIC" --proxy "$PROXY" \
  --set politeness_delay_ms=0 --set max_pages=3000 --set judge_spy_pages=600 ) \
  >"$SCRATCH/killed.out" 2>&1 &
pid=$!
at_exit "kill -9 $pid"
killed_job=""
for _ in $(seq 1200); do # one query a turn: a loaded machine must not miss the moment
  killed_job=$(psql_q "select max(j.id) from jobs j where j.id > $paper_job and j.state = 'crawling'
    and exists (select 1 from models m where m.job_id = j.id and m.kind = 'crawl')")
  [[ -n $killed_job ]] && break
  kill -0 $pid 2>/dev/null || fail "the crawl ended before its first judging: $(cat "$SCRATCH/killed.out")"
  sleep 0.05
done
[[ -n $killed_job ]] || fail "no judging within 60 s: $(cat "$SCRATCH/killed.out")"
kill -9 $pid
wait $pid 2>/dev/null || true
at=$(psql_q "select pages_downloaded from jobs where id = $killed_job")
assert_eq "$(psql_q "select count(*) from relevant_websites where job_id = $killed_job")" \
  "$(psql_q "select relevant_found from jobs where id = $killed_job")" \
  "killed -9 after a judging (at $at pages): the job's relevant count is the view's"
# Before the resume, the user rejects up to three websites it listed: the resumed crawl's
# judgings learn from them, and each website read after one of them that is more like a
# rejected website than like any relevant one is not relevant as it is read (its log says).
read -r -a turned <<<"$(psql_q "select host from relevant_websites where job_id = $killed_job
  and role = 'discovered' order by host limit 3" | tr '\n' ' ')"
((${#turned[@]} >= 1)) || fail "the killed job listed no discovered website to reject"
for h in "${turned[@]}"; do
  out=$("$BIN" label --db "$DB_URL" --job "$killed_job" "$h" not) || fail "label $h not: $out"
done
SITESCOUT_LOG=info "$BIN" crawl --db "$DB_URL" --resume "$killed_job" >"$SCRATCH/resumed.out" 2>&1 ||
  fail "the resume failed: $(cat "$SCRATCH/resumed.out")"
grep -o 'is more like [^ ]*, which the user rejected' "$SCRATCH/resumed.out" |
  awk '{print $4}' | tr -d , | sort -u >"$SCRATCH/vetoed_as_read"
[[ -s $SCRATCH/vetoed_as_read ]] ||
  fail "no website read after the rejections was vetoed as read: $(grep -c examined "$SCRATCH/resumed.out")"
while read -r h; do
  [[ " ${turned[*]} " == *" $h "* ]] || fail "a website vetoed as read names $h, not a rejected one"
done <"$SCRATCH/vetoed_as_read"
ok "resumed after ${#turned[@]} rejections: $(grep -c 'which the user rejected' "$SCRATCH/resumed.out") websites vetoed as they were read"
assert_eq done "$(psql_q "select state from jobs where id = $killed_job")" "resumed, the job ends"
assert_eq 0 "$(psql_q "select count(*) from relevant_websites r where job_id = $killed_job
  and not exists (select 1 from models m where m.id = r.model_id and m.job_id = $killed_job
  and m.kind = 'crawl' and m.id = (select max(id) from models where job_id = $killed_job
  and kind = 'crawl'))")" "resumed, every relevant website has the last crawl model's verdict"
assert_eq "$(psql_q "select count(*) from relevant_websites where job_id = $killed_job")" \
  "$(psql_q "select relevant_found from jobs where id = $killed_job")" \
  "resumed, the job's relevant count is the view's"
read -r found prec <<<"$(precision "$killed_job")"
python3 -c "import sys; sys.exit(0 if $prec >= 0.8 else 1)" ||
  fail "killed and resumed, precision $prec (0.8 or more expected)"
spies=$(psql_q "select string_agg(((cv->>'spies')::int > 0)::int::text, ' ' order by id)
  from models where job_id = $killed_job and kind = 'crawl'")
[[ $spies =~ ^(0\ )+1(\ 1)+$ ]] ||
  fail "judge_spy_pages=600: the judgings' spies (1: some) $spies (0 at 500 pages, 1 from 1,000)"
ok "judge_spy_pages=600: spies while the crawl runs from 1,000 pages on ($spies)"
ok "killed and resumed: $found relevant websites, precision $prec"

# --- the user rejects three websites the crawl model listed (say, of a kind of the topic the
# user does not want): the job learns from them, and a website that would be listed but is
# more like one of them than like any relevant one is not (sites.like_rejected names which;
# docs/classifier.md, "Labels")
read -r -a rejected <<<"$(psql_q "select host from relevant_websites where job_id = $model_job
  and role = 'discovered' order by host limit 3" | tr '\n' ' ')"
assert_eq 3 "${#rejected[@]}" "three listed websites to reject"
for h in "${rejected[@]}"; do
  out=$("$BIN" label --db "$DB_URL" --job "$model_job" "$h" not) || fail "label $h not: $out"
done
like=$(psql_q "select count(*) from sites where job_id = $model_job and like_rejected is not null
  and label is null")
[[ $like -ge 1 ]] || fail "no website judged more like a rejected one than like any relevant one"
assert_eq 0 "$(psql_q "select count(*) from sites where job_id = $model_job
  and like_rejected is not null and label is null and (relevant or confidence <> 0.5
  or like_rejected not in ('${rejected[0]}', '${rejected[1]}', '${rejected[2]}'))")" \
  "the $like websites more like a rejected one than like any relevant one: not listed, at 0.5"
assert_eq "$(psql_q "select count(*) from relevant_websites where job_id = $model_job")" \
  "$(psql_q "select relevant_found from jobs where id = $model_job")" \
  "judged again with the rejections, the job's relevant count is the view's"
# What a user sees: the verdict explained names the rejected website and the veto.
start_serve "$SCRATCH/serve.out" --workers 0
vetoed=$(psql_q "select host from sites where job_id = $model_job and like_rejected is not null
  and label is null order by host limit 1")
curl -sf "$API/api/jobs/$model_job/sites/$vetoed/pages" >"$SCRATCH/vetoed.json" ||
  fail "GET the verdict of $vetoed"
python3 - "$SCRATCH/vetoed.json" "$(psql_q "select like_rejected from sites where job_id = $model_job
  and host = '$vetoed'")" <<'PY' || fail "the verdict of $vetoed explained: $(cat "$SCRATCH/vetoed.json")"
import json, sys
d = json.load(open(sys.argv[1]))
j, cm = d["judged"], d["crawl_model"]
assert d["relevant"] is False and j["by"] == "crawl_model" and j["like_rejected"] == sys.argv[2], j
assert cm["vetoed"] is True and cm["text_evidence"] + (cm["link_evidence"] or 0) > 0, cm
PY
ok "the verdict of $vetoed explained: vetoed, more like ${vetoed:+the rejected} $(psql_q "select like_rejected
  from sites where job_id = $model_job and host = '$vetoed'")"

# --- errors: one line, non-zero
set +e
out=$("$BIN" judge --db "$DB_URL" --job 999999 2>&1)
rc=$?
set -e
[[ $rc -ne 0 && $(echo "$out" | wc -l) -eq 1 && $out == *"no job 999999"* ]] ||
  fail "judge of no job: rc $rc, $out"
ok "judge of a job that does not exist: one line, exit $rc ($out)"
set +e
out=$("$BIN" judge --db "$DB_URL" --job "$paper_job" --threshold 2 2>&1)
rc=$?
set -e
assert_eq 2 "$rc" "judge --threshold 2 is a usage error"
set +e
out=$("$BIN" judge --db "$DB_URL" --job "$paper_job" --link-slope -1 2>&1)
rc=$?
set -e
assert_eq 2 "$rc" "judge --link-slope -1 is a usage error"
assert_contains "$out" "--link-slope wants a number in [0, 100], not '-1'" "the bad slope is named"
echo "judge.sh: $checks checks passed"
