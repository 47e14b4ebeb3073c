#!/usr/bin/env python3
"""fetch_count.py - what each crawler of bench/fetch_compare.sh really fetched, from the replay's access log.

  fetch_count.py WARC ACCESS_LOG RUNS.tsv

RUNS.tsv has one line per run: name, start and end (Unix seconds), wall seconds, CPU
seconds (user + system), peak RSS in MB, and the tool's own count of pages. Each
access-log line belongs to the run whose [start, end] holds its `ts` (the request's
arrival). Prints a Markdown table, one row per run: the run's own figures, then from the
log: requests, robots.txt requests, 200 responses other than robots.txt, distinct HTML
URLs answered 200 (the recorded Content-Type is text/html or application/xhtml+xml),
and HTML pages/s and MB/s (distinct pages' bodies) over the wall time; then the active
time (from the run's first request to its last, in the log: a tool's start-up and its
wait for the last timeouts left out) and HTML pages/s over it. The WARC is read
independently of the replay (tests/tools/warc_extract.py).
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'tools'))
import warc_extract  # noqa: E402


def html_urls(warc):
    out = set()
    for url, block in warc_extract.index(warc).items():
        status, _, h, _ = warc_extract.split_http(block)
        ctype = h.get('content-type', '').lower()
        if status == 200 and ('text/html' in ctype or 'application/xhtml+xml' in ctype):
            out.add(url)
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    warc, log, runs_path = sys.argv[1:]
    html = html_urls(warc)
    runs = []
    with open(runs_path) as f:
        for line in f:
            name, t0, t1, secs, cpu, rss, own = line.rstrip('\n').split('\t')
            runs.append({'name': name, 't0': float(t0), 't1': float(t1), 'secs': float(secs),
                         'cpu': float(cpu), 'rss': float(rss), 'own': own,
                         'req': 0, 'robots': 0, 'ok': 0, 'urls': set(), 'bytes': 0,
                         'first': None, 'last': None})
    with open(log) as f:
        for line in f:
            d = json.loads(line)
            run = next((r for r in runs if r['t0'] <= d['ts'] <= r['t1']), None)
            if run is None:
                continue
            run['req'] += 1
            run['first'] = d['ts'] if run['first'] is None else min(run['first'], d['ts'])
            run['last'] = d['ts'] if run['last'] is None else max(run['last'], d['ts'])
            if d['url'].endswith('/robots.txt'):
                run['robots'] += 1
                continue
            if d['status'] != 200:
                continue
            run['ok'] += 1
            if d['url'] in html and d['url'] not in run['urls']:
                run['urls'].add(d['url'])
                run['bytes'] += d['bytes']
    print('The web: %d HTML pages (200, text/html) in %s.\n' % (len(html), os.path.basename(warc)))
    print('| run | wall s | CPU s | peak RSS MB | own count | requests | robots.txt | 200 (not robots) '
          '| HTML 200, distinct | HTML MB | pages/s | MB/s | active s | pages/s active |')
    print('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|')
    for r in runs:
        active = r['last'] - r['first'] if r['first'] is not None else 0.0
        print('| %s | %.1f | %.1f | %.0f | %s | %d | %d | %d | %d | %.1f | %.0f | %.2f | %.1f | %s |' % (
            r['name'], r['secs'], r['cpu'], r['rss'], r['own'], r['req'], r['robots'], r['ok'],
            len(r['urls']), r['bytes'] / 1e6, len(r['urls']) / r['secs'], r['bytes'] / 1e6 / r['secs'],
            active, '%.0f' % (len(r['urls']) / active) if active > 0 else '-'))


if __name__ == '__main__':
    main()
