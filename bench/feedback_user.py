#!/usr/bin/env python3
"""A simulated user who labels a running crawl's websites (issue 31's bench).

Usage: bench/feedback_user.py BIN DB_URL JOB PID LABELS.tsv TOPIC MODE LOG
  MODE top: label the 10 first unlabelled discovered websites of the job's relevant list
       (relevant_websites by position): the verdicts a user would look at first;
  MODE border: label the 10 first websites of the border (by rank) that are not labelled:
       never a verdict the crawl already made;
  MODE unsure: label the 10 unlabelled discovered websites whose verdicts are least sure
       (relevant or not, confidence nearest 1/2: the API's sites?order=unsure).
Labels come from the test web's ground truth (LABELS.tsv: relevant iff the website's
topic is TOPIC), through `sitescout label` (the product's own path: the crawl's lead
judges again). A round after 1,000 pages, then every 500, at most 40 labels in all;
it stops when the crawl process PID ends. Each round's line goes to LOG.
"""
import subprocess, sys, time

binary, db, job, pid, labels_path, topic, mode, log = sys.argv[1:]
topic_of = {}
with open(labels_path) as f:
    next(f)
    for line in f:
        cols = line.rstrip("\n").split("\t")
        if len(cols) > 1:
            topic_of[cols[0]] = cols[1]


def q(sql):
    return subprocess.run(["psql", db, "-X", "-q", "-tA", "-c", sql], capture_output=True,
                          text=True, check=True).stdout.split()


def alive():
    try:
        with open("/proc/%s/stat" % pid) as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


if mode == "top":
    pick = ("SELECT v.host FROM relevant_websites v JOIN sites s USING (job_id, host)"
            " WHERE v.job_id = %s AND v.role = 'discovered' AND s.label IS NULL"
            " ORDER BY v.position LIMIT 10" % job)
elif mode == "unsure":
    pick = ("SELECT host FROM sites WHERE job_id = %s AND state = 'examined'"
            " AND role = 'discovered' AND label IS NULL"
            " ORDER BY abs(confidence - 0.5), examined_at, host LIMIT 10" % job)
else:
    pick = ("SELECT host FROM sites WHERE job_id = %s AND state = 'border' AND label IS NULL"
            " ORDER BY rank DESC, discovered_at, host LIMIT 10" % job)
given, at, out = 0, 1000, open(log, "a")
while alive() and given < 40:
    pages = int((q("SELECT pages_downloaded FROM jobs WHERE id = %s" % job) or ["0"])[0])
    if pages < at:
        time.sleep(0.02)
        continue
    hosts = q(pick)[: 40 - given]
    right = 0
    for h in hosts:
        rel = topic_of.get(h) == topic
        done = subprocess.run([binary, "label", "--db", db, "--job", job, h,
                               "relevant" if rel else "not"], capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit("feedback_user: sitescout label %s failed: %s" % (h, done.stderr.strip()))
        right += rel
    given += len(hosts)
    print("%s job %s: at %d pages (round at %d) labelled %d websites, %d relevant" % (
        topic, job, pages, at, len(hosts), right), file=out, flush=True)
    at += 500
