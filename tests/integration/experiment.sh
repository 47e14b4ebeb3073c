#!/usr/bin/env bash
# `sitescout experiment` on the demo web: its own replay server, seven crawl jobs in a
# private PostgreSQL, the CSV files, plots and summary.md, Table 2, the jobs left in the
# database, the named figures against the project's targets file, plots skipped without
# gnuplot, and the command line's errors.
source "$(dirname "$0")/lib.sh"
make_scratch
WARC=$SRC/demo/demo.warc.gz
JOBS=$SRC/demo/demo.jobs.json
LABELS=$SRC/demo/demo.sites.tsv
TARGETS=$SRC/bench/experiment.targets
RUNS=(website-global website-local website-combined page website-p0.7 bfs homepage page-homepage)
ex() { "$BIN" experiment "$@"; }
args=(--warc "$WARC" --labels "$LABELS" --jobs "$JOBS" --topic sci.space)

# --- the command line (checked before anything starts: no database needed)
assert_status 0 "--help exits 0" -- ex --help
assert_contains "$(ex --help)" "fig7_pprs.csv" "--help lists the outputs"
for w in found.csv fig_found.png "--runs NAME" "--strategies S" "--repeat N" "--fig7-window PAGES"; do
  assert_contains "$(ex --help)" "$w" "--help names $w"
done
for opt in --warc --labels --jobs --topic --budget --out; do
  a=()
  skip=0
  for x in "${args[@]}" --budget 10 --out "$SCRATCH/x"; do
    if ((skip)); then skip=0; continue; fi
    if [[ $x == "$opt" ]]; then skip=1; continue; fi
    a+=("$x")
  done
  err=$(ex "${a[@]}" 2>&1 || true)
  assert_contains "$err" "sitescout experiment: $opt is required" "missing $opt is named"
  assert_status 2 "missing $opt exits 2" -- ex "${a[@]}"
done
err=$(ex "${args[@]}" --budget 0 --out "$SCRATCH/x" 2>&1 || true)
assert_contains "$err" "--budget wants a number of pages (at least 1), not '0'" "budget 0 is refused"
assert_status 2 "budget 0 exits 2" -- ex "${args[@]}" --budget 0 --out "$SCRATCH/x"
assert_status 2 "budget 'ten' exits 2" -- ex "${args[@]}" --budget ten --out "$SCRATCH/x"
err=$(ex --warc "$SCRATCH/none.warc.gz" --labels "$LABELS" --jobs "$JOBS" --topic sci.space \
  --budget 10 --out "$SCRATCH/x" 2>&1 || true)
assert_contains "$err" "cannot read --warc $SCRATCH/none.warc.gz" "an unreadable WARC is named"
assert_status 2 "an unreadable WARC exits 2" -- ex --warc "$SCRATCH/none.warc.gz" \
  --labels "$LABELS" --jobs "$JOBS" --topic sci.space --budget 10 --out "$SCRATCH/x"
assert_status 2 "unreadable labels exit 2" -- ex --warc "$WARC" --labels "$SCRATCH/none.tsv" \
  --jobs "$JOBS" --topic sci.space --budget 10 --out "$SCRATCH/x"
assert_status 2 "an unreadable jobs file exits 2" -- ex --warc "$WARC" --labels "$LABELS" \
  --jobs "$SCRATCH/none.json" --topic sci.space --budget 10 --out "$SCRATCH/x"
err=$(ex --warc "$WARC" --labels "$LABELS" --jobs "$JOBS" --topic rec.autos --budget 10 \
  --out "$SCRATCH/x" 2>&1 || true)
assert_contains "$err" "no job for this topic (topics there: sci.space)" "an unknown topic lists the topics"
assert_status 2 "an unknown topic exits 2" -- ex --warc "$WARC" --labels "$LABELS" --jobs "$JOBS" \
  --topic rec.autos --budget 10 --out "$SCRATCH/x"
