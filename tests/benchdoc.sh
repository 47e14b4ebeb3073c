#!/usr/bin/env bash
# BENCHMARKS.md as a newcomer reads it (issue 32): the current figures on one screen, each
# row with its command, commit, machine and date; the history in docs/benchmarks/, every
# file of it listed; the links of BENCHMARKS.md, README.md and docs/benchmarks/ resolve;
# scripts/bench-summary prints a row's columns and reads an all-topics table.
# Usage: tests/benchdoc.sh (from anywhere; reads the tree it sits in). Exit 0 when kept.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
failed=0
not_ok() {
  echo "not ok - $*"
  failed=1
}

# 1. The table of current figures: at most a screen, seven cells a row, a commit and a date.
rows=$(sed -n '/^## Current figures/,/^## /p' BENCHMARKS.md | grep '^| ' | tail -n +2)
n=$(grep -c . <<<"$rows")
((n >= 10)) || not_ok "BENCHMARKS.md: no table of current figures ('## Current figures', $n rows)"
((n <= 30)) || not_ok "BENCHMARKS.md: $n rows of current figures, more than a screen (30)"
lines=$(wc -l <BENCHMARKS.md)
((lines <= 80)) || not_ok "BENCHMARKS.md: $lines lines; the history belongs in docs/benchmarks/"
trim() {
  local s=$1
  s=${s#"${s%%[![:space:]]*}"}
  echo "${s%"${s##*[![:space:]]}"}"
}
git=0
git rev-parse --git-dir >/dev/null 2>&1 && git=1
while IFS= read -r row; do
  [[ -n $row ]] || continue
  IFS='|' read -r -a cell <<<"${row#|}"
  ((${#cell[@]} == 7)) || {
    not_ok "BENCHMARKS.md: a row without 7 cells (figure, value, command, commit, machine, date, where): $row"
    continue
  }
  fig=$(trim "${cell[0]}") commit=$(trim "${cell[3]}") date=$(trim "${cell[5]}")
  [[ ${cell[2]} == *'`'* ]] || not_ok "BENCHMARKS.md, '$fig': no command"
  [[ $commit =~ ^[0-9a-f]{7,40}$ ]] || not_ok "BENCHMARKS.md, '$fig': commit '$commit'"
  if ((git)) && [[ $commit =~ ^[0-9a-f]{7,40}$ ]] &&
    ! git cat-file -e "$commit^{commit}" 2>/dev/null; then
    not_ok "BENCHMARKS.md, '$fig': commit $commit is not in this repository"
  fi
  [[ -n $(trim "${cell[4]}") ]] || not_ok "BENCHMARKS.md, '$fig': no machine"
  [[ $date =~ ^20[0-9]{2}-[01][0-9]-[0-3][0-9]$ ]] || not_ok "BENCHMARKS.md, '$fig': date '$date'"
done <<<"$rows"

# 2. Every history file is listed in BENCHMARKS.md.
for f in docs/benchmarks/*.md; do
  [[ -e $f ]] || { not_ok "no docs/benchmarks/*.md"; break; }
  grep -q "($f)" BENCHMARKS.md || not_ok "BENCHMARKS.md does not list $f"
done

# 3. Relative links resolve (anchors and absolute URLs aside).
for f in BENCHMARKS.md README.md docs/benchmarks/*.md; do
  [[ -e $f ]] || continue
  while IFS= read -r target; do
    target=${target%%#*}
    [[ -z $target || $target == *://* || $target == mailto:* ]] && continue
    [[ -e $(dirname "$f")/$target ]] || not_ok "$f: link to $target, which does not exist"
  done < <(grep -o '\](\([^)]*\))' "$f" | sed 's/^](\(.*\))$/\1/')
done

# 4. scripts/bench-summary: a new row's columns, the judgement row of an all-topics run, the
#    row of an eval report.
out=$(scripts/bench-summary) || not_ok "scripts/bench-summary failed"
for k in machine commit date; do
  grep -q "^$k: ..*" <<<"$out" || not_ok "scripts/bench-summary printed no $k: $out"
done
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/table.md" <<'EOF'
2 topics, few-shot: first 5 relevant and 5 other example websites, 3000 pages, politeness 0; 9 s in all; source tree abc1234

| topic | found | precision | recall | top 10 | pages | retrains | judging CPU |
|---|---:|---:|---:|---:|---:|---:|---:|
| a | 20 | 1.000 | 0.800 | 1.000 | 3000 | 4 | 0.200 |
| b | 10 | 0.800 | 0.600 | 0.900 | 2990 | 4 | 0.220 |
| **mean, all 2** | 15.0 | 0.900 | 0.700 | 0.950 | 2995 | 4.0 | 0.210 |
| **worst, all 2** | 10 | 0.800 (b) | 0.600 (b) | 0.900 (b) | 2990 | 4 | 0.220 |
EOF
row=$(scripts/bench-summary --alltopics "$tmp") || not_ok "scripts/bench-summary --alltopics failed"
want='| judgement, few-shot (5 + 5), 2 topics | P 0.900 (worst 0.800), R 0.700, top 10 0.950; judging CPU 0.210 | `bench/alltopics_crawl.sh --few 5` | abc1234 | '
[[ $row == "$want"* ]] || not_ok "bench-summary --alltopics printed: $row"
cat >"$tmp/all.json" <<'EOF'
{"summary": {"mode": "cv", "min_relevant": 25, "all": {"topics": 13, "mean_f1": 0.953821,
 "worst_f1": 0.90566, "worst_topic": "t.x", "mean_pages_per_site": 3.5315,
 "mean_homepage_f1": 0.676885}}, "topics": []}
EOF
row=$(scripts/bench-summary --eval "$tmp/all.json") || not_ok "scripts/bench-summary --eval failed"
want='| eval --all-topics, cv, 13 topics | mean website F1 0.954, worst 0.906 (t.x); 3.53 pages a website; mean homepage F1 0.677 | `sitescout eval --all-topics --mode cv --min-relevant 25` | '
[[ $row == "$want"* && $row == *' | |' ]] || not_ok "bench-summary --eval printed: $row"
echo '{"topic": 1}' >"$tmp/bad.json"
if err=$(scripts/bench-summary --eval "$tmp/bad.json" 2>&1); then
  not_ok "bench-summary --eval on a file that is no eval report succeeded"
elif [[ $err != *"not a sitescout eval report"* ]]; then
  not_ok "bench-summary --eval on a file that is no eval report said: $err"
fi
if err=$(scripts/bench-summary --alltopics "$tmp/none" 2>&1); then
  not_ok "bench-summary --alltopics on a directory without table.md succeeded"
elif [[ $err != *"no table"* ]]; then
  not_ok "bench-summary --alltopics without table.md said: $err"
fi

((failed)) || echo "ok - BENCHMARKS.md: $n current figures, each with its command, commit, machine and date"
exit $failed
