#!/usr/bin/env python3
"""warc_extract.py - an independent WARC reader for the replay tests (standard library only).

  warc_extract.py WARC list             URL <TAB> status of every response record
  warc_extract.py WARC get URL          the record's HTTP block, raw, on stdout
  warc_extract.py WARC dump URLS DIR    for line i of the file URLS: DIR/i.status,
                                        DIR/i.head (the raw head), DIR/i.body; or
                                        DIR/i.missing when there is no record
  warc_extract.py WARC check PROXY      fetch every response record through the proxy
                                        (host:port) over keep-alive connections and
                                        compare status, body and the headers that
                                        matter; exit 1 on any difference

It does not share code with the C reader, so the tests compare two readings. The
first record of a URL wins, as in `sitescout replay`.
"""
import http.client
import sys
import urllib.parse
import zlib


def uncompressed(path):
    """The whole uncompressed record stream of a .warc or (multi-member) .warc.gz."""
    data = open(path, 'rb').read()
    if data[:2] != b'\x1f\x8b':
        return data
    mv, out, off = memoryview(data), [], 0
    while off < len(data):
        d, pos = zlib.decompressobj(31), off
        while not d.eof:  # feed small chunks: unused_data stays small
            chunk = mv[pos:pos + 65536]
            if not chunk:
                raise SystemExit('%s: truncated gzip member at offset %d' % (path, off))
            out.append(d.decompress(chunk))
            pos += len(chunk)
        off = pos - len(d.unused_data)
    return b''.join(out)


def records(path):
    """Yield (WARC headers dict, block) for every record."""
    s, i = uncompressed(path), 0
    while True:
        while i < len(s) and s[i:i + 1] in (b'\r', b'\n'):
            i += 1
        if i >= len(s):
            return
        end = s.find(b'\r\n\r\n', i)
        if end < 0 or not s.startswith(b'WARC/', i):
            raise SystemExit('%s: bad record at uncompressed offset %d' % (path, i))
        hdr = {}
        for line in s[i:end].decode('utf-8', 'replace').split('\r\n')[1:]:
            k, _, v = line.partition(':')
            hdr[k.strip().lower()] = v.strip()
        n = int(hdr['content-length'])
        yield hdr, s[end + 4:end + 4 + n]
        i = end + 4 + n


def norm(url):
    """Scheme/host in lower case, no default port, no fragment, '/' for an empty path."""
    sp = urllib.parse.urlsplit(url.strip().strip('<>'))
    scheme = sp.scheme.lower()
    host = (sp.hostname or '').lower()
    default = {'http': 80, 'https': 443}.get(scheme)
    netloc = host if sp.port in (None, default) else '%s:%d' % (host, sp.port)
    return urllib.parse.urlunsplit((scheme, netloc, sp.path or '/', sp.query, ''))


def index(path):
    """url -> HTTP block of the first response record for it, in file order."""
    out = {}
    for hdr, block in records(path):
        if hdr.get('warc-type') != 'response':
            continue
        url = hdr.get('warc-target-uri', '')
        if not url.lower().startswith(('http://', 'https://')):
            continue
        out.setdefault(norm(url), block)
    return out


def split_http(block):
    """-> (status, head bytes, headers dict with lower-case names, body)."""
    i = block.find(b'\r\n\r\n')
    head, body = block[:i + 4], block[i + 4:]
    lines = head.decode('latin-1').split('\r\n')
    status = int(lines[0].split()[1])
    h = {}
    for line in lines[1:]:
        k, sep, v = line.partition(':')
        if sep:
            h[k.strip().lower()] = v.strip()
    return status, head, h, body


# Headers a replay must pass on as recorded (hop-by-hop ones are the proxy's own).
KEEP = ('content-type', 'location', 'last-modified', 'server', 'date')


def check(path, proxy):
    arc = index(path)
    host, _, port = proxy.rpartition(':')
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    bad = 0
    for n, (url, block) in enumerate(arc.items()):
        status, _, h, body = split_http(block)
        for attempt in range(2):
            try:
                conn.request('GET', url)
                r = conn.getresponse()
                got = r.read()
                break
            except (http.client.HTTPException, ConnectionError):
                conn.close()  # the server closed it (e.g. after a chunked record): reconnect
                conn = http.client.HTTPConnection(host, int(port), timeout=30)
        problems = []
        if r.status != status:
            problems.append('status %d, recorded %d' % (r.status, status))
        if got != body:
            problems.append('body differs (%d bytes, recorded %d)' % (len(got), len(body)))
        for k in KEEP:
            if k in h and r.getheader(k) != h[k]:
                problems.append('%s %r, recorded %r' % (k, r.getheader(k), h[k]))
        if problems:
            bad += 1
            if bad <= 10:
                print('%s: %s' % (url, '; '.join(problems)))
    print('checked %d records, %d differ' % (len(arc), bad))
    return 1 if bad else 0


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    path, cmd = argv[1], argv[2]
    if cmd == 'list':
        for url, block in index(path).items():
            print('%s\t%d' % (url, split_http(block)[0]))
    elif cmd == 'get':
        block = index(path).get(norm(argv[3]))
        if block is None:
            raise SystemExit('no record for %s' % argv[3])
        sys.stdout.buffer.write(block)
    elif cmd == 'dump':
        arc = index(path)
        for i, url in enumerate(open(argv[3]).read().split()):
            base = '%s/%d' % (argv[4], i)
            block = arc.get(norm(url))
            if block is None:
                open(base + '.missing', 'w').close()
                continue
            status, head, _, body = split_http(block)
            open(base + '.status', 'w').write('%d\n' % status)
            open(base + '.head', 'wb').write(head)
            open(base + '.body', 'wb').write(body)
    elif cmd == 'check':
        return check(path, argv[3])
    else:
        raise SystemExit(__doc__)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
