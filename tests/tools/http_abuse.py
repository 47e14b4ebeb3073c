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
"""
import argparse
import json
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
    args = p.parse_args()
    raw(args) if args.cmd == "raw" else flood(args)


if __name__ == "__main__":
    sys.exit(main())
