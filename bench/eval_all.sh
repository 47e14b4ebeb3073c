#!/usr/bin/env bash
# `sitescout eval --all-topics` over every topic of a jobs file (issue 14's protocol: how
# one configuration does on topics it was not chosen on), through one replay of the web.
# Prints the table and keeps it in OUTDIR/LABEL.txt, the report in OUTDIR/LABEL.json
# (bench/alltopics.py sets several LABELs side by side). About 6 s a topic.
#
# Usage: bench/eval_all.sh LABEL OUTDIR [eval options, e.g. --min-relevant 25
#                                        --set calibration=none --mode heldout]
#   env: JOBS (default ../shared/webs/dev-alltopics.jobs.json), LABELS (its sites.tsv),
#        WARC (../shared/webs/dev.warc.gz), SITESCOUT_BIN (build/sitescout)
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
