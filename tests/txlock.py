#!/usr/bin/env python3
"""The lock order of store/'s transactions (docs/testing.md, "House rules"): every
transaction takes its job's row first, so that two transactions on one job never hold
each other's rows (a running job's batch, a label, a judging, seeds, a delete: all four
deadlocks once seen in postgres.log were two of them taking rows in opposite orders).

A transaction is a callback given to store_tx or store_tx_idempotent, or a store_pipeline
batch. Its first SQL (following the calls it makes to functions of the same file before
any SQL) must be JOB_LOCK or lock the jobs row by id (FROM jobs WHERE id = $1 ... FOR
[NO KEY] UPDATE); a pipeline's calls[0] must be JOB_LOCK.

Usage: tests/txlock.py [FILE.c ...] (default: store/*.c but store.c, which defines
them). Prints one "ok"/"not ok" line per transaction; exit 1 when one breaks the rule.
"""
import glob
import os
import re
import sys

JOB_ROW = re.compile(r"FROM jobs WHERE id = \$1\b.*\bFOR (NO KEY )?UPDATE\b")
SQL_WORD = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b")
TX_CALL = re.compile(r"\bstore_tx(?:_idempotent)?\s*\(\s*\w+\s*,\s*(\w+)\s*,")
PIPELINE = re.compile(r"\bstore_pipeline\s*\(")


def strip_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: " " * len(m.group(0)), text, flags=re.S)


def functions(text):
    """name -> body text of every function defined at the top level of the file."""
    out = {}
    for m in re.finditer(r"^(?:static\s+)?[\w\s\*]+?\b(\w+)\s*\([^;{]*\)\s*\{", text, re.M):
        depth, i = 0, m.end() - 1
        while i < len(text):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
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
        if callee in funcs:
            inner = first_sql(callee, funcs, seen + (name,))
            if inner is not None:
                return inner
    return None


def check(path, shown_path):
    text = strip_comments(open(path, encoding="utf-8").read())
    funcs = functions(text)
    results = []
    for name, body in funcs.items():
        for m in TX_CALL.finditer(body):
            tx = m.group(1)
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
    paths = argv[1:] or sorted(p for p in glob.glob(os.path.join(root, "store", "*.c"))
                               if os.path.basename(p) != "store.c")
    failed, n = 0, 0
    for p in paths:
        for good, line in check(p, os.path.relpath(p, root)):
            n += 1
            print(("ok - " if good else "not ok - ") + line)
            failed |= not good
    if n == 0:
        print("not ok - no transaction found: the checker reads nothing")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
