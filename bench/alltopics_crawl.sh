#!/usr/bin/env bash
# Crawl verdicts over many topics (issue 30): for every topic of a jobs file, a crawl job
# through one replay of the web, scored against the labels; prints a Markdown table per
# topic (precision, recall, top 10, pages, retrains) with mean and worst rows, over all
# the topics and over the untuned ones. `--few N` cuts every job to its first N
# relevant_sites and first N other_sites (start sites unchanged): the user's case of a
# handful of examples. The training websites a cut job dropped are then scored as test
# websites (the labels name them training websites of the full job): a relevant one the
# crawl finds is a hit, an other one it calls relevant a false positive.
#
# Usage: bench/alltopics_crawl.sh [--few N] [--topics a,b,...] [--budget PAGES]
#                                 [--feedback top|border|unsure] [--out DIR] [--set key=value ...]
#   default: every topic with at least MIN_SITES (25) websites in the labels, full jobs,
#   3,000 pages, politeness_delay_ms=0 (a --set after it wins).
#   --feedback MODE: a simulated user labels each crawl while it runs (issue 31;
#   bench/feedback_user.py): after 1,000 pages, then every 500, the 10 first unlabelled
#   discovered websites of the relevant list (top), of the border (border) or whose
#   verdicts are least sure, relevant or not (unsure: confidence nearest 1/2), at most 40,
#   from the labels' ground truth, through `sitescout label`. The crawls then run at
#   politeness_delay_ms=200 (a user needs the time; a --set wins); --out keeps each
#   topic's rounds (TOPIC.feedback).
#   --out DIR keeps each topic's `crawl --report` (TOPIC.json), its discovered relevant
#   websites in order (TOPIC.found), the table (table.md), and the jobs and labels the
#   crawls ran and were scored with (jobs.json, labels.tsv).
#   env: JOBS (default ../shared/webs/dev-alltopics.jobs.json), LABELS (its sites.tsv),
#        WARC (../shared/webs/dev.warc.gz), SITESCOUT_BIN (build/sitescout),
#        SITESCOUT_DB (else the embedded cluster), TUNED (the topics the parameters
#        were chosen on, as `eval --all-topics --tuned`: sci.space,rec.motorcycles),
#        MIN_SITES (25)
# Figures: found = the relevant websites discovered (start sites excluded); precision and
# recall are `sitescout crawl --labels`'s (eval/jobscore: those websites against the
# labels' relevant test sites, nothing found scoring 0 in the mean and worst); top 10
# is the share of the first 10 discovered websites of the view relevant_websites (by
# position) whose topic by the labels is the target; pages = pages_downloaded; retrains
# = the report's "retrains" (0 while the crawler has none); judging CPU = the judgings'
# share of the crawl process's CPU (the report's judge_cpu_seconds / cpu_seconds). A crawl that fails, or a
# topic that cannot be run, stops the script with status 1.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${SITESCOUT_BIN:-$top/build/sitescout}
web=${SITESCOUT_SHARED:-$top/../shared}/webs
jobs=${JOBS:-$web/dev-alltopics.jobs.json}
labels=${LABELS:-$web/dev-alltopics.sites.tsv}
warc=${WARC:-$web/dev.warc.gz}
tuned=${TUNED:-sci.space,rec.motorcycles}
min_sites=${MIN_SITES:-25}
usage() {
  echo "usage: bench/alltopics_crawl.sh [--few N] [--topics a,b,...] [--budget PAGES]" \
    "[--feedback top|border|unsure] [--out DIR] [--set key=value ...]" >&2
  exit 2
}
few=0 topics="" budget=3000 out="" feedback="" sets=()
while (($#)); do
  case "$1" in
    --few) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage; few=$2; shift 2 ;;
    --topics) [[ -n ${2:-} ]] || usage; topics=$2; shift 2 ;;
    --budget) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage; budget=$2; shift 2 ;;
    --out) [[ -n ${2:-} ]] || usage; out=$2; shift 2 ;;
    --feedback) [[ ${2:-} =~ ^(top|border|unsure)$ ]] || usage; feedback=$2; shift 2 ;;
    --set) [[ ${2:-} == *=* ]] || usage; sets+=(--set "$2"); shift 2 ;;
    *) usage ;;
  esac
