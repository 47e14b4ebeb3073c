#!/usr/bin/env bash
# `sitescout eval --mode cv` over every topic of a jobs file (issue 14's protocol: how
# one configuration does on topics it was not chosen on), then the table of
# bench/alltopics.py. About 6 s a topic.
#
# Usage: bench/eval_all.sh LABEL OUTDIR [extra eval options, e.g. --set calibration=none]
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
for t in $(python3 -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))))" "$jobs"); do
  "$bin" eval --job "$jobs" --topic "$t" --labels "$labels" --proxy "$proxy" --mode cv \
    --set politeness_delay_ms=0 --report "$out/$label-$t-cv.json" "$@" >/dev/null 2>"$tmp/err" ||
    { echo "eval of $t failed: $(cat "$tmp/err")" >&2; exit 1; }
done
python3 "$top/bench/alltopics.py" "$jobs" "$out" "$label"
