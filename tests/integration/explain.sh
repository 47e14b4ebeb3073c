#!/usr/bin/env bash
# A website's verdict explained and the border (issue 17), on a real job: the demo job
# crawled through `sitescout serve` (real PostgreSQL, the replay web) with a page budget
# that leaves a border. GET /api/jobs/{id}/sites/{host}/pages gives the pages in the
# order read, the posterior after each (its last equal to the stored confidence), why
# the reading stopped (consistent with what the site shows) and the links that brought
# the crawl there (the edges table's); GET /api/jobs/{id}/border the waiting websites,
# best first. A training website answers as a training example (its label, its pages).
# Older rows without the new columns answer with nulls; unknowns are 404.
source "$(dirname "$0")/lib.sh"
make_scratch
start_private_pg
start_replay "$SCRATCH/access.log" --warc "$SRC/demo/demo.warc.gz"
start_serve "$SCRATCH/serve.out" --workers 1

req() { curl -s -o "$SCRATCH/body" -w '%{http_code}' "$API$1"; }
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$SCRATCH/body"; }

# The demo job with a budget the border outlasts (it empties at ~800 pages).
# (Judged from 200 pages on: the default, 500, is more than this crawl reads.)
JOB_PARAMS='{"judge_pages": 200}' job_body 0 8 "$SCRATCH/job.json" 300
curl -s -o "$SCRATCH/body" -H 'Content-Type: application/json' --data-binary "@$SCRATCH/job.json" \
  "$API/api/jobs" >/dev/null
job=$(field "d['id']")
for _ in $(seq 1200); do
  req "/api/jobs/$job" >/dev/null
  [[ $(field "d['state']") == done || $(field "d['state']") == failed ]] && break
  sleep 0.1
done
assert_eq done "$(field "d['state']")" "the job runs to the end ($(field "d['error']"))"
assert_eq max_pages "$(field "d['stop_reason']")" "it stops at its page budget"
p_threshold=$(field "d['params']['p_threshold']")

# --- every website examined, explained
hosts=$(psql_q "select host from sites where job_id = $job and state = 'examined'
  and role not like 'train%' order by host")
n_hosts=$(echo "$hosts" | wc -l)
[[ $n_hosts -ge 5 ]] || fail "only $n_hosts websites examined"
psql_q "select host, src_host, conf_sum, page_count, weight from (select dst_host host, * from edges
  where job_id = $job) e order by 1, 2" >"$SCRATCH/edges.txt"
for host in $hosts; do
  assert_eq 200 "$(req "/api/jobs/$job/sites/$host/pages")" "GET pages of $host" >/dev/null
  cp "$SCRATCH/body" "$SCRATCH/site.json"
  python3 - "$SCRATCH/site.json" "$SCRATCH/edges.txt" "$p_threshold" "$host" \
    "$(psql_q "select string_agg(url, ' ' order by id) from pages where job_id = $job and host = '$host'")" \
    "$(psql_q "select max_pages_per_site from (select (params->>'max_pages_per_site')::int
       max_pages_per_site from jobs where id = $job) j")" \
    "$(psql_q "select coalesce(link_evidence::text, 'null') from sites where job_id = $job
       and host = '$host'")" <<'PY' || fail "$host: $(cat "$SCRATCH/site.json")"
import json, math, re, sys
d = json.load(open(sys.argv[1]))
thr, host, urls, per_site = float(sys.argv[3]), sys.argv[4], sys.argv[5].split(), int(sys.argv[6])
pages, stop = d["pages"], d["stop"]
assert d["host"] == host and d["state"] == "examined", d
assert d["p_threshold"] == thr, d["p_threshold"]
# In the order read (as stored), numbered from 1.
assert [p["url"] for p in pages] == urls, "order"
assert [p["n"] for p in pages] == list(range(1, len(pages) + 1))
assert pages, "no pages"
# Who judged it (issue 30): the job's crawl model, judging again what was read; the
# posterior after the last page is the examination's confidence, the website's only
# when the examination gave the verdict.
assert all(p["posterior"] is not None and 0 <= p["posterior"] <= 1 for p in pages)
judged, examined = d["judged"], pages[-1]["posterior"]
assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", judged["at"]), judged
if judged["by"] == "examination":
    assert judged["model_id"] is None and judged["model"] is None, judged
    assert abs(examined - d["confidence"]) <= 1e-9, (pages[-1], d["confidence"])
    assert d["crawl_model"] is None and all(p["model_pr"] is None for p in pages), d
