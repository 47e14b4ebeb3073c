#!/usr/bin/env bash
# `sitescout eval --all-topics` over every topic of a jobs file (issue 14's protocol: how
# one configuration does on topics it was not chosen on), through one replay of the web.
# Prints the table and keeps it in OUTDIR/LABEL.txt, the report in OUTDIR/LABEL.json
# (bench/alltopics.py sets several LABELs side by side). About 6 s a topic.
#
# Usage: bench/eval_all.sh LABEL OUTDIR [eval options, e.g. --min-relevant 25
#                                        --set calibration=none --mode heldout]
#   env: JOBS (default ../shared/webs/dev-alltopics.jobs.json), LABELS (its sites.tsv),
#        WARC (../shared/webs/dev.warc.gz), SITESCOUT_BIN (build/sitescout),
#        MIN_SITES=N: only the topics with at least N websites in the labels (issue 30's
#        topics: 25, as bench/alltopics_crawl.sh), FEW=N: every job cut to its first N
#        relevant_sites and N other_sites, the training websites it dropped scored as test
#        websites (as bench/alltopics_crawl.sh --few; with --mode heldout)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${SITESCOUT_BIN:-$top/build/sitescout}
web=${SITESCOUT_SHARED:-$top/../shared}/webs
jobs=${JOBS:-$web/dev-alltopics.jobs.json}
labels=${LABELS:-$web/dev-alltopics.sites.tsv}
warc=${WARC:-$web/dev.warc.gz}
[[ $# -ge 2 ]] || { echo "usage: bench/eval_all.sh LABEL OUTDIR [eval options]" >&2; exit 2; }
label=$1 out=$2
shift 2
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'kill $replay 2>/dev/null; rm -rf "$tmp"' EXIT
if [[ -n ${MIN_SITES:-}${FEW:-} ]]; then
  python3 - "$jobs" "$labels" "${MIN_SITES:-0}" "${FEW:-0}" "$tmp/jobs.json" "$tmp/labels.tsv" <<'PY'
import collections, json, sys
from urllib.parse import urlsplit
jobs_path, labels_path, min_sites, few, out_jobs, out_labels = sys.argv[1:]
jobs, few = json.load(open(jobs_path)), int(few)
sites = collections.Counter()
with open(labels_path) as f:
    next(f)
    for line in f:
        cols = line.rstrip("\n").split("\t")
        if len(cols) > 1:
            sites[cols[1]] += 1
jobs = {t: j for t, j in jobs.items() if sites[t] >= int(min_sites)}
given = {}
for t, j in jobs.items():
    if few:
        j["relevant_sites"], j["other_sites"] = j["relevant_sites"][:few], j["other_sites"][:few]
        given[t] = {urlsplit(u).netloc.lower() for k in ("relevant_sites", "other_sites", "start_sites")
                    for u in j.get(k, [])}
# A cut job's dropped training websites are websites to find or reject: test websites.
with open(labels_path) as f, open(out_labels, "w") as out:
    out.write(next(f))
    for line in f:
        cols = line.rstrip("\n").split("\t")
        if few and len(cols) > 5:
            roles = []
            for r in cols[5].split(";"):
                t, sep, role = r.partition(":")
                if t in given and role in ("train", "train-other") and cols[0] not in given[t]:
                    role = "test"
                roles.append(t + ":" + role if sep else r)
            cols[5] = ";".join(roles)
        out.write("\t".join(cols) + "\n")
json.dump(jobs, open(out_jobs, "w"))
PY
  jobs=$tmp/jobs.json labels=$tmp/labels.tsv
fi
"$bin" replay --warc "$warc" --listen 127.0.0.1:0 >"$tmp/replay" 2>&1 &
replay=$!
for _ in $(seq 300); do grep -q '^listening' "$tmp/replay" && break; sleep 0.1; done
proxy="http://$(sed -n 's/^listening on //p' "$tmp/replay")"
# A failed topic is in its row and makes the status 1: the table is still worth keeping.
rc=0
"$bin" eval --all-topics --job "$jobs" --labels "$labels" --proxy "$proxy" \
  --set politeness_delay_ms=0 --report "$out/$label.json" "$@" >"$out/$label.txt" || rc=$?
cat "$out/$label.txt"
exit $rc