err=$(ex "${args[@]}" --budget 10 --out "$SCRATCH/x" --set strategy=page 2>&1 || true)
assert_contains "$err" "--set strategy: the experiment sets it for each run" "--set of a run's own parameter is refused"
assert_status 2 "--set max_pages exits 2" -- ex "${args[@]}" --budget 10 --out "$SCRATCH/x" --set max_pages=5
assert_status 2 "a bad --set value exits 2" -- ex "${args[@]}" --budget 10 --out "$SCRATCH/x" --set pprs_window=-1
assert_status 2 "an unknown option exits 2" -- ex "${args[@]}" --budget 10 --out "$SCRATCH/x" --frob
printf 'pprs_ratio <= 0.6\nprecision_gain =< 0\n' >"$SCRATCH/bad.targets"
err=$(ex "${args[@]}" --budget 10 --out "$SCRATCH/x" --targets "$SCRATCH/bad.targets" 2>&1 || true)
assert_contains "$err" "$SCRATCH/bad.targets:2: '=<' is not one of <= >= < >" "a bad target names its line"
printf '# mine\n\nharvest >= 0.5\n' >"$SCRATCH/unknown.targets"
err=$(ex "${args[@]}" --budget 10 --out "$SCRATCH/x" --targets "$SCRATCH/unknown.targets" 2>&1 || true)
assert_contains "$err" "unknown.targets:3: no figure 'harvest' (figures: pprs_ratio, precision_gain, combined_harvest_margin)" \
  "an unknown figure lists the figures"
assert_status 2 "a bad targets file exits 2" -- ex "${args[@]}" --budget 10 --out "$SCRATCH/x" \
  --targets "$SCRATCH/unknown.targets"
assert_status 2 "a missing targets file exits 2" -- ex "${args[@]}" --budget 10 --out "$SCRATCH/x" \
  --targets "$SCRATCH/none.targets"
err=$(ex "${args[@]}" --budget 10 --out "$SCRATCH/x" --runs page,websites 2>&1 || true)
assert_contains "$err" "--runs: no run 'websites' (runs: website-global, website-local, website-combined, page, website-p0.7, bfs, homepage, page-homepage, bestfirst, history, hotwords, relevance-degree, weight-table, learning-anchor, context-graph)" \
  "an unknown run name lists the runs"
[[ $(wc -l <<<"$err") == 2 && $err == *"Try 'sitescout experiment --help'."* ]] || fail "not one error line: $err"
ok "an unknown run name gets one error line"
assert_status 2 "an unknown run name exits 2" -- ex "${args[@]}" --budget 10 --out "$SCRATCH/x" --runs page,websites
assert_status 2 "an empty run name exits 2" -- ex "${args[@]}" --budget 10 --out "$SCRATCH/x" --runs page,
err=$(ex "${args[@]}" --budget 10 --out "$SCRATCH/x" --strategies page,best_first 2>&1 || true)
assert_contains "$err" "--strategies: no strategy 'best_first' (strategies: website, page, bfs, homepage, page_homepage, bestfirst, history, hotwords, relevance_degree, weight_table, learning_anchor, context_graph)" \
  "an unknown strategy is refused, naming every strategy"
assert_status 2 "an unknown strategy exits 2" -- ex "${args[@]}" --budget 10 --out "$SCRATCH/x" --strategies page,best_first
assert_status 2 "--runs with --strategies exits 2" -- ex "${args[@]}" --budget 10 --out "$SCRATCH/x" --runs page --strategies page
assert_status 2 "--repeat 0 exits 2" -- ex "${args[@]}" --budget 10 --out "$SCRATCH/x" --repeat 0
assert_status 2 "--fig7-window 0 exits 2" -- ex "${args[@]}" --budget 10 --out "$SCRATCH/x" --fig7-window 0
touch "$SCRATCH/file"
assert_status 2 "--out on a file exits 2" -- ex "${args[@]}" --budget 10 --out "$SCRATCH/file"
[[ ! -e $SCRATCH/x ]] || fail "a refused command line created --out"
ok "a refused command line creates nothing"

