#!/usr/bin/env python3
"""Independent politeness check of a crawl, from the replay server's access log.

usage: check_access_log.py ACCESS_LOG WARC [--delay-ms N] [--slack-ms 5] [--agent sitescout]

Reads robots.txt records straight from the WARC (standard library only) and checks:
  * no URL a host's robots.txt disallows for the agent was requested;
  * robots.txt was requested before any other URL of its host;
  * requests to one host never overlapped (one connection per host), and
    consecutive ones were at least --delay-ms apart.
Prints one line per violation and exits 1 if there is any.
"""
import argparse
import gzip
import json
import sys
import urllib.robotparser
from urllib.parse import urlsplit


def warc_robots(path):
    """Map host -> robots.txt body (bytes) for every 200 robots.txt response."""
    out = {}
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    for rec in data.split(b"WARC/1.1\r\n")[1:]:
        head, _, block = rec.partition(b"\r\n\r\n")
        fields = dict(
            line.split(b": ", 1) for line in head.split(b"\r\n") if b": " in line)
        uri = fields.get(b"WARC-Target-URI", b"").decode("latin-1")
        if fields.get(b"WARC-Type") != b"response" or not uri.endswith("/robots.txt"):
            continue
        status_line, _, rest = block.partition(b"\r\n")
        if b" 200 " not in status_line + b" ":
            continue
        _, _, body = rest.partition(b"\r\n\r\n")
        out[urlsplit(uri).netloc.lower()] = body
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("warc")
    ap.add_argument("--delay-ms", type=float, default=0)
    ap.add_argument("--agent", default="sitescout")
    # The replay stamps a response's end when its event loop gets to it after the last
    # write: on a loaded machine that can be a few ms late, which shortens the gap seen.
    ap.add_argument("--slack-ms", type=float, default=5)
    a = ap.parse_args()

    robots = {}
    for host, body in warc_robots(a.warc).items():
        rp = urllib.robotparser.RobotFileParser()
        rp.parse(body.decode("utf-8", "replace").splitlines())
        robots[host] = rp

    # Lines are written as responses end; with one connection per host that is also
    # the order in which a host's requests started, whatever the clock resolution, but
    # for a response the client left mid-way (fault "hangup": a non-HTML body it stopped
    # reading, a timeout), which the replay logs when it notices, later than the client
    # went on. "ts" is the request's arrival, "ms" how long the response took.
    by_host = {}
    with open(a.log) as f:
        for line in f:
            e = json.loads(line)
            if e["method"] == "CONNECT":
                continue  # an https tunnel the replay web refuses: not a page request
            host = urlsplit(e["url"]).netloc.lower()
            start = e["ts"]  # when the request arrived
            end = start + e["ms"] / 1000.0
            if "hangup" in (e.get("fault") or ""):
                end = None  # the client left earlier; when, the replay cannot tell
            by_host.setdefault(host, []).append((start, end, e["url"]))

    bad = 0
    requests = 0
    for host, reqs in by_host.items():
        reqs.sort(key=lambda r: r[0])  # in the order they arrived (log order but hang-ups)
        requests += len(reqs)
        if not reqs[0][2].endswith("/robots.txt"):
            print(f"{host}: first request was {reqs[0][2]}, not robots.txt")
            bad += 1
        rp = robots.get(host)
        for _, _, url in reqs:
            if rp and not url.endswith("/robots.txt") and not rp.can_fetch(a.agent, url):
                print(f"{host}: fetched {url}, which robots.txt disallows")
                bad += 1
        for (s1, e1, u1), (s2, e2, u2) in zip(reqs, reqs[1:]):
            if e1 is None:
                continue  # left by the client: its end is not known
            # Slack for clock reads on both sides of the proxy.
            if s2 < e1 - a.slack_ms / 1000:
                print(f"{host}: {u2} started before {u1} ended (two connections)")
                bad += 1
            elif a.delay_ms and (s2 - e1) * 1000 < a.delay_ms - a.slack_ms:
                print(f"{host}: only {(s2 - e1) * 1000:.0f} ms between {u1} and {u2}")
                bad += 1
    print(f"checked {requests} requests on {len(by_host)} hosts: {bad} violations")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
