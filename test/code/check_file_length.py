#!/usr/bin/env python3
"""No file in lib/ is longer than 600 lines: a longer file holds more than one idea, to be split.

    check_file_length.py [--max N] [--list] ROOT

Counts the lines of every .cpp and .h file under ROOT/lib. A file over N lines (default 600)
fails, unless it is one of SPLIT_PENDING, the files that were already longer when the check
came: each of those may keep its length but not grow, and leaves the list once it is split
(an entry for a file that is now within the limit, or that is gone, fails too, so the list only
shrinks). Exit 1 on any failure, naming the file and its length. --list prints every file over
the limit.
"""
import argparse
import os
import sys

# file (relative to ROOT) -> the most lines it may have until it is split.
SPLIT_PENDING = {
    "lib/codegen/tir_script_printer.cpp": 890,
    "lib/parse/lexer.cpp": 870,
}


def line_count(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return sum(1 for _ in f)


def lengths(root):
    for top, subdirs, files in os.walk(os.path.join(root, "lib")):
        subdirs.sort()
        for name in sorted(files):
            if name.endswith((".cpp", ".h")):
                path = os.path.join(top, name)
                yield os.path.relpath(path, root), line_count(path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max", type=int, default=600)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("root")
    args = parser.parse_args()
    failures = []
    seen = {}
    for path, count in lengths(args.root):
        seen[path] = count
        if count <= args.max:
            continue
        if args.list:
            print(f"{path}: {count} lines")
        allowed = SPLIT_PENDING.get(path)
        if allowed is None:
            failures.append(f"{path}: {count} lines, more than {args.max}: split it by idea")
        elif count > allowed:
            failures.append(f"{path}: {count} lines, more than the {allowed} it had before it was to be split: "
                            "split it instead of growing it")
    for path, allowed in SPLIT_PENDING.items():
        if path not in seen:
            failures.append(f"{path}: listed in SPLIT_PENDING but gone: remove the entry")
        elif seen[path] <= args.max:
            failures.append(f"{path}: {seen[path]} lines, within {args.max} now: remove its SPLIT_PENDING entry")
    for failure in failures:
        print(failure, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