# --- the whole experiment, Table 2 included, into a private PostgreSQL
start_private_pg
OUT=$SCRATCH/out/sci.space
start=$SECONDS
ex "${args[@]}" --budget 300 --out "$OUT" --db "$DB_URL" --set pprs_window=200 --targets "$TARGETS" \
  >"$SCRATCH/exp.out" 2>"$SCRATCH/exp.err" || fail "experiment failed: $(cat "$SCRATCH/exp.err")"
ok "the experiment runs to the end ($((SECONDS - start)) s)"
assert_eq "$OUT/summary.md" "$(cat "$SCRATCH/exp.out")" "stdout names the summary"
err=$(cat "$SCRATCH/exp.err")
for r in "${RUNS[@]}"; do
  assert_contains "$err" "] $r: strategy=" "stderr shows the start of $r"
  [[ $(grep -c "] $r: job [0-9]* done (.*) in .* s: [0-9]* pages, [0-9]* sites examined" <<<"$err") == 1 ]] ||
    fail "no end line with figures for $r: $err"
  ok "stderr shows the end of $r with its figures"
done
assert_contains "$err" "[eval] sci.space in" "stderr shows the evaluation"

for f in fig6_harvest.csv fig7_pprs.csv recall.csv found.csv runs.csv table2.csv summary.md; do
  [[ -s $OUT/$f ]] || fail "$f missing or empty"
done
ok "every CSV file and summary.md is there"

