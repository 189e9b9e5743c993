#!/usr/bin/env python3
"""check_file_length.py flags a lib/ file over the limit, a pending one that grew and a stale
entry, and accepts the rest.

    check_file_length_selftest.py CHECKER
"""
import os
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


def main():
    checker = sys.argv[1]
    sys.path.insert(0, os.path.dirname(os.path.abspath(checker)))
    import check_file_length  # noqa: E402
    pending = sorted(check_file_length.SPLIT_PENDING.items())
    with tempfile.TemporaryDirectory() as root:
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
