#!/usr/bin/env python3
"""dump_pages.py - dump the BFS page texts of a test web's sites as TSV for cls_bench.

A measurement aid only (Python 3 standard library): the real crawler extracts text
with crawler/html.c. For each target topic of PREFIX.jobs.json it writes
OUTDIR/PREFIX_BASENAME.TOPIC.tsv with one line per page, in BFS order per site:

    split <TAB> class <TAB> host <TAB> text

split is `train` (the job's relevant_sites and other_sites, first --train-pages pages)
or `test` (sites whose role for the topic is `test`, first --test-pages pages); class is
0 (target: the site's topic is the job's topic) or 1 (other). Text is the title plus
the visible text, whitespace collapsed (no TAB or newline).

The BFS mimics the crawler: start at http://host/, follow only same-host links
(a/area href, frame/iframe src, meta refresh), follow redirects within the host,
honour robots.txt Disallow for User-agent *, skip non-HTML responses.

Usage: dump_pages.py PREFIX OUTDIR [--train-pages 25] [--test-pages 7] [--topic T ...]
"""
import argparse
import collections
import html.parser
import json
import os
import re
import sys
import urllib.parse
import zlib


def iter_records(path):
    """Yield the uncompressed bytes of every gzip member (one WARC record each)."""
    data = open(path, 'rb').read()
    mv = memoryview(data)
    off, n = 0, len(data)
    while off < n:
        d = zlib.decompressobj(31)
        out, pos = [], off
        while not d.eof:
            chunk = mv[pos:pos + 65536]
            if not chunk:
                raise ValueError('truncated gzip member at %d' % off)
            out.append(d.decompress(chunk))
            pos += len(chunk)
        off = pos - len(d.unused_data)
        yield b''.join(out)


def norm(url):
    """Lower-case host, no :80, no fragment, '/' for an empty path; None if not http."""
    try:
        sp = urllib.parse.urlsplit(url.strip())
        if sp.scheme.lower() != 'http':
            return None
        port = sp.port
    except ValueError:
        return None
    host = (sp.hostname or '').lower()
    netloc = host if port in (None, 80) else '%s:%d' % (host, port)
    return urllib.parse.urlunsplit(('http', netloc, sp.path or '/', sp.query, ''))


def load_archive(path):
    """url -> (status, lower-case headers, body) for every response record."""
    recs = {}
    for raw in iter_records(path):
        i = raw.find(b'\r\n\r\n')
        head = raw[:i].decode('utf-8', 'replace').split('\r\n')
        hdr = dict(line.split(':', 1) for line in head[1:] if ':' in line)
        hdr = {k.strip(): v.strip() for k, v in hdr.items()}
        if hdr.get('WARC-Type') != 'response':
            continue
        block = raw[i + 4:i + 4 + int(hdr['Content-Length'])]
        j = block.find(b'\r\n\r\n')
        lines = block[:j].decode('latin-1').split('\r\n')
        status = int(lines[0].split()[1])
        h = {}
        for line in lines[1:]:
            k, _, v = line.partition(':')
            h[k.strip().lower()] = v.strip()
        url = norm(hdr['WARC-Target-URI'])
        if url:
            recs[url] = (status, h, block[j + 4:])
    return recs


def robots_disallows(recs, host):
    r = recs.get('http://%s/robots.txt' % host)
    if not r or r[0] != 200:
        return []
    rules, active, in_group = [], False, False
    for line in r[2].decode('latin-1').split('\n'):
        line = line.split('#', 1)[0].strip()
        if not line:
            continue
        k, _, v = line.partition(':')
        k, v = k.strip().lower(), v.strip()
        if k == 'user-agent':
            if not in_group:
                active = False
            in_group = True
            active = active or v == '*'
        else:
            in_group = False
            if k == 'disallow' and active and v:
                rules.append(v)
    return rules


def decode(headers, body):
    m = re.search(r'charset=([\w-]+)', headers.get('content-type', ''), re.I)
    if not m:
        m = re.search(rb'<meta[^>]+charset=["\']?([\w-]+)', body[:2048], re.I)
    cs = (m.group(1).decode('ascii') if isinstance(m.group(1), bytes) else m.group(1)) if m else 'utf-8'
    try:
        return body.decode(cs)
    except (LookupError, UnicodeDecodeError):
        return body.decode('latin-1')


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links, self.text, self.title = [], [], ''
        self.base, self.skip, self.in_title = None, 0, False

    def handle_starttag(self, tag, attrs):
        a = {k: v for k, v in attrs if v is not None}
        if tag in ('a', 'area') and 'href' in a:
            self.links.append(a['href'])
        elif tag in ('frame', 'iframe') and 'src' in a:
            self.links.append(a['src'])
        elif tag == 'meta' and a.get('http-equiv', '').lower() == 'refresh':
            m = re.search(r'url\s*=\s*["\']?([^"\'>\s]+)', a.get('content', ''), re.I)
            if m:
                self.links.append(m.group(1))
        elif tag == 'img' and a.get('alt'):
            self.text.append(a['alt'])
        elif tag == 'base' and 'href' in a:
            self.base = a['href']
        elif tag in ('script', 'style'):
            self.skip += 1
        elif tag == 'title':
            self.in_title = True

    def handle_endtag(self, tag):
        if tag in ('script', 'style') and self.skip:
            self.skip -= 1
        elif tag == 'title':
            self.in_title = False

    def handle_data(self, data):
        if self.skip:
            return
        if self.in_title:
            self.title += data
        else:
            self.text.append(data)