# The CSV files: headers, a row per run, sane figures; the jobs match the database.
out=$(python3 - "$OUT" "$DB_URL" <<'EOF'
import csv, subprocess, sys
out, db = sys.argv[1], sys.argv[2]
def rows(name, header):
    with open(f"{out}/{name}", newline="") as f:
        r = list(csv.reader(f))
    assert r[0] == header.split(","), (name, r[0])
    return [dict(zip(r[0], x)) for x in r[1:]]
def q(sql):
    return subprocess.run(["psql", db, "-X", "-q", "-tA", "-c", sql], check=True,
                          capture_output=True, text=True).stdout.strip()
runs = rows("runs.csv", "run,repeat,job_id,strategy,edge_weights,p_threshold,pages,sites_examined,"
            "relevant_found,pprs,precision,recall,f1,single_page_share,state,stop_reason,seconds")
want = [("website-global", "website", "global", "0.90"), ("website-local", "website", "local", "0.90"),
        ("website-combined", "website", "combined", "0.90"), ("page", "page", "combined", "0.90"),
        ("website-p0.7", "website", "combined", "0.70"), ("bfs", "bfs", "combined", "0.90"),
        ("homepage", "homepage", "combined", "0.90"),
        ("page-homepage", "page_homepage", "combined", "0.90")]
assert [(r["run"], r["strategy"], r["edge_weights"], r["p_threshold"]) for r in runs] == want, runs
assert [r["repeat"] for r in runs] == ["1"] * 8, runs
for r in runs:
    job = r["job_id"]
    assert r["state"] == "done", r
    pages, ex, rel = int(r["pages"]), int(r["sites_examined"]), int(r["relevant_found"])
    assert pages > 0 and ex > 0, r
    # The figures are the job's, and the job ran with the experiment's parameters.
    assert q(f"select pages_downloaded, sites_examined, relevant_found from jobs where id = {job}") == \
        f"{pages}|{ex}|{rel}", r
    got = q(f"select params->>'strategy', params->>'edge_weights', params->>'max_pages', "
            f"params->>'politeness_delay_ms', params->>'pprs_window', params->>'p_threshold', "
            f"params->>'linkrank_threshold' from jobs where id = {job}").split("|")
    assert got[:5] == [r["strategy"], r["edge_weights"], "300", "0", "200"], (got, r)
    assert abs(float(got[5]) - float(r["p_threshold"])) < 1e-9, (got, r)
    # The paper's LinkRank (§4.3.4): its threshold does not grow as the border runs low.
    assert got[6] == "fixed", (got, r)
    if rel:
        assert abs(float(r["pprs"]) - pages / rel) < 1e-3, r
    found = int(q(f"select count(*) from relevant_websites w join sites s using (job_id, host) "
                  f"where w.job_id = {job} and s.role = 'discovered'"))
    single = int(q(f"select count(*) from relevant_websites w join sites s using (job_id, host) "
                   f"where w.job_id = {job} and s.role = 'discovered' and w.pages_visited = 1"))
    if found:
        assert abs(float(r["single_page_share"]) - single / found) < 1e-3, (r, single, found)
        p, rc, f1 = float(r["precision"]), float(r["recall"]), float(r["f1"])
        assert 0 <= p <= 1 and 0 <= rc <= 1, r
        assert abs(f1 - (2 * p * rc / (p + rc) if p + rc else 0)) < 1e-3, r
for name, col, members in (("fig6_harvest.csv", "harvest_rate_window", want[:3]),
                           ("fig7_pprs.csv", "pprs_window,pprs_window_truly", [want[3], want[2], want[4]])):
    pts = rows(name, "run,pages,examined,relevant," + col)
    col = col.split(",")[0]
    names = [m[0] for m in members]
    assert sorted({p["run"] for p in pts}) == sorted(names), (name, {p["run"] for p in pts})
    for n in names:
        mine = [p for p in pts if p["run"] == n]
        last = next(r for r in runs if r["run"] == n)
        # The curve ends where the run ended, and is sorted by pages.
        assert [int(p["pages"]) for p in mine] == sorted(int(p["pages"]) for p in mine), n
        assert (int(mine[-1]["pages"]), int(mine[-1]["examined"]), int(mine[-1]["relevant"])) == \
            (int(last["pages"]), int(last["sites_examined"]), int(last["relevant_found"])), (n, mine[-1])
        for p in mine:
            if p[col]:
                v = float(p[col])
                assert (0 <= v <= 1) if col.startswith("harvest") else v >= 1, (n, p)
# Recall over pages: per run, one row per relevant test site found, at the page count
# when it was judged relevant; it ends at the run's recall, within the run's pages.
rec = rows("recall.csv", "run,pages,recall")
for r in runs:
    mine = [p for p in rec if p["run"] == r["run"]]
    pages = [int(p["pages"]) for p in mine]
    assert pages == sorted(pages) and all(0 < x <= int(r["pages"]) for x in pages), (r["run"], pages)
    if r["recall"]:
        assert len(mine) > 0 and abs(float(mine[-1]["recall"]) - float(r["recall"])) < 1e-3, (r, mine[-1:])
    hits = int(q(f"select count(*) from sites where job_id = {r['job_id']} and found_pages is not null "
                 f"and relevant and role = 'discovered'"))
    assert hits >= len(mine), (r["run"], hits, len(mine))
# The exact found curves: per run one row per website found (start sites excluded) at
# its found_pages, then the run's end; monotone, truly <= judged, ending at the score.
found = rows("found.csv", "run,repeat,pages,judged_relevant,truly_relevant")
assert [r["run"] for r in runs] == list(dict.fromkeys(p["run"] for p in found)), "found.csv: a curve per run"
curves = {}
for r in runs:
    mine = [(int(p["pages"]), int(p["judged_relevant"]), int(p["truly_relevant"]))
            for p in found if p["run"] == r["run"]]
    assert all(p["repeat"] == "1" for p in found if p["run"] == r["run"]), r["run"]
    assert mine == sorted(mine), (r["run"], mine)
    assert all(t <= j for _, j, t in mine), (r["run"], mine)
    at = q(f"select found_pages from sites s join relevant_websites w using (job_id, host) "
           f"where s.job_id = {r['job_id']} and s.role = 'discovered' and s.found_pages is not null "
           f"order by found_pages").split()
    assert [p for p, _, _ in mine[:-1]] == [int(x) for x in at], (r["run"], mine, at)
    assert [j for _, j, _ in mine[:-1]] == list(range(1, len(at) + 1)), (r["run"], mine)
    end = mine[-1]
    assert end[0] == max([int(r["pages"])] + [p for p, _, _ in mine]), (r["run"], end)
    if r["precision"]:
        assert end[1] > 0 and abs(end[2] / end[1] - float(r["precision"])) < 1e-3, (r, end)
    curves[r["run"]] = mine
# Figure 7 over the last min(5000, budget / 3) = 100 pages of the exact curves.
def count(curve, x, k):
    return max([c[k] for c in curve if c[0] <= x], default=0)
def pprs(curve, x, k, w=100):
    lo = max(0, x - w)
    n = count(curve, x, k) - count(curve, lo, k)
    return (x - lo) / n if n and x > lo else None
fig7 = rows("fig7_pprs.csv", "run,pages,examined,relevant,pprs_window,pprs_window_truly")
assert fig7, "fig7_pprs.csv is empty"
for p in fig7:
    for col, k in (("pprs_window", 1), ("pprs_window_truly", 2)):
        want_v = pprs(curves[p["run"]], int(p["pages"]), k)
        got = float(p[col]) if p[col] else None
        assert (got is None) == (want_v is None) and (got is None or abs(got - want_v) < 1e-4), (p, col, want_v)
        if col == "pprs_window_truly" and got is not None and p["pprs_window"]:
            assert got >= float(p["pprs_window"]) - 1e-9, p
t2 = rows("table2.csv", "topic,folds,sites,p_err,p_threshold,pages_per_site,website_precision,"
          "website_recall,website_f1,homepage_precision,homepage_recall,homepage_f1,f1_improvement")
assert len(t2) == 1 and t2[0]["topic"] == "sci.space" and t2[0]["folds"] == "10", t2
t = {k: float(v) for k, v in t2[0].items() if k != "topic"}
assert 0 < t["p_err"] < 0.5 and 1 <= t["pages_per_site"] <= 7, t
assert t["website_f1"] > t["homepage_f1"], t
assert abs(t["f1_improvement"] - (t["website_f1"] - t["homepage_f1"])) < 1e-3, t
print(f"{len(runs)} runs; website-combined pprs {float(runs[2]['pprs']):.1f}, "
      f"Table 2 F1 {t['website_f1']:.3f} vs {t['homepage_f1']:.3f}")
EOF
) || fail "outputs: $out"
ok "runs.csv, fig6, fig7 and table2.csv agree with the jobs in the database: $out"

