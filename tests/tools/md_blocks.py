#!/usr/bin/env python3
"""Print the Nth (1-based) ```sh code block of a Markdown file, as written.

Usage: md_blocks.py FILE N        (N = 0 prints how many there are)
tests/integration/examples.sh runs the examples of README.md and docs/*.md with it.
"""
import sys


def sh_blocks(text):
    blocks, cur = [], None
    for line in text.splitlines():
        if cur is None and line.strip() == "```sh":
            cur = []
        elif cur is not None and line.strip() == "```":
            blocks.append("\n".join(cur) + "\n")
            cur = None
        elif cur is not None:
            cur.append(line)
    return blocks


def main():
    blocks = sh_blocks(open(sys.argv[1], encoding="utf-8").read())
    n = int(sys.argv[2])
    if n == 0:
        print(len(blocks))
    elif 1 <= n <= len(blocks):
        sys.stdout.write(blocks[n - 1])
    else:
        sys.exit("md_blocks.py: %s has %d sh blocks, not %d" % (sys.argv[1], len(blocks), n))


if __name__ == "__main__":
    main()