done
[[ -x $bin ]] || { echo "alltopics_crawl: no binary $bin (build it: scripts/setup.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
replay=""
trap '[[ -n $replay ]] && kill $replay 2>/dev/null; rm -rf "$tmp"' EXIT
[[ -z $out ]] || mkdir -p "$out"
keep=${out:-$tmp}

# The topics (in the jobs file's order) and the jobs file to crawl (cut with --few).
python3 - "$jobs" "$labels" "$topics" "$min_sites" "$few" "$tmp/jobs.json" "$tmp/topics" \
  "$tmp/labels.tsv" <<'PY'
import collections, json, sys
from urllib.parse import urlsplit
jobs_path, labels_path, wanted, min_sites, few, out_jobs, out_topics, out_labels = sys.argv[1:]
jobs = json.load(open(jobs_path))
sites = collections.Counter()
with open(labels_path) as f:
    next(f)
    for line in f:
        cols = line.rstrip("\n").split("\t")
        if len(cols) > 1:
            sites[cols[1]] += 1
if wanted:
    topics = wanted.split(",")
    unknown = [t for t in topics if t not in jobs]
    if unknown:
        sys.exit("alltopics_crawl: no job for topic(s) %s in %s" % (",".join(unknown), jobs_path))
else:
    topics = [t for t in jobs if sites[t] >= int(min_sites)]
    if not topics:
        sys.exit("alltopics_crawl: no topic with %s websites in %s" % (min_sites, labels_path))
few = int(few)
# The labels give each website a role per topic: a training website of the full job is
# not scored. A cut job was not given the training websites it dropped: for it they are
# websites to find (relevant ones) or to reject (other ones), so they are scored as test
# websites, by their topic.
given = {}
if few:
    for t in topics:
        jobs[t]["relevant_sites"] = jobs[t]["relevant_sites"][:few]
        jobs[t]["other_sites"] = jobs[t]["other_sites"][:few]
        given[t] = {urlsplit(u).netloc.lower() for k in ("relevant_sites", "other_sites", "start_sites")
                    for u in jobs[t].get(k, [])}
with open(labels_path) as f, open(out_labels, "w") as out:
    out.write(next(f))
    for line in f:
        cols = line.rstrip("\n").split("\t")
        if few and len(cols) > 5:
            roles = []
            for r in cols[5].split(";"):
                t, _, role = r.partition(":")
                if t in given and role in ("train", "train-other") and cols[0] not in given[t]:
                    role = "test"
                roles.append(t + ":" + role if _ else r)
            cols[5] = ";".join(roles)
        out.write("\t".join(cols) + "\n")
json.dump({t: jobs[t] for t in topics}, open(out_jobs, "w"))
open(out_topics, "w").write("\n".join(topics) + "\n")
PY

[[ -z $out ]] || cp "$tmp/jobs.json" "$tmp/labels.tsv" "$out/" # what was crawled and scored
"$bin" replay --warc "$warc" --listen 127.0.0.1:0 >"$tmp/replay" 2>&1 &
replay=$!
for _ in $(seq 300); do grep -q '^listening' "$tmp/replay" && break; sleep 0.1; done
grep -q '^listening' "$tmp/replay" || { echo "alltopics_crawl: the replay did not start:" >&2; cat "$tmp/replay" >&2; exit 1; }
proxy="http://$(sed -n 's/^listening on //p' "$tmp/replay")"
[[ -n ${SITESCOUT_DB:-} ]] || "$bin" db start >/dev/null

start=$SECONDS
n=$(wc -l <"$tmp/topics")
i=0
while read -r t; do
  i=$((i + 1))
  t0=$SECONDS
  polite=0
  [[ -z $feedback ]] || polite=200
  before=$("$bin" db psql -X -q -At -c "SELECT coalesce(max(id), 0) FROM jobs")
  "$bin" crawl --job "$tmp/jobs.json" --topic "$t" --proxy "$proxy" --labels "$tmp/labels.tsv" \
    --report "$keep/$t.json" --set politeness_delay_ms=$polite --set max_pages="$budget" \
    "${sets[@]}" >"$tmp/out" 2>"$tmp/err" </dev/null &
  crawl=$!
  if [[ -n $feedback ]]; then # the user, once the job exists (this bench's: its replay's proxy)
    run=""
    for _ in $(seq 600); do
      run=$("$bin" db psql -X -q -At -c "SELECT min(id) FROM jobs WHERE id > $before
        AND proxy = '$proxy'")
      [[ -n $run ]] && break
      sleep 0.1
    done
    [[ -n $run ]] || { echo "alltopics_crawl: no job for $t" >&2; exit 1; }
    : >"$keep/$t.feedback"
    python3 "$top/bench/feedback_user.py" "$bin" "${SITESCOUT_DB:-$("$bin" db url)}" "$run" \
      "$crawl" "$tmp/labels.tsv" "$t" "$feedback" "$keep/$t.feedback" &
    user=$!
  fi
  if ! wait $crawl; then
    echo "alltopics_crawl: the crawl of $t FAILED:" >&2
    cat "$tmp/out" "$tmp/err" >&2
    exit 1
  fi
  job=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(int(r["job_id"])) if r["pages_downloaded"] > 0 else sys.exit("no page downloaded")' "$keep/$t.json") ||
    { echo "alltopics_crawl: the crawl of $t downloaded nothing:" >&2; cat "$tmp/out" "$tmp/err" >&2; exit 1; }
  # The discovered relevant websites in the order the user sees them (psql's variable,
  # not text): the first 10 are the top 10, all of them precision's denominator.
  "$bin" db psql -X -q -At -v ON_ERROR_STOP=1 -v job="$job" >"$keep/$t.found" <<'SQL' ||
SELECT host FROM relevant_websites
WHERE job_id = :'job' AND role = 'discovered' ORDER BY position;
SQL
    { echo "alltopics_crawl: cannot read the relevant websites of job $job ($t)" >&2; exit 1; }
  if [[ -n $feedback ]]; then
    wait $user || { echo "alltopics_crawl: the simulated user failed on $t" >&2; exit 1; }
  fi
  echo "[$i/$n] $t: job $job, $((SECONDS - t0)) s" >&2
done <"$tmp/topics"

commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$top" diff --quiet HEAD 2>/dev/null || commit="$commit+changes"
python3 - "$keep" "$tmp/topics" "$labels" "$tuned" "$few" "$budget" "$((SECONDS - start))" \
  "${sets[*]:-}" "$commit" "$polite" "$feedback" <<'PY' | tee "$tmp/table.md"
import json, os, sys
keep, topics_path, labels_path, tuned, few, budget, seconds, sets, commit, polite, feedback = \
    sys.argv[1:]
topics = open(topics_path).read().split()
tuned = set(tuned.split(","))
topic_of = {}
with open(labels_path) as f:
    next(f)
    for line in f:
        cols = line.rstrip("\n").split("\t")
        if len(cols) > 1:
            topic_of[cols[0]] = cols[1]
rows = []
for t in topics:
    r = json.load(open(os.path.join(keep, t + ".json")))
    found = open(os.path.join(keep, t + ".found")).read().split()
    hosts = found[:10]
    hits = sum(topic_of.get(h) == t for h in hosts)
    rows.append({"topic": t, "tuned": t in tuned, "found": len(found),
                 "precision": r["precision"], "recall": r["recall"],
                 "top10": hits / len(hosts) if hosts else None, "top10_n": len(hosts),
                 "pages": r["pages_downloaded"], "retrains": r.get("retrains", 0),
                 "seconds": r["seconds"],
                 # the judgings' share of the crawl process's CPU (None: not reported)
                 "judge_cpu": r["judge_cpu_seconds"] / r["cpu_seconds"]
                 if r.get("cpu_seconds") else None})
f = lambda v: "-" if v is None else "%.3f" % v
mode = "few-shot: first %s relevant and %s other example websites" % (few, few) if int(few) \
    else "full jobs"
if feedback:
    mode += ", a simulated user labelling the %s" % (
        {"top": "relevant list's first websites", "border": "border's first websites",
         "unsure": "least sure verdicts"}[feedback])
print("%d topics, %s, %s pages, politeness %s%s; %s s in all; source tree %s\n" % (
    len(rows), mode, budget, polite, (", " + sets) if sets else "", seconds, commit))
print("| topic | found | precision | recall | top 10 | pages | retrains | judging CPU |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    t10 = f(r["top10"]) + ("" if r["top10_n"] in (0, 10) else " (of %d)" % r["top10_n"])
    print("| %s%s | %d | %s | %s | %s | %d | %d | %s |" % (
        r["topic"], " (tuned)" if r["tuned"] else "", r["found"], f(r["precision"]),
        f(r["recall"]), t10, r["pages"], r["retrains"], f(r["judge_cpu"])))
z = lambda v: 0.0 if v is None else v  # nothing found scores 0, as in docs/eval.md
for name, part in (("all", rows), ("untuned", [r for r in rows if not r["tuned"]])):
    if not part:
        continue
    mean = lambda k: sum(z(r[k]) for r in part) / len(part)
    worst = lambda k: min(part, key=lambda r: z(r[k]))
    print("| **mean, %s %d** | %.1f | %.3f | %.3f | %.3f | %.0f | %.1f | %.3f |" % (
        name, len(part), mean("found"), mean("precision"), mean("recall"), mean("top10"),
        mean("pages"), mean("retrains"), mean("judge_cpu")))
    cells = ["%.3f (%s)" % (z(worst(k)[k]), worst(k)["topic"]) for k in ("precision", "recall", "top10")]
    print("| **worst, %s %d** | %d | %s | %d | %d | %.3f |" % (
        name, len(part), min(r["found"] for r in part), " | ".join(cells),
        min(r["pages"] for r in part), max(r["retrains"] for r in part),
        max(z(r["judge_cpu"]) for r in part)))
PY
[[ -z $out ]] || cp "$tmp/table.md" "$out/table.md"