summary=$(cat "$OUT/summary.md")
for r in "${RUNS[@]}"; do
  assert_contains "$summary" "| $r |" "summary.md has a row for $r"
done
for s in website page bfs homepage; do
  assert_contains "$summary" "| $s |" "summary.md names strategy $s"
done
assert_contains "$summary" "- **Website crawler at p_threshold 0.90 against the page crawler.** At the budget the website crawler (p_threshold 0.90) has pprs " \
  "summary.md compares the website crawler with the page crawler"
assert_contains "$summary" "- **Edge weights.** By the mean windowed website harvest rate" "summary.md compares the edge weightings"
# The named figures against the project's targets: the summary table, stderr, and the
# verdicts agree with the measured figures.
out=$(python3 - "$OUT/summary.md" "$SCRATCH/exp.err" "$TARGETS" <<'EOF'
import re, sys
summary, err, targets = (open(p).read() for p in sys.argv[1:])
want = [l.split() for l in targets.splitlines() if l.strip() and not l.startswith("#")]
assert [w[0] for w in want] == ["pprs_ratio", "precision_gain", "combined_harvest_margin"], want
assert "targets of `" + sys.argv[3] + "`" in summary, "summary.md names the targets file"
figs = dict(re.findall(r"(\w+) (-?[0-9.]+|-)", re.search(r"^figures: (.*)$", err, re.M).group(1)))
assert sorted(figs) == sorted(w[0] for w in want), figs
for name, op, value in want:
    row = re.search(r"^\| `%s` \| (\S+) \| %s %s \| ([a-z ]+) \|$" % (name, re.escape(op), re.escape(value)),
                    summary, re.M)
    assert row, "summary.md has no row for " + name
    measured, verdict = row.group(1), row.group(2)
    assert measured == figs[name], (name, measured, figs)
    line = "target %s %s %s: %s" % (name, op, value, verdict)
    assert line in err, "stderr lacks: " + line
    if measured == "-":
        assert verdict == "cannot be decided", (name, verdict)
        continue
    v, bound = float(measured), float(value)
    # measured is rounded: the verdict is checked away from the bound only
    if abs(v - bound) > 0.01:
        holds = v <= bound if op == "<=" else v >= bound
        assert verdict == ("holds" if holds else "does not hold"), (name, v, verdict)
    else:
        assert verdict in ("holds", "does not hold"), (name, verdict)
print(", ".join("%s %s" % kv for kv in figs.items()))
EOF
) || fail "figures and targets: $out"
ok "summary.md and stderr give the named figures against the targets: $out"
assert_contains "$summary" "Single-page share of the page crawler" "summary.md gives the page crawler's single-page share"
assert_contains "$summary" "pprs ratio website (p_threshold 0.90) / page crawler at the budget" "summary.md gives the pprs ratio"
assert_contains "$summary" "| sci.space | " "summary.md has the Table 2 row"
assert_contains "$summary" "| run | recall 0.5 | recall 0.8 | final recall |" "summary.md gives the pages to recall 0.5 and 0.8"
assert_contains "$summary" "The window asked for (\`--fig7-window 5000\`) is capped to a third of the budget, 100 pages." \
  "summary.md says Figure 7's window was capped"
