#!/usr/bin/env bash
# The baselines of issue 8 and the strategies of issue 18 (bestfirst, history, hotwords,
# relevance_degree, weight_table, learning_anchor, context_graph) on
# the demo web: the focused page crawler, the breadth-first
# page crawler, the homepage-only website crawl and the page crawler with homepage
# post-processing (issue 14) each run to their budget and report
# the same way as the website crawler (job counters, relevant_websites, metrics rows,
# the crawl report); the page crawler's guard holds; a focused crawl reads more relevant
# pages than a breadth-first one; robots.txt is obeyed. Resuming page-level crawls:
# strategies_resume.sh.
source "$(dirname "$0")/lib.sh"
make_scratch
start_private_pg
WARC=$SRC/demo/demo.warc.gz
JOBS=$SRC/demo/demo.jobs.json
LABELS=$SRC/demo/demo.sites.tsv
crawl() { "$BIN" crawl --db "$DB_URL" "$@"; }
json() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))$2)" "$1"; }
start_replay "$SCRATCH/access.log" --warc "$WARC"

# run_strategy NAME [--set ...]: a 150-page crawl; sets JOB
run_strategy() {
  local name=$1; shift
  crawl --job "$JOBS" --topic sci.space --proxy "$PROXY" --labels "$LABELS" \
    --report "$SCRATCH/$name.json" --set strategy="$name" --set politeness_delay_ms=0 \
    --set max_pages=150 --set concurrency=8 "$@" >"$SCRATCH/$name.out" 2>&1 ||
    fail "strategy $name failed: $(cat "$SCRATCH/$name.out")"
  JOB=$(json "$SCRATCH/$name.json" "['job_id']")
  assert_contains "$(cat "$SCRATCH/$name.out")" "job $JOB: done" "strategy $name runs to the end"
}

# same_report NAME: what every strategy must give
same_report() {
  local name=$1 pages relevant
  pages=$(json "$SCRATCH/$name.json" "['pages_downloaded']")
  relevant=$(json "$SCRATCH/$name.json" "['relevant_found']")
  [[ $relevant -ge 3 ]] || fail "$name found only $relevant relevant websites in $pages pages"
  assert_eq "$relevant" "$(psql_q "select count(*) from relevant_websites where job_id = $JOB")" \
    "$name: relevant_websites has a row per relevant website found ($relevant)"
  assert_eq "$pages" "$(psql_q "select pages_downloaded from jobs where id = $JOB")" \
    "$name: the job's page counter matches the report ($pages)"
  assert_eq "$(psql_q "select sites_examined from jobs where id = $JOB")" \
    "$(psql_q "select count(*) from sites where job_id = $JOB and state = 'examined'
      and role not like 'train%'")" "$name: the examined-sites counter matches the sites table"
  [[ $(psql_q "select count(*) from metrics where job_id = $JOB") -ge $((pages / 50)) ]] ||
    fail "$name: fewer than a metrics row per 50 pages"
  assert_eq "$pages" "$(psql_q "select max(pages) from metrics where job_id = $JOB")" \
    "$name: the last metrics row has the final page count"
  assert_eq 0 "$(psql_q "select count(*) from relevant_websites w join sites s using (job_id, host)
    where w.job_id = $JOB and (s.role like 'train%' or w.pages_visited < 1)")" \
    "$name: no training site listed, every site listed was visited"
  python3 -c "import sys; p = $(json "$SCRATCH/$name.json" "['precision']"); sys.exit(not p > 0)" ||
    fail "$name: no precision in the report"
  assert_eq 0 "$(psql_q "select count(*) from relevant_websites w join sites s using (job_id, host)
    where w.job_id = $JOB and (s.found_pages is null or s.found_pages < 1
    or s.found_pages > $pages)")" "$name: each relevant website says at which page it was found"
}

