#!/usr/bin/env python3
"""Independent check of the WARC files `sitescout crawl --warc-dir` wrote (standard library only).

usage: check_warc_capture.py DIR PREFIX ACCESS_LOG OUT_URLS

Reads every DIR/PREFIX-NNNNN.warc.gz and checks:
  * no file is left as .open, the numbers run 00000, 00001, ... without a gap;
  * each gzip member holds exactly one WARC/1.1 record, the first of a file a warcinfo
    naming the file;
  * each record's Content-Length is its block's; WARC-Block-Digest (and for responses
    WARC-Payload-Digest) are the sha1 base32 of the block (of the body after the HTTP head);
  * each response names a request record of its file in WARC-Concurrent-To, which names it back;
  * the response records are the replay web's answers: one per line of its access log,
    URL for URL, but for its 502s (an unknown host: the proxy's word that the name does
    not resolve, no answer of the site, so nothing to archive).
Writes the response records' target URIs, one per line, to OUT_URLS and prints
"files=N responses=N requests=N robots=N" on success; a line per problem and exit 1 else.
"""
import base64
import collections
import hashlib
import json
import os
import re
import sys
import zlib


def label(data):
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


def members(data):
    """The inflated gzip members of data, one by one."""
    while data:
        d = zlib.decompressobj(wbits=31)
        out = d.decompress(data)
        if not d.eof:
            raise ValueError("a gzip member is cut short")
        yield out
        data = d.unused_data


def parse(rec):
    head, sep, rest = rec.partition(b"\r\n\r\n")
    if not sep or not head.startswith(b"WARC/1.1\r\n"):
        raise ValueError("not a WARC/1.1 record")
    fields = {}
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.decode().partition(": ")
        fields[k] = v
    n = int(fields["Content-Length"])
    if len(rest) != n + 4 or rest[n:] != b"\r\n\r\n":
        raise ValueError("the block is not Content-Length long, or more than one record in a member")
    return fields, rest[:n]


def main():
    wdir, prefix, access_log, out_urls = sys.argv[1:5]
    problems = []
    names = sorted(os.listdir(wdir))
    if any(n.endswith(".open") for n in names):
        problems.append("files left .open: %s" % names)
    files = [n for n in names if re.fullmatch(re.escape(prefix) + r"-\d{5}\.warc\.gz", n)]
    if [int(n[-13:-8]) for n in files] != list(range(len(files))):
        problems.append("file numbers are not 0..%d: %s" % (len(files) - 1, files))
    responses, requests, robots = [], 0, 0
    for name in files:
        with open(os.path.join(wdir, name), "rb") as f:
            data = f.read()
        recs = []
        try:
            for m in members(data):
                recs.append(parse(m))
        except (ValueError, zlib.error, KeyError) as e:
            problems.append("%s: %s" % (name, e))
            continue
        if not recs or recs[0][0].get("WARC-Type") != "warcinfo" or recs[0][0].get("WARC-Filename") != name:
            problems.append("%s: does not start with its warcinfo" % name)
        by_id = {f["WARC-Record-ID"]: f for f, _ in recs}
        for f, block in recs:
            if f.get("WARC-Block-Digest", label(block)) != label(block):
                problems.append("%s: %s: wrong block digest" % (name, f["WARC-Record-ID"]))
            t = f["WARC-Type"]
            if t == "request":
                requests += 1
                if f.get("Content-Type") != "application/http;msgtype=request":
                    problems.append("%s: request with Content-Type %s" % (name, f.get("Content-Type")))
            elif t == "response":
                uri = f["WARC-Target-URI"]
                responses.append(uri)
                robots += uri.endswith("/robots.txt")
                body = block.partition(b"\r\n\r\n")[2]
                if f.get("WARC-Payload-Digest") != label(body):
                    problems.append("%s: %s: wrong payload digest" % (name, uri))
                if f.get("Content-Type") != "application/http;msgtype=response":
                    problems.append("%s: response with Content-Type %s" % (name, f.get("Content-Type")))
                req = by_id.get(f.get("WARC-Concurrent-To"))
                if not req or req["WARC-Type"] != "request" or \
                        req.get("WARC-Concurrent-To") != f["WARC-Record-ID"] or \
                        req["WARC-Target-URI"] != uri:
                    problems.append("%s: %s: no request record linked to it" % (name, uri))
                if not block.startswith(b"HTTP/1."):
                    problems.append("%s: %s: the block is not an HTTP response" % (name, uri))
    served = []
    with open(access_log) as f:
        for line in f:
            entry = json.loads(line)
            if entry["status"] != 502:
                served.append(entry["url"])
    if collections.Counter(served) != collections.Counter(responses):
        a, b = collections.Counter(served), collections.Counter(responses)
        problems.append("responses served but not archived: %s; archived but not served: %s"
                        % (list((a - b).items())[:5], list((b - a).items())[:5]))
    with open(out_urls, "w") as f:
        f.write("".join(u + "\n" for u in sorted(set(responses))))
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print("files=%d responses=%d requests=%d robots=%d" % (len(files), len(responses), requests, robots))


main()
