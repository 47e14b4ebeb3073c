#!/usr/bin/env python3
"""A link flood (issue 29): one WARC record that replaces the homepage of a topic's
first relevant training website with the same page plus LINKS links to HOSTS made-up
websites (http://flood-N.invalid/..., which the replay answers as unknown hosts).
Served first (`sitescout replay --warc flood.warc.gz --warc dev.warc.gz`), it stands
for the original page.

usage: flood_web.py WARC JOBS.json TOPIC OUT.warc.gz [LINKS [HOSTS]]
Prints the flooded URL. Uses ../shared/tools/webtools.py (SITESCOUT_SHARED)."""
import gzip
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
shared = os.environ.get('SITESCOUT_SHARED', os.path.join(here, '..', '..', 'shared'))
sys.path.insert(0, os.path.join(shared, 'tools'))
import webtools  # noqa: E402


def main():
    warc, jobs, topic, out = sys.argv[1:5]
    links = int(sys.argv[5]) if len(sys.argv) > 5 else 60000
    hosts = int(sys.argv[6]) if len(sys.argv) > 6 else 2000
    home = json.load(open(jobs))[topic]['relevant_sites'][0]
    arc = webtools.Archive(warc)
    url, status, headers, body = arc.fetch(home)
    if status != 200:
        sys.exit('flood_web.py: %s answers %s, not a page' % (home, status))
    flood = ''.join('<a href="http://flood-%d.invalid/p%d.html">more %d</a>\n' % (i % hosts, i, i)
                    for i in range(links)).encode()
    at = body.lower().rfind(b'</body>')
    body = body[:at] + flood + body[at:] if at >= 0 else body + flood
    keep = {k: v for k, v in headers.items()
            if k not in ('content-length', 'transfer-encoding', 'content-encoding')}
    head = 'HTTP/1.1 200 OK\r\n' + ''.join('%s: %s\r\n' % kv for kv in keep.items())
    block = head.encode('latin-1') + b'Content-Length: %d\r\n\r\n' % len(body) + body
    rec = ('WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: %s\r\n'
           'WARC-Date: 2004-06-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-00000000f100>\r\n'
           'Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n'
           % (url, len(block))).encode() + block + b'\r\n\r\n'
    with open(out, 'wb') as f:
        f.write(gzip.compress(rec, mtime=0))
    print(url)


if __name__ == '__main__':
    main()