out=$(python3 - "$OUT" <<'EOF'
import csv, re, sys
out = sys.argv[1]
summary = open(f"{out}/summary.md").read()
found = list(csv.DictReader(open(f"{out}/found.csv")))
def truly_at(run, budget=300):
    return max([int(p["truly_relevant"]) for p in found if p["run"] == run and int(p["pages"]) <= budget], default=0)
w, p = truly_at("website-combined"), truly_at("page")
line = re.search(r"Truly relevant websites found within the budget \(300 pages; `found.csv`\): "
                 r"website crawler (\d+), page crawler (\d+), ratio (\S+)\.", summary)
assert line, "no truly relevant figures in comparison 1"
assert (int(line.group(1)), int(line.group(2))) == (w, p), (line.group(0), w, p)
assert line.group(3) == (f"{w / p:.2f}" if p else "-"), line.group(0)
runs = {r["run"]: r for r in csv.DictReader(open(f"{out}/runs.csv"))}
for name, r in runs.items():
    row = re.search(r"^\| %s \| (\d+) \|(.*)$" % re.escape(name), summary, re.M)
    assert row and row.group(1) == r["job_id"], name
    cells = [c.strip() for c in row.group(2).split("|")]
    # strategy, edge weights, p_threshold, pages, examined, relevant, truly relevant, ...
    assert cells[3:6] == [r["pages"], r["sites_examined"], r["relevant_found"]], (name, cells)
    ends = [x for x in found if x["run"] == name][-1]
    assert cells[6] == ends["truly_relevant"], (name, cells, ends)
print(f"truly relevant within the budget: website {w}, page {p}")
EOF
) || fail "comparison 1 and the runs table: $out"
ok "summary.md gives the truly relevant found: $out"

if command -v gnuplot >/dev/null; then
  for p in fig6_harvest fig7_pprs fig7b_recall fig_found; do
    assert_eq "89504e470d0a1a0a" "$(head -c 8 "$OUT/$p.png" | od -An -tx1 | tr -d ' \n')" "$p.png is a PNG"
    assert_contains "$summary" "]($p.png)" "summary.md embeds $p.png with a relative link"
  done
