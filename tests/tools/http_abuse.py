#!/usr/bin/env python3
"""Hostile HTTP clients for tests/integration/abuse.sh (issue 16).

  http_abuse.py raw HOST:PORT BYTES [--wait S]
      Send BYTES (Python escapes: \\r\\n, \\xff) and print what comes back as one JSON
      line: {"closed": true/false, "seconds": S, "status": 413 or null, "body": "..."},
      where closed says whether the server closed the connection within S seconds
      (default 5) and seconds how long it took.

  http_abuse.py flood HOST:PORT --source ADDR --conns N --out FILE [--seconds S]
      Open N connections from ADDR, each sending the start of a request head and never
      its end. Once the server has settled (no connection closed for 1 s), write
      "held H refused R" to FILE: H connections still open, R closed by the server.
      Then send one more byte of header on every held connection each second, as a
      slowloris does, and after S seconds at most (default 30) or once all are closed,
      append "cut C of H" (C: held connections the server closed) and exit.

  http_abuse.py smuggle HOST:PORT
      Request smuggling on a kept-alive connection (issue 29): for each case, one
      connection sends a good request, then a request with a framing fault (two
      Content-Length fields that differ, a target with a space, ...), then GET
      /api/smuggled. Prints a line a case, "NAME: ANSWERS smuggled yes/no" (each answer's
      status, with ":CODE" for a JSON error body, in order), then "smuggled S of N": S answers to /api/smuggled (its
      404 names the path), which a server that checks every head never gives.
"""
import argparse
import json
import re
import socket
import sys
import time

HEAD = b"GET /api/health HTTP/1.1\r\nHost: x\r\n"


def closed_by_peer(s):
    """True when the server closed s (EOF or reset); never blocks. What the server sent
    before closing (a 408 at the deadline, say) is read and dropped."""
    try:
        while True:
            if s.recv(65536, socket.MSG_DONTWAIT) == b"":
                return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def raw(args):
    host, port = args.addr.rsplit(":", 1)
    data = args.bytes.encode("latin-1").decode("unicode_escape").encode("latin-1")
    s = socket.create_connection((host, int(port)))
    s.settimeout(args.wait)
    t0 = time.monotonic()
    s.sendall(data)
    got, closed = b"", False
    try:
        while True:
            b = s.recv(65536)
            if not b:
                closed = True
                break
            got += b
    except socket.timeout:
        pass
    except ConnectionResetError:
        closed = True
    head, _, body = got.partition(b"\r\n\r\n")
    status = None
    if head.startswith(b"HTTP/"):
        status = int(head.split(b" ")[1])
    print(json.dumps({"closed": closed, "seconds": round(time.monotonic() - t0, 2),
                      "status": status, "body": body.decode("utf-8", "replace"),
                      "answers": got.count(b"HTTP/1.1 ") + got.count(b"HTTP/1.0 ")}))


def flood(args):
    host, port = args.addr.rsplit(":", 1)
    socks = []
    for _ in range(args.conns):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind((args.source, 0))
        s.connect((host, int(port)))
        try:
            s.sendall(HEAD)
        except OSError:
            pass  # already closed by the server: counted below
        socks.append(s)
    t0 = time.monotonic()
    closed, last_change = 0, time.monotonic()
    while time.monotonic() - last_change < 1 and time.monotonic() - t0 < 10:
        time.sleep(0.1)
        now = sum(closed_by_peer(s) for s in socks)
        if now != closed:
            closed, last_change = now, time.monotonic()
    held = [s for s in socks if not closed_by_peer(s)]
    with open(args.out, "w") as f:
        f.write("held %d refused %d\n" % (len(held), len(socks) - len(held)))
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        still = [s for s in held if not closed_by_peer(s)]
        if not still:
            break
        for s in still:
            try:
                s.sendall(b"X")  # one more byte of a header name: the head never ends
            except OSError:
                pass
        time.sleep(1)
    cut = sum(closed_by_peer(s) for s in held)
    with open(args.out, "a") as f:
        f.write("cut %d of %d\n" % (cut, len(held)))


GOOD = b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n"
SMUGGLED = b"GET /api/smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
POST = b"POST /api/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
# name, the faulty request (the smuggled one follows it)
SMUGGLE_CASES = [
    ("two Content-Length, the shorter first",
     POST + b"Content-Length: 2\r\nContent-Length: %d\r\n\r\n{}" % (2 + len(SMUGGLED))),
    ("two Content-Length, the longer first",
     POST + b"Content-Length: %d\r\nContent-Length: 2\r\n\r\n{}" % (2 + len(SMUGGLED))),
    ("Content-Length beside Transfer-Encoding",
     POST + b"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}"),
    ("a target with a space", b"GET /api/health x HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("a target with a tab", b"GET /api/health\tx HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("a space before the colon",
     POST + b"Content-Length : 2\r\n\r\n{}"),
    ("a Content-Length that is not a number",
     POST + b"Content-Length: 2, 2\r\n\r\n{}"),
    ("two Host fields", b"GET /api/health HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n"),
    ("two Authorization fields",
     b"GET /api/health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\n"
     b"Authorization: Bearer b\r\n\r\n"),
]


def exchange(addr, data, wait=5):
    """Send data on one connection; what came back until the server closed or wait s."""
    host, port = addr.rsplit(":", 1)
    s = socket.create_connection((host, int(port)))
    s.settimeout(wait)
    s.sendall(data)
    got = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            got += b
    except (socket.timeout, ConnectionResetError):
        pass
    s.close()
    return got


def answers(got):
    """The answers in got, in order: "STATUS" or, for a JSON error, "STATUS:CODE"."""
    out = []
    while got.startswith(b"HTTP/"):
        head, sep, rest = got.partition(b"\r\n\r\n")
        if not sep:
            break
        m = re.search(rb"(?im)^content-length: *(\d+)", head)
        n = int(m.group(1)) if m else len(rest)
        body, got = rest[:n], rest[n:]
        what = head.split(b" ")[1].decode()
        try:
            what += ":" + json.loads(body)["error"]["code"]
        except (ValueError, KeyError, TypeError):
            pass
        out.append(what)
    return out


def smuggle(args):
    through = 0
    for name, bad in SMUGGLE_CASES:
        got = exchange(args.addr, GOOD + bad + SMUGGLED)
        hit = b"/api/smuggled" in got
        through += hit
        print("%s: %s smuggled %s" % (name, " ".join(answers(got)) or "none",
                                      "yes" if hit else "no"))
    print("smuggled %d of %d" % (through, len(SMUGGLE_CASES)))


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("raw")
    r.add_argument("addr")
    r.add_argument("bytes")
    r.add_argument("--wait", type=float, default=5)
    f = sub.add_parser("flood")
    f.add_argument("addr")
    f.add_argument("--source", required=True)
    f.add_argument("--conns", type=int, required=True)
    f.add_argument("--out", required=True)
    f.add_argument("--seconds", type=float, default=30)
    m = sub.add_parser("smuggle")
    m.add_argument("addr")
    args = p.parse_args()
    {"raw": raw, "flood": flood, "smuggle": smuggle}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
