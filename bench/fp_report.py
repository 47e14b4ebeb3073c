#!/usr/bin/env python3
"""Why a crawl's verdicts went wrong (issue 13): the misjudged websites of one job.

Usage: bench/fp_report.py JOB_ID LABELS.sites.tsv [--db URL] [--show N]

Reads the job's examined websites and their pages from PostgreSQL (psql; the embedded
cluster through `build/sitescout db psql` unless --db is given) and the web's ground
truth, and prints for the false positives (judged relevant, another topic) and the
false negatives (relevant test websites judged not relevant):
  - how many, by the true topic of the false positives and by homepage variant;
  - by the crawl's progress (the page count when judged, in tenths of the crawl);
  - by the number of pages the verdict took and by how confident it was;
  - the evidence: each page's Pr[target] in fetch order, for the first N of each.
"""
import argparse
import collections
import csv
import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def psql(args, sql):
    if args.db:
        cmd = ["psql", args.db]
    else:
        cmd = [os.environ.get("SITESCOUT_BIN", os.path.join(TOP, "build", "sitescout")), "db", "psql"]
    out = subprocess.run(cmd + ["-At", "-F", "\t", "-c", sql], check=True, capture_output=True, text=True)
    return [line.split("\t") for line in out.stdout.splitlines() if line]


def load_labels(path, topic):
    sites = {}
    with open(path) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            roles = dict(x.split(":", 1) for x in row["role"].split(";") if ":" in x)
            sites[row["host"]] = (row["topic"], row["homepage_variant"], roles.get(topic, "test"))
    return sites


def table(title, counter, total=None):
    print(f"\n{title}")
    for k, n in sorted(counter.items(), key=lambda kv: (-kv[1], str(kv[0]))):
        share = f" ({n / total:.0%})" if total else ""
        print(f"  {n:5d}{share}  {k}")


def bucket(v, edges):
    for e in edges:
        if v <= e:
            return f"<= {e}"
    return f"> {edges[-1]}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("job", type=int)
    ap.add_argument("labels")
    ap.add_argument("--db")
    ap.add_argument("--show", type=int, default=10)
    args = ap.parse_args()
    topic, pages = psql(args, f"select topic, pages_downloaded from jobs where id = {args.job}")[0]
    total_pages = int(pages)
    labels = load_labels(args.labels, topic)
    rows = psql(args, f"select host, relevant, confidence, pages_visited, coalesce(pages_to_class, 0),"
                      f" coalesce(found_pages, -1), role from sites where job_id = {args.job}"
                      f" and state = 'examined' and role not like 'train%'")
    fp, fn, tp, tn = [], [], 0, 0
    for host, rel, conf, visited, ptc, found, role in rows:
        t, variant, lrole = labels.get(host, ("?", "?", "test"))
        if lrole != "test" or role != "discovered":
            continue
        rel = rel == "t"
        truth = t == topic
        rec = dict(host=host, topic=t, variant=variant, conf=float(conf), visited=int(visited),
                   ptc=int(ptc), found=int(found))
        if rel and not truth:
            fp.append(rec)
        elif truth and not rel:
            fn.append(rec)
        elif rel:
            tp += 1
        else:
            tn += 1
    print(f"job {args.job} ({topic}): {len(rows)} examined, tp {tp}, fp {len(fp)}, fn {len(fn)}, tn {tn};"
          f" precision {tp / max(tp + len(fp), 1):.3f}")
    for name, group in (("false positives", fp), ("false negatives", fn)):
        if not group:
            continue
        print(f"\n=== {name}: {len(group)}")
        table("by true topic", collections.Counter(r["topic"] for r in group), len(group))
        table("by homepage variant", collections.Counter(r["variant"] for r in group), len(group))
        if name == "false positives":
            table("by tenth of the crawl when judged",
                  collections.Counter(min(9, r["found"] * 10 // max(total_pages, 1)) for r in group))
        table("by pages to the verdict (pages_to_class)",
              collections.Counter(bucket(r["ptc"], [1, 2, 3, 5, 8, 13, 25]) for r in group))
        table("by confidence", collections.Counter(bucket(round(r["conf"], 3), [0.1, 0.5, 0.7, 0.9, 0.99, 0.999])
                                                for r in group))
        for r in group[: args.show]:
            ev = psql(args, f"select coalesce(round(pr_target::numeric, 2)::text, '-') || ':' ||"
                            f" coalesce(status::text, error) || ':' || regexp_replace(url, '^https?://[^/]*', '')"
                            f" from pages where job_id = {args.job} and host = '{r['host']}' order by id")
            print(f"  {r['host']} [{r['topic']}, {r['variant']}] conf {r['conf']:.3f},"
                  f" {r['ptc']} to decide, {r['visited']} visited, judged at page {r['found']}")
            print("     " + "  ".join(e[0] for e in ev[:12]))


if __name__ == "__main__":
    sys.exit(main())