else
  echo "# gnuplot is not installed: PNG checks skipped"
fi

# --- --runs and --repeat: two of the runs, each made twice
SUB=$SCRATCH/sub
ex "${args[@]}" --budget 100 --out "$SUB" --db "$DB_URL" --skip-eval --runs page,website-combined \
  --repeat 2 >/dev/null 2>"$SCRATCH/sub.err" || fail "experiment --runs --repeat failed: $(cat "$SCRATCH/sub.err")"
err=$(cat "$SCRATCH/sub.err")
i=0
for r in "website-combined #1" "page #1" "website-combined #2" "page #2"; do
  i=$((i + 1))
  assert_contains "$err" "[$i/4] $r: strategy=" "stderr shows the start of $r"
  [[ $(grep -c "^\[$i/4\] $r: job [0-9]* done (.*) in .* s: [0-9]* pages" <<<"$err") == 1 ]] ||
    fail "no end line for $r: $err"
done
[[ $(grep -c "strategy=" <<<"$err") == 4 ]] || fail "runs not selected were made: $err"
ok "--runs makes only the runs named, --repeat each of them twice, round by round"
out=$(python3 - "$SUB" <<'EOF'
import csv, re, sys
out = sys.argv[1]
runs = list(csv.DictReader(open(f"{out}/runs.csv")))
assert [(r["run"], r["repeat"]) for r in runs] == [("website-combined", "1"), ("website-combined", "2"),
                                                    ("page", "1"), ("page", "2")], runs
assert len({r["job_id"] for r in runs}) == 4, "a job per repeat"
found = list(csv.DictReader(open(f"{out}/found.csv")))
assert list(found[0]) == ["run", "repeat", "pages", "judged_relevant", "truly_relevant"], list(found[0])
for r in runs:
    mine = [(int(p["pages"]), int(p["judged_relevant"]), int(p["truly_relevant"]))
            for p in found if (p["run"], p["repeat"]) == (r["run"], r["repeat"])]
    assert mine and mine == sorted(mine) and all(t <= j for _, j, t in mine), (r, mine)
    assert mine[-1][0] >= int(r["pages"]), (r, mine[-1])
for name in ("website-global", "website-local", "website-p0.7", "bfs", "homepage", "page-homepage"):
    assert not any(p["run"] == name for p in found), name
summary = open(f"{out}/summary.md").read()
assert "Each run was made 2 times (`--repeat`)" in summary, "summary.md names the repeats"
assert "is capped to a third of the budget, 33 pages." in summary, "window capped to 33"
assert "- **Edge weights: cannot be compared** — a run is missing" in summary, "edge weights without runs"
for name in ("website-global", "website-local", "website-p0.7", "bfs", "homepage", "page-homepage"):
    assert re.search(r"^\| %s \|.*\| not selected \(`--runs`\) \|$" % re.escape(name), summary, re.M), name
for name in ("website-combined", "page"):
    mine = [r for r in runs if r["run"] == name]
    row = re.search(r"^\| %s \| (\d+), (\d+) \|(.*)$" % re.escape(name), summary, re.M)
    assert row and [row.group(1), row.group(2)] == [r["job_id"] for r in mine], (name, row)
    cells = [c.strip() for c in row.group(3).split("|")]
    for cell, col in zip(cells[3:6], ("pages", "sites_examined", "relevant_found")):
        v = [int(r[col]) for r in mine]
        assert cell == "%.1f (%d–%d)" % (sum(v) / 2, min(v), max(v)), (name, col, cell, v)
    truly = [int([p for p in found if (p["run"], p["repeat"]) == (name, r["repeat"])][-1]["truly_relevant"])
             for r in mine]
    assert cells[6] == "%.1f (%d–%d)" % (sum(truly) / 2, min(truly), max(truly)), (name, cells[6], truly)
    prec = [float(r["precision"]) for r in mine if r["precision"]]
    if prec:
        assert cells[8] == "%.3f (%.3f–%.3f)" % (sum(prec) / len(prec), min(prec), max(prec)), (name, cells[8])
print("runs " + ", ".join(f"{r['run']}#{r['repeat']}" for r in runs))
EOF
) || fail "--runs --repeat outputs: $out"
ok "runs.csv, found.csv and summary.md give every repeat of the runs selected: $out"
if command -v gnuplot >/dev/null; then
  [[ $(grep -c '^\$d[0-9]*_1_0 << EOD' "$SUB/fig_found.gp") -ge 1 ]] || fail "fig_found.gp lacks the second repeats"
  ok "fig_found draws every repeat"
