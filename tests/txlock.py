#!/usr/bin/env python3
"""The lock order of store/'s transactions (docs/testing.md, "House rules"): every
transaction takes its job's row first, so that two transactions on one job never hold
each other's rows (a running job's batch, a label, a judging, seeds, a delete: all four
deadlocks once seen in postgres.log were two of them taking rows in opposite orders).

A transaction is a callback given to store_tx or store_tx_idempotent, or a store_pipeline
batch, anywhere in the C sources. Its first SQL (following the calls it makes to
functions of the same file before any SQL) must be JOB_LOCK or lock the jobs row by id
(FROM jobs WHERE id = $1 ... FOR [NO KEY] UPDATE); a pipeline's calls[0] must be
JOB_LOCK. LET_OFF names the transactions the rule does not apply to, with the reason; an
entry that no longer names a transaction fails too.

Usage: tests/txlock.py [FILE.c ...] (default: the C files of the source folders, but
store/store.c, which defines them). Prints one "ok"/"not ok" line per transaction; exit 1
when one breaks the rule.
"""
import glob
import os
import re
import sys

JOB_ROW = re.compile(r"FROM jobs WHERE id = \$1\b.*\bFOR (NO KEY )?UPDATE\b")
SQL_WORD = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b")
TX_CALL = re.compile(r"\bstore_tx(?:_idempotent)?\s*\(\s*[\w>.-]+\s*,\s*(\w+)\s*,")
KEYWORDS = {"if", "while", "for", "switch", "return", "sizeof", "do", "else"}
DIRS = ["common", "classifier", "crawler", "store", "replay", "job", "server", "eval", "cli",
        "bench"]
# (file, transaction): why the rule does not apply.
LET_OFF = {
    ("server/api.c", "create_tx"): "creates the job: there is no job row to take first",
}
PIPELINE = re.compile(r"\bstore_pipeline\s*\(")


def strip_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: " " * len(m.group(0)), text, flags=re.S)


def mask_literals(text):
    """text with the insides of its string and character literals blanked (same length):
    a brace in '{' or "}" is no block."""
    return re.sub(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'',
                  lambda m: m.group(0)[0] + " " * (len(m.group(0)) - 2) + m.group(0)[-1], text)


def functions(text):
    """name -> body text of every function defined at the top level of the file."""
    out = {}
    masked = mask_literals(text)
    for m in re.finditer(r"^(?:static\s+)?[\w\s\*]+?\b(\w+)\s*\([^;{]*\)\s*\{", masked, re.M):
        if m.group(1) in KEYWORDS:
            continue
        depth, i = 0, m.end() - 1
        while i < len(masked):
            if masked[i] == "{":
                depth += 1
            elif masked[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        out[m.group(1)] = text[m.end():i]
    return out


def first_sql(name, funcs, seen=()):
    """The first SQL of function name: JOB_LOCK, a statement's text, or None."""
    body = funcs.get(name)
    if body is None or name in seen:
        return None
    # Tokens in order: JOB_LOCK, string literals (adjacent ones joined), calls.
    token = re.compile(r'\bJOB_LOCK\b|(?:"(?:[^"\\]|\\.)*"\s*)+|\b(\w+)\s*\(')
    for m in token.finditer(body):
        t = m.group(0)
        if t == "JOB_LOCK":
            return "JOB_LOCK"
        if t.startswith('"'):
            sql = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', t))
            if SQL_WORD.match(sql):
                return sql
            continue
        callee = m.group(1)
        if callee in funcs and callee not in KEYWORDS:
            inner = first_sql(callee, funcs, seen + (name,))
            if inner is not None:
                return inner
    return None


def check(path, shown_path, let_off_seen):
    text = strip_comments(open(path, encoding="utf-8").read())
    funcs = functions(text)
    results = []
    for name, body in funcs.items():
        for m in TX_CALL.finditer(body):
            tx = m.group(1)
            if (shown_path, tx) in LET_OFF:
                let_off_seen.add((shown_path, tx))
                results.append((True, f"{shown_path}: {tx} let off: {LET_OFF[(shown_path, tx)]}"))
                continue
            sql = first_sql(tx, funcs)
            good = sql == "JOB_LOCK" or (sql is not None and JOB_ROW.search(sql))
            shown = sql if sql and len(sql) < 90 else (sql[:87] + "..." if sql else "no SQL found")
            results.append((good, f"{shown_path}: {tx} (store_tx in {name}): first {shown}"))
        if PIPELINE.search(body):
            good = re.search(r"calls\[0\]\s*=\s*\(struct store_call\)\s*\{\s*JOB_LOCK\b", body)
            results.append((bool(good), f"{shown_path}: the store_pipeline batch of {name}: calls[0] "
                            + ("is JOB_LOCK" if good else "is not JOB_LOCK")))
    return results


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    paths = argv[1:] or sorted(
        p for d in DIRS for p in glob.glob(os.path.join(root, d, "*.c"))
        if os.path.relpath(p, root) != os.path.join("store", "store.c"))
    failed, n, seen = 0, 0, set()
    for p in paths:
        for good, line in check(p, os.path.relpath(p, root), seen):
            n += 1
            print(("ok - " if good else "not ok - ") + line)
            failed |= not good
    for f, tx in sorted(set(LET_OFF) - seen) if not argv[1:] else []:
        print(f"not ok - {f}: {tx} is let off but is no transaction now; take it off LET_OFF")
        failed = 1
    if n == 0:
        print("not ok - no transaction found: the checker reads nothing")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
