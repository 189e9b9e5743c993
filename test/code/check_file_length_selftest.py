#!/usr/bin/env python3
"""check_file_length.py flags a lib/ file over the limit, a pending one that grew and a stale
entry, and accepts the rest.

    check_file_length_selftest.py CHECKER
"""
import os
import re
import subprocess
import sys
import tempfile


def write(root, path, lines):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write("int x;\n" * lines)


def run(checker, root):
    result = subprocess.run([sys.executable, checker, "--max", "10", root], capture_output=True, text=True)
    return result.returncode, sorted(line.split(":")[0] for line in result.stderr.splitlines())


# The checker runs with a list of its own: the real one shrinks to nothing as files are split.
PENDING = {"lib/codegen/pending_a.cpp": 20, "lib/parse/pending_b.cpp": 30}


def checker_with_fixture_list(checker, directory):
    """A copy of the checker whose SPLIT_PENDING is PENDING."""
    with open(checker, encoding="utf-8") as f:
        text = f.read()
    match = re.search(r"^SPLIT_PENDING = \{(?:\}|.*?^\})$", text, re.M | re.S)
    if not match:
        print("the checker has no SPLIT_PENDING = {...} block to replace")
        sys.exit(1)
    text = text[:match.start()] + "SPLIT_PENDING = " + repr(PENDING) + text[match.end():]
    copy = os.path.join(directory, "check_file_length.py")
    with open(copy, "w", encoding="utf-8") as f:
        f.write(text)
    return copy


def main():
    pending = sorted(PENDING.items())
    with tempfile.TemporaryDirectory() as scratch, tempfile.TemporaryDirectory() as root:
        checker = checker_with_fixture_list(sys.argv[1], scratch)
        # Every pending file at its recorded length, and short files: accepted.
        for path, allowed in pending:
            write(root, path, allowed)
        write(root, "lib/ir/short.cpp", 10)
        write(root, "tools/tirlower/long.cpp", 50)  # outside lib/: not checked
        code, flagged = run(checker, root)
        if code != 0 or flagged:
            print(f"expected exit 0 with nothing flagged; got exit {code} flagging {flagged}")
            sys.exit(1)
        # A new long file, a pending one that grew, a pending one split below the limit.
        write(root, "lib/ir/long.h", 11)
        write(root, pending[0][0], pending[0][1] + 1)
        write(root, pending[1][0], 10)
        code, flagged = run(checker, root)
        expected = sorted(["lib/ir/long.h", pending[0][0], pending[1][0]])
        if code != 1 or flagged != expected:
            print(f"expected exit 1 flagging {expected}; got exit {code} flagging {flagged}")
            sys.exit(1)
    print("check_file_length flags a new long file, a pending one that grew and a stale entry")


if __name__ == "__main__":
    main()
