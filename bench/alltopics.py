#!/usr/bin/env python3
"""Table of `sitescout eval --report` results over many topics (issue 14's protocol).

Usage: bench/alltopics.py JOBS.json DIR LABEL [LABEL...] [--min-relevant N] [--tuned T,T]
DIR holds LABEL-TOPIC-cv.json reports (as bench/eval_all.sh writes them). Prints, per
topic, the website F1 (P/R), pages per website and the homepage F1 of each LABEL, then
the mean and worst F1 over the topics with at least N relevant training websites
(default 25), with the tuned topics (default sci.space,rec.motorcycles) left out of a
second mean: the figure that says how a configuration does on topics it was not
chosen on.
"""
import argparse, json, os, statistics

ap = argparse.ArgumentParser()
ap.add_argument("jobs"); ap.add_argument("dir"); ap.add_argument("labels", nargs="+")
ap.add_argument("--min-relevant", type=int, default=25)
ap.add_argument("--tuned", default="sci.space,rec.motorcycles")
a = ap.parse_args()
jobs = json.load(open(a.jobs))
tuned = set(a.tuned.split(","))
res = {l: {} for l in a.labels}
for l in a.labels:
    for t in jobs:
        p = os.path.join(a.dir, f"{l}-{t}-cv.json")
        if os.path.exists(p):
            res[l][t] = json.load(open(p))
hdr = f"| topic | relevant sites | " + " | ".join(f"{l}: web F1 (P/R), pages | {l}: home F1" for l in a.labels) + " |"
print(hdr); print("|" + "---|" * (2 + 2 * len(a.labels)))
for t, j in jobs.items():
    cells = []
    for l in a.labels:
        r = res[l].get(t)
        if not r:
            cells += ["-", "-"]; continue
        w, h = r["website"], r["homepage"]
        f = lambda v: "-" if v is None else f"{v:.3f}"
        cells += [f"{f(w['f1'])} ({f(w['precision'])}/{f(w['recall'])}), {w['pages_per_site']:.2f}", f(h["f1"])]
    mark = " (tuned)" if t in tuned else ""
    print(f"| {t}{mark} | {len(j['relevant_sites'])} | " + " | ".join(cells) + " |")
for l in a.labels:
    big = [t for t in jobs if t in res[l] and len(jobs[t]["relevant_sites"]) >= a.min_relevant]
    f1 = lambda ts: [res[l][t]["website"]["f1"] or 0 for t in ts]
    pg = [res[l][t]["website"]["pages_per_site"] for t in big]
    un = [t for t in big if t not in tuned]
    if not big:
        continue
    print(f"\n{l}: {len(big)} topics with >= {a.min_relevant} relevant sites: mean F1 {statistics.mean(f1(big)):.3f}, "
          f"worst {min(f1(big)):.3f} ({min(big, key=lambda t: res[l][t]['website']['f1'] or 0)}), "
          f"pages/site {statistics.mean(pg):.2f}; untuned {len(un)}: mean F1 {statistics.mean(f1(un)):.3f}, worst {min(f1(un)):.3f}")