fi

# --- --strategies: runs named by job strategy, issue 18's among them
STR=$SCRATCH/strategies
ex "${args[@]}" --budget 100 --out "$STR" --db "$DB_URL" --skip-eval --strategies website,hotwords \
  >/dev/null 2>"$SCRATCH/str.err" || fail "experiment --strategies failed: $(cat "$SCRATCH/str.err")"
out=$(python3 - "$STR" <<'EOF'
import csv, re, sys
out = sys.argv[1]
runs = list(csv.DictReader(open(f"{out}/runs.csv")))
assert [(r["run"], r["strategy"], r["state"]) for r in runs] == [
    ("website-combined", "website", "done"), ("hotwords", "hotwords", "done")], runs
assert all(0 < int(r["pages"]) <= 100 for r in runs), runs
found = list(csv.DictReader(open(f"{out}/found.csv")))
assert {p["run"] for p in found} == {"website-combined", "hotwords"}, {p["run"] for p in found}
summary = open(f"{out}/summary.md").read()
assert re.search(r"^\| hotwords \| \d+ \| hotwords \|", summary, re.M), "summary.md has the hotwords run"
for name in ("bestfirst", "history"):  # made only when asked for: no row otherwise
    assert not re.search(r"^\| %s \|" % name, summary, re.M), name
assert re.search(r"^\| bfs \|.*not selected", summary, re.M), "the paper's runs are listed as not selected"
print(", ".join(r["run"] for r in runs))
EOF
) || fail "--strategies outputs: $out"
ok "--strategies website,hotwords makes website-combined and hotwords: $out"

# --- without gnuplot: CSV files and summary anyway, the plots reported as skipped
nogp=$SCRATCH/nogp
mkdir -p "$nogp/bin"
for t in psql pg_ctl; do command -v $t >/dev/null && ln -s "$(command -v $t)" "$nogp/bin/"; done
PATH=$nogp/bin ex "${args[@]}" --budget 50 --out "$nogp/out" --db "$DB_URL" --skip-eval \
  >/dev/null 2>"$nogp/err" || fail "experiment without gnuplot failed: $(cat "$nogp/err")"
assert_contains "$(cat "$nogp/err")" "plots skipped: gnuplot is not installed" "stderr says the plots were skipped"
[[ ! -e $nogp/out/fig6_harvest.png && ! -e $nogp/out/table2.csv ]] || fail "unexpected PNG or table2.csv"
[[ -s $nogp/out/runs.csv && -s $nogp/out/fig7_pprs.csv ]] || fail "CSV files missing without gnuplot"
ok "without gnuplot and with --skip-eval: the CSV files, no PNG, no table2.csv"
summary=$(cat "$nogp/out/summary.md")
assert_contains "$summary" "Plot skipped: gnuplot is not installed" "summary.md says the plots were skipped"
assert_contains "$summary" "Skipped (\`--skip-eval\`)." "summary.md says Table 2 was skipped"
assert_contains "$summary" "no targets given (\`--targets FILE\`)" "summary.md says no targets were given"
assert_contains "$summary" "| \`pprs_ratio\` | " "summary.md gives the figures without targets"
[[ $(grep -c '^target ' "$nogp/err") == 0 ]] || fail "target lines without --targets: $(cat "$nogp/err")"
ok "without --targets no target is judged"
