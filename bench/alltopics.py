#!/usr/bin/env python3
"""Configurations side by side over many topics (issue 14's protocol), in Markdown.

Usage: bench/alltopics.py DIR LABEL [LABEL...]
DIR holds LABEL.json, the reports of `sitescout eval --all-topics` (bench/eval_all.sh
writes them). Prints a row per topic with each LABEL's website F1 (P/R) and pages per
website, and the homepage F1 of the first LABEL; then each LABEL's summary as the report
has it (mean and worst website F1 over all its topics and over the untuned ones), and for
a `--judge crawl_model` LABEL the mean and worst F1 of a crawl's rule (the crawl model's
verdict and the examination's both relevant: the report's crawl_model.with_examination).
`sitescout eval --all-topics` prints one configuration's table; this is for comparing.
"""
import json, os, sys

if len(sys.argv) < 3:
    sys.exit(__doc__.strip().splitlines()[2])
d, labels = sys.argv[1], sys.argv[2:]
reports = {l: json.load(open(os.path.join(d, l + ".json"))) for l in labels}
topics = {l: {t["topic"]: t for t in r["topics"]} for l, r in reports.items()}
order = list(dict.fromkeys(t for l in labels for t in topics[l]))
f = lambda v: "-" if v is None else "%.3f" % v

print("| topic | relevant | " + " | ".join("%s: web F1 (P/R), pages/site" % l for l in labels)
      + " | homepage F1 |")
print("|" + "---|" * (3 + len(labels)))
for name in order:
    rows = [topics[l].get(name) for l in labels]
    first = next(r for r in rows if r)
    cells = []
    for r in rows:
        if not r:
            cells.append("-")
        elif "error" in r:
            cells.append("failed")
        else:
            w = r["website"]
            cells.append("%s (%s/%s), %.2f" % (f(w["f1"]), f(w["precision"]), f(w["recall"]),
                                               w["pages_per_site"]))
    home = f(first["homepage"]["f1"]) if "homepage" in first else "-"
    mark = " (tuned)" if first["tuned"] else ""
    print("| %s%s | %d | %s | %s |" % (name, mark, first["relevant_sites"], " | ".join(cells), home))
for l in labels:
    s = reports[l]["summary"]
    parts = []
    for key in ("all", "untuned"):
        p = s[key]
        if p["topics"]:
            parts.append("%s %d topics: mean F1 %.3f, worst %.3f (%s), %.2f pages/site" % (
                key, p["topics"], p["mean_f1"], p["worst_f1"], p["worst_topic"],
                p["mean_pages_per_site"]))
    skipped = " (%d skipped under %d relevant)" % (len(s["skipped"]), s["min_relevant"]) if s["skipped"] else ""
    print("\n%s%s: %s" % (l, skipped, "; ".join(parts) or "no topic evaluated"))
    # `--judge crawl_model`: also the verdicts of a crawl's rule (the crawl model's and the
    # examination's), from each topic's crawl_model.with_examination.
    done = [t for t in reports[l]["topics"] if "crawl_model" in t]
    for key, part in (("all", done), ("untuned", [t for t in done if not t["tuned"]])):
        if part:
            f1 = [t["crawl_model"]["with_examination"]["f1"] for t in part]
            worst = min(part, key=lambda t: t["crawl_model"]["with_examination"]["f1"])
            print("%s, crawl model and examination, %s %d topics: mean F1 %.3f, worst %.3f (%s)" % (
                l, key, len(part), sum(f1) / len(f1), min(f1), worst["topic"]))
