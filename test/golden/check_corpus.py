#!/usr/bin/env python3
"""Checks one malformed input of test/parse-errors/:
1. `tirlower --verify-diagnostics FILE` exits 0: exactly the expected diagnostics appear;
2. `tirlower FILE -o out.tir` exits 1, prints nothing on stdout and creates no out.tir.

    check_corpus.py --tirlower BIN FILE
"""
import argparse
import os
import subprocess
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tirlower", required=True)
    parser.add_argument("file")
    args = parser.parse_args()
    tirlower, path = os.path.abspath(args.tirlower), os.path.abspath(args.file)
    ok = True
    verify = subprocess.run([tirlower, "--verify-diagnostics", path], capture_output=True, timeout=60)
    if verify.returncode != 0:
        print(f"--verify-diagnostics exited with {verify.returncode}, expected 0")
        sys.stdout.write(verify.stderr.decode("utf-8", "replace"))
        ok = False
    with tempfile.TemporaryDirectory(prefix="tirlower-corpus-") as cwd:
        plain = subprocess.run([tirlower, path, "-o", "out.tir"], cwd=cwd, capture_output=True, timeout=60)
        if plain.returncode != 1:
            print(f"`tirlower FILE -o out.tir` exited with {plain.returncode}, expected 1")
            ok = False
        if os.listdir(cwd):
            print(f"an error run left files behind: {os.listdir(cwd)}")
            ok = False
        if plain.stdout:
            print("an error run wrote to stdout")
            ok = False
        if not plain.stderr:
            print("an error run printed no diagnostic")
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