def parse(url, headers, body):
    p = Page()
    try:
        p.feed(decode(headers, body))
        p.close()
    except Exception:  # html.parser is lenient; a broken page still gives what it read
        pass
    base = urllib.parse.urljoin(url, p.base) if p.base else url
    links = []
    for href in p.links:
        href = href.strip()
        if not href or href.startswith('#') or href.lower().startswith(('javascript:', 'mailto:')):
            continue
        u = norm(urllib.parse.urljoin(base, href))
        if u:
            links.append(u)
    text = re.sub(r'[\s\x00]+', ' ', p.title + ' ' + ' '.join(p.text)).strip()
    return text, links


def bfs(recs, host, limit):
    """Texts of the first `limit` HTML pages of a BFS from http://host/."""
    rules = robots_disallows(recs, host)
    home = 'http://%s/' % host
    seen, queue, out, done = {home}, collections.deque([home]), [], set()
    while queue and len(out) < limit:
        url = queue.popleft()
        for _ in range(6):  # follow redirects within the host
            sp = urllib.parse.urlsplit(url)
            path = sp.path + ('?' + sp.query if sp.query else '')
            if any(path.startswith(r) for r in rules):
                url = None
                break
            r = recs.get(url)
            if r and r[0] in (301, 302, 303, 307, 308) and 'location' in r[1]:
                nxt = norm(urllib.parse.urljoin(url, r[1]['location']))
                if not nxt or urllib.parse.urlsplit(nxt).netloc != host:
                    url = None
                    break
                url = nxt
                continue
            break
        if not url or url in done:
            continue
        r = recs.get(url)
        if not r or r[0] != 200 or not r[1].get('content-type', '').lower().startswith('text/html'):
            continue
        done.add(url)
        seen.add(url)
        text, links = parse(url, r[1], r[2])
        out.append(text)
        for u in links:
            if urllib.parse.urlsplit(u).netloc == host and u not in seen:
                seen.add(u)
                queue.append(u)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('prefix')
    ap.add_argument('outdir')
    ap.add_argument('--train-pages', type=int, default=25)
    ap.add_argument('--test-pages', type=int, default=7)
    ap.add_argument('--topic', action='append')
    a = ap.parse_args()

    recs = load_archive(a.prefix + '.warc.gz')
    with open(a.prefix + '.sites.tsv', encoding='utf-8') as f:
        cols = f.readline().rstrip('\n').split('\t')
        sites = [dict(zip(cols, line.rstrip('\n').split('\t'))) for line in f]
    topic_of = {s['host']: s['topic'] for s in sites}
    jobs = json.load(open(a.prefix + '.jobs.json'))
    cache = {}

    def pages(host, n):
        if host not in cache:
            cache[host] = bfs(recs, host, max(a.test_pages, a.train_pages))
        # A site without any HTML page still counts: one empty page (no evidence).
        return cache[host][:n] or ['']

    os.makedirs(a.outdir, exist_ok=True)
    for topic in a.topic or list(jobs):
        job = jobs[topic]
        rows = []
        for key in ('relevant_sites', 'other_sites'):
            for u in job[key]:
                host = urllib.parse.urlsplit(u).netloc
                rows += [('train', 0 if key == 'relevant_sites' else 1, host, t)
                         for t in pages(host, a.train_pages)]
        for s in sites:
            role = dict(x.split(':', 1) for x in s['role'].split(';'))[topic]
            if role == 'test':
                rows += [('test', 0 if topic_of[s['host']] == topic else 1, s['host'], t)
                         for t in pages(s['host'], a.test_pages)]
        out = os.path.join(a.outdir, '%s.%s.tsv' % (os.path.basename(a.prefix), topic))
        with open(out, 'w', encoding='utf-8') as f:
            for r in rows:
                f.write('%s\t%d\t%s\t%s\n' % r)
        print('%s: %d pages' % (out, len(rows)), file=sys.stderr)


if __name__ == '__main__':
    main()