else:
    assert judged["by"] == "crawl_model" and judged["model_id"] > 0, judged
    m = judged["model"]
    assert m["pages"] > 0 and m["terms"] > 0 and 0 < m["target_prior"] < 1, m
    assert m["fits"] == (4 if m["spies"] else 1), m  # with spies, a bag of theirs and its own
    assert judged["at"] >= m["created_at"], (judged["at"], m["created_at"])
    # The model's view of each page: its Pr[target | page] and weight; their weighted
    # mean is the website's score, which with the threshold gives the verdict's
    # confidence (the stored model's floats: equal to 1e-3).
    cm = d["crawl_model"]
    assert cm["model_id"] == judged["model_id"] and cm["threshold"] == m["threshold"], cm
    counted = [p for p in pages if p["model_pr"] is not None]
    assert counted and all(0 <= p["model_pr"] <= 1 and p["model_weight"] > 0 for p in counted), pages
    assert all(p["model_weight"] is None for p in pages if p["model_pr"] is None), pages
    score = sum(p["model_pr"] * p["model_weight"] for p in counted) / sum(p["model_weight"] for p in counted)
    assert abs(score - cm["score"]) <= 1e-9, (score, cm)
    # The text's evidence is logit(score) - logit(threshold); the links' is the
    # judging's (judged.links); the verdict is their sum's sign. A model's "relevant" over
    # an examination's "not relevant", or for a website more like one the user rejected
    # (judged.like_rejected), is vetoed: not relevant, at confidence 0.5 (docs/classifier.md).
    logit = lambda x: math.log(min(max(x, 1e-9), 1 - 1e-9) / (1 - min(max(x, 1e-9), 1 - 1e-9)))
    text = logit(cm["score"]) - logit(cm["threshold"])  # both clamped as the code does
    assert abs(text - cm["text_evidence"]) <= 1e-6, (text, cm)
    links, stored = judged["links"], None if sys.argv[7] == "null" else float(sys.argv[7])
    assert (links is None) == (stored is None) == (cm["link_evidence"] is None), (links, stored, cm)
    if links is not None:  # the judging's, as stored
        assert abs(links["evidence"] - stored) <= 1e-9 and cm["link_evidence"] == links["evidence"], (links, stored, cm)
        assert 0 <= links["relevant"] <= links["count"], links
        assert links["count"] > 0 or links["evidence"] == 0, links
    both = text + (cm["link_evidence"] or 0)
    assert cm["vetoed"] == (both > 0 and (d["examined_relevant"] is False
                                          or judged["like_rejected"] is not None)), cm
    if cm["vetoed"]:
        assert d["relevant"] is False and d["confidence"] == 0.5, d
    else:
        assert abs(cm["confidence"] - d["confidence"]) <= 1e-3, (cm, d["confidence"])
        if abs(cm["confidence"] - 0.5) > 1e-3:
            assert (both > 0) == d["relevant"], (cm, d["relevant"])
assert d["prior"] is not None and 0 < d["prior"] < 1
# An unclassified page leaves the posterior; so does every page after the verdict.
prev, classified = d["prior"], 0
for p in pages:
    if p["confidence"] is None:
        assert p["posterior"] == prev, p
    else:
        classified += 1
        if classified > stop["pages_to_decide"]:
            assert p["posterior"] == prev, ("after the verdict", p)
    prev = p["posterior"]