# --- the focused page crawler, with a guard of 5 pages per website
run_strategy page --set max_pages_per_site=5
page_job=$JOB
same_report page
assert_eq 150 "$(json "$SCRATCH/page.json" "['pages_downloaded']")" \
  "page: exactly the page budget is downloaded"
assert_eq 5 "$(psql_q "select max(pages_visited) from sites where job_id = $JOB
  and role not like 'train%'")" "page: the guard stops a website at max_pages_per_site"
single=$(psql_q "select count(*) from relevant_websites where job_id = $JOB and pages_visited = 1")
ok "page: $single relevant websites were judged from one page"

# --- breadth-first
run_strategy bfs --set max_pages_per_site=5
bfs_job=$JOB
same_report bfs
# The page harvest rate: the share of downloaded pages the classifier calls relevant.
harvest() { psql_q "select round(avg((pr_target > 0.5)::int), 3) from pages where job_id = $1
  and purpose = 'crawl' and pr_target is not null"; }
focused=$(harvest "$page_job")
blind=$(harvest "$bfs_job")
python3 -c "import sys; sys.exit(not $focused > $blind + 0.05)" ||
  fail "the focused crawl's pages are no more relevant than breadth-first ($focused vs $blind)"
ok "the focused crawler reads more relevant pages than breadth-first ($focused vs $blind)"

# --- each website judged by its homepage alone
run_strategy homepage
same_report homepage
assert_eq 1 "$(psql_q "select max(pages_visited) from sites where job_id = $JOB
  and state = 'examined' and role not like 'train%'")" "homepage: one page per website"
assert_eq "homepages pages" "$(psql_q "select string_agg(kind, ' ' order by kind) from models
  where job_id = $JOB")" "homepage: the job keeps its homepage classifier beside the page classifier"
assert_eq "pages" "$(psql_q "select string_agg(kind, ' ') from models where job_id = $page_job")" \
  "page: no homepage classifier is trained for a strategy that does not use it"

# --- the focused page crawler with homepage post-processing (the paper's section 3.2)
run_strategy page_homepage
same_report page_homepage
assert_eq 0 "$(psql_q "select count(*) from sites where job_id = $JOB and state = 'examined'
  and role not like 'train%' and relevant and pages_to_class <> 1")" \
  "page_homepage: only websites whose homepage was read are relevant"
[[ $(psql_q "select count(*) from sites where job_id = $JOB and state = 'examined'
  and role not like 'train%' and relevant and pages_visited > 1") -gt 0 ]] ||
  fail "page_homepage: no relevant website had more than its homepage read: the test shows nothing"

# --- issue 18: the other papers' page-level strategies, each to the same budget and guard
for s in bestfirst history hotwords relevance_degree weight_table learning_anchor context_graph; do
  SITESCOUT_LOG=info run_strategy "$s" --set max_pages_per_site=5
  same_report "$s"
  if [[ $s == weight_table ]]; then
    # Only links above the link-score threshold (seed 002): on the small demo web the
    # queue may run empty before the budget, and the crawl then says so.
    got=$(json "$SCRATCH/$s.json" "['pages_downloaded']")
    [[ $got -eq 150 || $(psql_q "select stop_reason from jobs where id = $JOB") == border_empty ]] ||
      fail "$s: $got pages downloaded of 150, and its queue was not empty"
    ok "$s: $got pages of the budget of 150, then $(psql_q "select stop_reason from jobs where id = $JOB")"
  else
    assert_eq 150 "$(json "$SCRATCH/$s.json" "['pages_downloaded']")" \
      "$s: exactly the page budget is downloaded"
  fi
  [[ $(psql_q "select max(pages_visited) from sites where job_id = $JOB
    and role not like 'train%'") -le 5 ]] || fail "$s: the guard let a website give over 5 pages"
  stored=$(psql_q "select count(*) from pages where job_id = $JOB and purpose = 'crawl'")
  [[ $stored -ge 1 && $stored -le 150 ]] || fail "$s: $stored crawl pages stored for 150 downloaded"
  assert_eq "$stored" "$(psql_q "select coalesce(sum(pages_visited), 0) from sites
    where job_id = $JOB and state = 'examined' and role not like 'train%'")" \
    "$s: the examined websites' page counts add up to the pages stored ($stored)"
  assert_eq "$s" "$(psql_q "select params->>'strategy' from jobs where id = $JOB")" \
    "$s: the job is stored with its strategy"
  # Shown, not asserted: over 150 pages the margin moves with the order of the answers.
  echo "# $s: page harvest rate $(harvest "$JOB") (breadth-first $blind)"
done
hot=$(grep -o "hot words (the topic's key terms, stemmed): .*" "$SCRATCH/hotwords.out" || true)
[[ -n $hot && $hot != *": none" ]] || fail "hotwords: no key terms in its log: $(cat "$SCRATCH/hotwords.out")"
ok "hotwords: $hot"
! grep -q "hot words" "$SCRATCH/bestfirst.out" || fail "bestfirst reads anchors it does not need"
keys=$(grep -o "key phrases (TF-DF and information gain, stemmed): .*" "$SCRATCH/relevance_degree.out" || true)
[[ -n $keys && $keys != *": none" ]] ||
  fail "relevance_degree: no key phrases in its log: $(cat "$SCRATCH/relevance_degree.out")"
ok "relevance_degree: $keys"
rd_job=$(json "$SCRATCH/relevance_degree.json" "['job_id']")
assert_eq "keyphrases pages" "$(psql_q "select string_agg(kind, ' ' order by kind) from models
  where job_id = $rd_job")" "relevance_degree: the job keeps its key phrases beside its page classifier"
assert_eq 20 "$(psql_q "select array_length(regexp_split_to_array(rtrim(convert_from(data, 'UTF8'),
  E'\n'), E'\n'), 1) from models where job_id = $rd_job and kind = 'keyphrases'")" \
  "relevance_degree: |K| = 20 key phrases, one a line (seed 001 §3)"
# Links to other hosts first (seed 001 §2.1 follows no other): on the demo web, as on the
# dev web, no homepage links to another website, so that queue runs empty after a few
# dozen pages (where the seed's crawl ends, border_empty, as it did here before); the
# crawl says so and reads on, by the links within websites, to its budget.
dry=$(grep -o "relevance_degree: no link to another host left after [0-9]* pages" \
  "$SCRATCH/relevance_degree.out" || true)
[[ $dry =~ after\ ([0-9]+)\ pages ]] && ((BASH_REMATCH[1] > 0 && BASH_REMATCH[1] < 150)) ||
  fail "relevance_degree: the log does not say when the links to other hosts ran out: $(cat "$SCRATCH/relevance_degree.out")"
ok "$dry, then read on to the budget of 150"
table=$(grep -o "topic weight table (TF-IDF, stemmed): .*" "$SCRATCH/weight_table.out" || true)
[[ $table =~ :\ [a-z0-9]+\ 1\.000 ]] ||
  fail "weight_table: no weight table, greatest weight 1 first, in its log: $(cat "$SCRATCH/weight_table.out")"
ok "weight_table: $table"
wt_job=$(json "$SCRATCH/weight_table.json" "['job_id']")
assert_eq "pages weighttable" "$(psql_q "select string_agg(kind, ' ' order by kind) from models
  where job_id = $wt_job")" "weight_table: the job keeps its weight table beside its page classifier"
assert_eq 10 "$(psql_q "select array_length(regexp_split_to_array(rtrim(convert_from(data, 'UTF8'),
  E'\n'), E'\n'), 1) from models where job_id = $wt_job and kind = 'weighttable'")" \
  "weight_table: 10 keywords in the table (seed 002, Table I)"
learned=$(grep -o "anchor classifier learned from [0-9]* relevant and [0-9]* other anchors" \
  "$SCRATCH/learning_anchor.out" || true)
[[ $learned =~ from\ ([0-9]+)\ relevant\ and\ ([0-9]+)\ other ]] ||
  fail "learning_anchor: no learning in its log: $(cat "$SCRATCH/learning_anchor.out")"
((BASH_REMATCH[1] > 0 && BASH_REMATCH[2] > 0)) ||
  fail "learning_anchor: it learned from one class only ($learned)"
ok "learning_anchor: $learned (from the crawl's own verdicts)"
layers=$(grep -o "context graph from [0-9]* training links: .*" "$SCRATCH/context_graph.out" || true)
[[ $layers =~ other:\ [1-9][0-9]*, ]] ||
  fail "context_graph: no layers with target pages in its log: $(cat "$SCRATCH/context_graph.out")"
ok "context_graph: $layers"
grep -q "context graph: pages read by layer" "$SCRATCH/context_graph.out" ||
  fail "context_graph: the crawl did not classify pages into layers: $(cat "$SCRATCH/context_graph.out")"
cg_job=$(json "$SCRATCH/context_graph.json" "['job_id']")
assert_eq "ctxgraph pages" "$(psql_q "select string_agg(kind, ' ' order by kind) from models
  where job_id = $cg_job")" "context_graph: the job keeps its layer classifier beside its page classifier"
assert_eq "ctxgraph 1 layers 0" "$(psql_q "select substr(convert_from(substr(data, 1, 19), 'UTF8'), 1, 19)
  from models where job_id = $cg_job and kind = 'ctxgraph'")" \
  "context_graph: the stored model names its layers, layer 0 first"
# A resumed context_graph job crawls with the layers it trained, read back from models:
# the finished job is given 30 pages more and resumed (as a paused job is).
psql_q "update jobs set state = 'paused', stop_reason = null,
  body = jsonb_set(body, '{params,max_pages}', '180'),
  params = jsonb_set(params, '{max_pages}', '180') where id = $cg_job" >/dev/null
SITESCOUT_LOG=info crawl --resume "$cg_job" --proxy "$PROXY" >"$SCRATCH/resume_cg.out" 2>&1 ||
  fail "context_graph resume failed: $(cat "$SCRATCH/resume_cg.out")"
# (a resumed page crawl starts a new frontier from the border, without the websites
# examined: with max_pages_per_site=5 on the demo web it may run dry before 180)
assert_eq done "$(psql_q "select state from jobs where id = $cg_job")" \
  "context_graph: the resumed job crawls to its end"
got=$(psql_q "select pages_downloaded from jobs where id = $cg_job")
((got > 150 && got <= 180)) || fail "context_graph: the resumed job has $got pages, not 151 to 180"
ok "context_graph: the resumed job read $((got - 150)) pages more, then $(psql_q "select stop_reason
  from jobs where id = $cg_job")"
trained=$(grep -o "context graph layers with a class.*" "$SCRATCH/context_graph.out" || true)
resumed=$(grep -o "context graph layers with a class.*" "$SCRATCH/resume_cg.out" || true)
[[ -n $trained ]] || fail "context_graph: no layers in the first run's log"
assert_eq "$trained" "$resumed" "context_graph: the resumed crawl uses the layers it trained"
assert_eq 1 "$(psql_q "select count(*) from models where job_id = $cg_job and kind = 'ctxgraph'")" \
  "context_graph: ... read back, not trained again"

assert_contains "$("$BIN" crawl --help)" \
  "Strategies: website, page, bfs, homepage, page_homepage, bestfirst, history, hotwords, relevance_degree, weight_table, learning_anchor, context_graph" \
  "crawl --help lists every strategy"

stop_replay
out=$(python3 "$SRC/tests/tools/check_access_log.py" "$SCRATCH/access.log" "$WARC") ||
  fail "politeness: $out"
ok "robots.txt obeyed by every strategy ($(tail -1 <<<"$out"))"