# Why it stopped, consistent with what it shows.
top = max(examined, 1 - examined)
assert stop["verdict_by"] in ("threshold", "decide_limit", "undecided"), stop
assert (stop["verdict_by"] == "threshold") == (top >= thr), (stop, top, thr)
assert stop["reason"] in ("verdict", "linkrank", "max_pages_per_site", "no_more_pages",
                          "job_max_pages", "job_stopped"), stop
if stop["reason"] in ("verdict", "linkrank"):
    assert stop["verdict_by"] != "undecided", stop
if stop["reason"] == "max_pages_per_site":
    assert d["pages_visited"] == per_site, (d["pages_visited"], per_site)
else:
    assert d["pages_visited"] <= per_site
if stop["verdict_by"] == "undecided":
    assert stop["reason"] in ("max_pages_per_site", "no_more_pages"), stop
# The links that brought the crawl here: the edges table's, with their weights.
want = sorted(l.split("|")[1:] for l in open(sys.argv[2]).read().split("\n") if l.split("|")[0] == host)
got = sorted([e["host"], repr(e["conf_sum"]), str(e["page_count"]), repr(e["weight"])]
             for e in d["edges_in"])
norm = lambda rows: sorted((r[0], float(r[1]), int(r[2]), float(r[3])) for r in rows)
assert norm(got) == norm(want), (got, want)
assert all(e["weight"] is not None for e in d["edges_in"])
print(stop["reason"], stop["verdict_by"], judged["by"], judged["model_id"])
PY
done >"$SCRATCH/reasons.txt"
ok "$n_hosts websites: pages in order, the last posterior the examination's confidence, a stop reason consistent with the site, in-edges as stored, the crawl model's view of each page giving its verdict"
echo "stop reasons: $(cut -d' ' -f1-2 "$SCRATCH/reasons.txt" | sort | uniq -c | tr -s ' \n' ' ')"
# The crawl model's verdicts weigh their links (classifier/linkjudge.h): some websites have
# links' evidence, each counting no more links than it has to or from examined websites.
linked=$(psql_q "select count(*) filter (where s.link_count > 0),
  count(*) filter (where s.link_count > (select count(*) from edges e join sites o
    on o.job_id = e.job_id and o.state = 'examined' and o.host = case when e.src_host = s.host
    then e.dst_host else e.src_host end where e.job_id = s.job_id and e.src_host <> e.dst_host
    and s.host in (e.src_host, e.dst_host)))
  from sites s where s.job_id = $job and s.link_evidence is not null")
[[ ${linked%|*} -ge 1 && ${linked#*|} == 0 ]] || fail "links' evidence (with links, over-counted): $linked"
ok "${linked%|*} verdicts weigh their links' evidence, none counts more links than it has"
# The view gives the relevant websites' link evidence as stored.
view=$(psql_q "select count(*), count(*) filter (where w.link_evidence is not distinct from
  s.link_evidence) from relevant_websites w join sites s using (job_id, host)
  where w.job_id = $job and w.link_evidence is not null")
[[ ${view%|*} -ge 1 && ${view%|*} == "${view#*|}" ]] || fail "relevant_websites.link_evidence: $view"
ok "relevant_websites gives the link evidence of ${view%|*} verdicts"
# The job (judge=crawl_model, judge_pages=200) judged every website again at 200 pages and
# at the crawl's end (300): each verdict is the job's last crawl model's, as the job says.
assert_eq 200 "$(req "/api/jobs/$job")" "GET the job" >/dev/null
model=$(field "d['judge']['last']['model_id']")
assert_eq "crawl_model 2 True" "$(field "d['judge']['mode'], d['judge']['models'],
  d['judge']['last']['pages'] > 0 and 0 < d['judge']['last']['target_prior'] < 1" | tr -d "(),'")" \
  "the job: judge mode crawl_model, two crawl models (200 pages, the end), the last one's figures"
assert_eq "$n_hosts crawl_model $model" "$(cut -d' ' -f3-4 "$SCRATCH/reasons.txt" | sort | uniq -c | tr -s ' ' | sed 's/^ //')" \
  "every website's verdict explained as the crawl model #$model's (judged.by, judged.model_id)"
assert_eq 200 "$(req "/api/jobs/$job/sites?limit=1000")" "GET sites" >/dev/null
assert_eq "crawl_model $n_hosts" "$(field "' '.join(sorted(set(x['judged_by'] for x in d['sites']))), len(d['sites'])" | tr -d "(),'")" \
  "... and in the sites list (judged_by)"
assert_eq 200 "$(req "/api/jobs/$job/sites/$(echo "$hosts" | head -1)")" "GET one site" >/dev/null
assert_eq "crawl_model $model" "$(field "d['judged']['by'], d['judged']['model_id']" | tr -d "(),'")" \
  "... and in one site's answer"
# The exports say it too: judged_by, judged_at (as the API's judged.at), the same in both.
assert_eq 200 "$(req "/api/jobs/$job/sites.csv")" "GET sites.csv" >/dev/null
python3 - "$SCRATCH/body" "$model" "$n_hosts" "$(psql_q "select string_agg(host || '=' ||
  to_char(judged_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), ' ') from sites
  where job_id = $job and model_id = $model")" <<'PY' || fail "sites.csv: $(head -3 "$SCRATCH/body")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert list(rows[0])[-2:] == ["judged_by", "judged_at"], list(rows[0])
want = dict(kv.split("=", 1) for kv in sys.argv[4].split())
assert len(rows) == int(sys.argv[3]) == len(want), (len(rows), sys.argv[3], len(want))
assert all(r["judged_by"] == "crawl_model" and r["judged_at"] == want[r["host"]] for r in rows), rows[0]
PY
assert_eq 200 "$(req "/api/jobs/$job/sites.ndjson")" "GET sites.ndjson" >/dev/null
assert_eq "crawl_model $n_hosts" "$(python3 -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]
print(' '.join(sorted(set(x['judged_by'] for x in r))), sum(bool(x['judged_at']) for x in r))" "$SCRATCH/body")" \
  "sites.ndjson: judged_by and judged_at on every line"
ok "the exports have judged_by and judged_at"
grep -Eq '^(verdict|linkrank) threshold' "$SCRATCH/reasons.txt" || fail "no website stopped by its verdict"
ok "some websites stopped once their verdict reached p_threshold"
# A discovered site reached by links has in-edges (a start site may not).
dhost=$(psql_q "select s.host from sites s where s.job_id = $job and s.state = 'examined'
  and s.role = 'discovered' and exists (select 1 from edges e where e.job_id = $job
  and e.dst_host = s.host) order by s.host limit 1")
req "/api/jobs/$job/sites/$dhost/pages" >/dev/null
[[ $(field "len(d['edges_in'])") -ge 1 ]] || fail "$dhost: no in-edges: $(cat "$SCRATCH/body")"
ok "a discovered website shows the links that brought the crawl there"
# The weight is the job's mode (combined): the average of the source's confidence and
# the linking pages' mean Pr[page | target].
assert_eq True "$(field "all(abs(e['weight'] - (e['source_confidence'] + e['conf_sum'] / e['page_count']) / 2) < 1e-9
  for e in d['edges_in'] if e['source_confidence'] is not None)")" "in-edge weights are the combined weights"

# --- a training website: no reading to explain, but its label and its pages (issue 28)
for role in train train_other; do
  thost=$(psql_q "select host from sites where job_id = $job and role = '$role' and state = 'examined'
    and exists (select 1 from pages g where g.job_id = $job and g.host = sites.host and g.pr_target is not null)
    order by host limit 1")
  assert_eq 200 "$(req "/api/jobs/$job/sites/$thost/pages")" "GET pages of the $role website $thost" >/dev/null
  want=$(psql_q "select count(pr_target) || ' ' || round(avg(pr_target)::numeric, 9) from pages
    where job_id = $job and host = '$thost'")
  label=$([[ $role == train ]] && echo "relevant relevant_sites" || echo "other other_sites")
  assert_eq "$label $want" "$(field "d['training']['label'], d['training']['from'],
    d['training']['pages_classified'], round(d['training']['mean_page_confidence'], 9)" | tr -d "(),'")" \
    "... a training example: its label, the list it came from, its pages' Pr[page | target]"
  assert_eq True "$(field "len(d['pages']) > 0 and any(p['confidence'] is not None for p in d['pages'])")" \
    "... with its pages and their confidences"
done
req "/api/jobs/$job/sites/$dhost/pages" >/dev/null
assert_eq None "$(field "d['training']")" "a crawled website is no training example (training: null)"

# --- the border, best rank first
border_n=$(psql_q "select count(*) from sites where job_id = $job and state = 'border'")
[[ $border_n -ge 2 ]] || fail "the border is only $border_n websites"
assert_eq 200 "$(req "/api/jobs/$job/border?limit=1000")" "GET border"
assert_eq "$border_n" "$(field "d['total']")" "total is the border's size"
assert_eq "$((border_n < 1000 ? border_n : 1000))" "$(field "len(d['border'])")" "limit=1000 lists them all"
assert_eq True "$(field "all(d['border'][i]['rank'] >= d['border'][i+1]['rank'] for i in range(len(d['border'])-1))")" \
  "the border is sorted by rank, best first"
assert_eq True "$(field "all(set(b) >= {'host','homepage','rank','in_sites','discovered_at'} for b in d['border'])")" \
  "each candidate has host, homepage, rank, in_sites, discovered_at"
assert_eq "$(psql_q "select host from sites where job_id = $job and state = 'border'
  order by rank desc, discovered_at, host limit 1")" "$(field "d['border'][0]['host']")" \
  "the first candidate is the one the crawl would claim next"
assert_eq 200 "$(req "/api/jobs/$job/border")" "GET border (default limit)"
assert_eq "$((border_n < 50 ? border_n : 50))" "$(field "len(d['border'])")" "the default limit is 50"
req "/api/jobs/$job/border?limit=3" >/dev/null
assert_eq 3 "$(field "len(d['border'])")" "limit=3"
assert_eq False "$(field "d.get('total_capped')")" "a border under 10,000 is not capped"
assert_eq 400 "$(req "/api/jobs/$job/border?limit=1001")" "limit over 1000 is 400"
assert_eq 400 "$(req "/api/jobs/$job/border?order=rank")" "an unknown argument is 400"

# --- a border of more than 10,000 websites is counted up to 10,000 (a full count took a
# second at a million): total and the job's border_sites read 10000, flagged as capped.
big=$(psql_q "insert into jobs (topic, body, params, state) values ('big border', '{}', '{}', 'done')
  returning id" | head -1)
psql_q "insert into sites (job_id, host, homepage, rank)
  select $big, 'h' || i || '.test', 'http://h' || i || '.test/', random()
  from generate_series(1, 10005) i" >/dev/null
assert_eq 200 "$(req "/api/jobs/$big/border?limit=5")" "GET border of a border of 10,005"
assert_eq "10000 True 5" "$(field "d['total'], d['total_capped'], len(d['border'])" | tr -d '(),')" \
  "... total reads 10000, capped"
assert_eq 200 "$(req "/api/jobs/$big")" "GET the job"
assert_eq "10000 True" "$(field "d['border_sites'], d['border_sites_capped']" | tr -d '(),')" \
  "... its border_sites read 10000, capped"
psql_q "delete from sites where job_id = $big and host <> 'h1.test'" >/dev/null
sleep 0.3 # the answer cache holds a job's answers for 250 ms
assert_eq 200 "$(req "/api/jobs/$big/border")" "GET border again"
assert_eq "1 False" "$(field "d['total'], d['total_capped']" | tr -d '(),')" "... one left: 1, not capped"

# --- a job run as the paper did (judge=examination): the page classifier's verdicts stand
python3 - "$SCRATCH/job.json" <<'PY' >"$SCRATCH/exam.json"
import json, sys
d = json.load(open(sys.argv[1]))
d["params"].update(max_pages=100, judge="examination")
print(json.dumps(d))
PY
curl -s -o "$SCRATCH/body" -H 'Content-Type: application/json' --data-binary "@$SCRATCH/exam.json" \
  "$API/api/jobs" >/dev/null
exam=$(field "d['id']")
for _ in $(seq 1200); do
  req "/api/jobs/$exam" >/dev/null
  [[ $(field "d['state']") == done || $(field "d['state']") == failed ]] && break
  sleep 0.1
done
assert_eq "done examination 0 None" "$(field "d['state'], d['judge']['mode'], d['judge']['models'], d['judge']['last']" | tr -d "(),'")" \
  "a judge=examination job: mode examination, no crawl model"
ehost=$(psql_q "select host from sites where job_id = $exam and state = 'examined'
  and role not like 'train%' order by host limit 1")
req "/api/jobs/$exam/sites/$ehost/pages" >/dev/null
assert_eq "examination None None $(psql_q "select to_char(examined_at at time zone 'UTC',
  'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') from sites where job_id = $exam and host = '$ehost'") True" \
  "$(field "d['judged']['by'], d['judged']['model_id'], d['judged']['model'], d['judged']['at'],
  abs(d['pages'][-1]['posterior'] - d['confidence']) < 1e-9" | tr -d "(),'")" \
  "... its website $ehost was judged by the examination when examined, its last posterior the confidence"
req "/api/jobs/$exam/sites?limit=1000" >/dev/null
assert_eq examination "$(field "' '.join(sorted(set(x['judged_by'] for x in d['sites'])))")" \
  "... as every website in its sites list"
req "/api/jobs/$exam/sites.ndjson" >/dev/null
assert_eq "examination True" "$(python3 -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]
print(' '.join(sorted(set(x['judged_by'] for x in r))), all(x['judged_at'] == x['examined_at'] for x in r))" "$SCRATCH/body")" \
  "... and in its export, judged when examined"
req "/api/jobs/$job/sites/$thost/pages" >/dev/null
assert_eq None "$(field "d['judged']")" "a training website has no crawl verdict (judged: null)"

# --- unknowns are 404, as JSON
assert_eq 404 "$(req "/api/jobs/999999/sites/x.test/pages")" "pages of an unknown job is 404"
assert_eq not_found "$(field "d['error']['code']")" "... with a JSON error"
assert_eq 404 "$(req "/api/jobs/$job/sites/no.such.host/pages")" "pages of an unknown host is 404"
assert_eq 404 "$(req "/api/jobs/999999/border")" "border of an unknown job is 404"
assert_eq 404 "$(req "/api/jobs/abc/border")" "border of a malformed job id is 404"

# --- a job crawled before migration 006 (its new columns NULL) still answers
host=$(echo "$hosts" | head -1)
psql_q "update pages set posterior = null where job_id = $job and host = '$host';
  update sites set prior = null, verdict_by = null, read_stop = null where job_id = $job and host = '$host';
  update edges set weight = null where job_id = $job and dst_host = '$host'" >/dev/null
assert_eq 200 "$(req "/api/jobs/$job/sites/$host/pages")" "an old site's pages still answer"
assert_eq True "$(field "all(p['posterior'] is None for p in d['pages']) and d['stop']['reason'] is None
  and d['prior'] is None and all(e['weight'] is None for e in d['edges_in'])")" "... with nulls"

# A website that could not be read says so.
failed=$(psql_q "select host from sites where job_id = $job and state = 'failed' limit 1")
if [[ -n $failed ]]; then
  req "/api/jobs/$job/sites/$failed/pages" >/dev/null
  assert_eq unread "$(field "d['stop']['reason']")" "a website none of whose pages could be read: unread"
fi

# --- verdicts given as websites were read, by the crawl's last model (looked at while
# the second job crawls: a pause or the end judges every website again): each page's view
# by that model, the pages read deeper after the verdict left out
JOB_PARAMS='{"judge_pages": 200}' job_body 50 4 "$SCRATCH/job2.json" 700
curl -s -o "$SCRATCH/body" -H 'Content-Type: application/json' --data-binary "@$SCRATCH/job2.json" \
  "$API/api/jobs" >/dev/null
run=$(field "d['id']")
as_read="job_id = $run and state = 'examined' and role = 'discovered' and model_id is not null
  and judged_at = examined_at"
declare -A seen=()
n_read=0
for _ in $(seq 1200); do
  for host in $(psql_q "select host from sites where $as_read order by host"); do
    [[ -v seen[$host] ]] && continue
    before=$(psql_q "select count(*) from pages p join sites s on s.job_id = p.job_id
      and s.host = p.host where s.job_id = $run and s.host = '$host' and p.terms is not null
      and p.fetched_at <= s.judged_at")
    assert_eq 200 "$(req "/api/jobs/$run/sites/$host/pages")" "GET pages of $host" >/dev/null
    # Judged again meanwhile (the next judging): not a verdict as read any more.
    [[ $(psql_q "select count(*) from sites where $as_read and host = '$host'") == 1 ]] || continue
    seen[$host]=1
    python3 - "$SCRATCH/body" "$before" <<'PY' || fail "$host: $(cat "$SCRATCH/body")"
import json, sys
d = json.load(open(sys.argv[1]))
cm, pages = d["crawl_model"], d["pages"]
assert d["judged"]["by"] == "crawl_model" and cm["model_id"] == d["judged"]["model_id"], d["judged"]
counted = [p for p in pages if p["model_pr"] is not None]
assert 0 < len(counted) <= int(sys.argv[2]), (len(counted), sys.argv[2])
assert abs(cm["confidence"] - d["confidence"]) <= 1e-3 or cm["vetoed"], (cm, d["confidence"])
# A verdict given as the website was read has no links' evidence (the next judging's).
assert cm["link_evidence"] is None and d["judged"]["links"] is None, (cm, d["judged"])
assert d["judged"]["like_rejected"] is None, d["judged"]  # no judging yet, no label
assert cm["vetoed"] == (cm["score"] > cm["threshold"] and d["examined_relevant"] is False), cm
if cm["vetoed"]:
    assert d["relevant"] is False and d["confidence"] == 0.5, d
PY
    n_read=$((n_read + 1))
  done
  ((n_read >= 5)) && break
  req "/api/jobs/$run" >/dev/null
  [[ $(field "d['state']") == done || $(field "d['state']") == failed ]] && break
  sleep 0.1
done
((n_read >= 1)) || fail "no verdict given as read seen while the second job crawled"
ok "$n_read verdicts given as the websites were read, each explained by the model that gave it, its pages read deeper since left out"
curl -s -o /dev/null -X POST "$API/api/jobs/$run/stop"
for _ in $(seq 600); do
  req "/api/jobs/$run" >/dev/null
  [[ $(field "d['state']") == done ]] && break
  sleep 0.1
done
assert_eq done "$(field "d['state']")" "the second job stops"

# --- a crawl model that cannot be read (one stored before models kept their bytes): the
# verdict still explained, without the model's view. (A fresh server: the running one
# keeps the last models it read, and a stored model never changes.)
psql_q "update models set data = '' where job_id = $job and kind = 'crawl'" >/dev/null
kill "$SERVE_PID" && wait "$SERVE_PID" 2>/dev/null
start_serve "$SCRATCH/serve2.out" --workers 1
assert_eq 200 "$(req "/api/jobs/$job/sites/$(echo "$hosts" | tail -1)/pages")" \
  "a verdict whose model cannot be read still answers"
assert_eq "crawl_model None True" "$(field "d['judged']['by'], d['crawl_model'],
  all(p['model_pr'] is None and p['model_weight'] is None for p in d['pages'])" | tr -d "(),'")" \
  "... without the model's view"
