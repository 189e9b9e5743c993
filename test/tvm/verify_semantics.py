#!/usr/bin/env python3
"""--verify-semantics over the TVM corpus: every block-level, low-level and flat file TVM printed
goes through the C target's default pipeline with every pass checked against the function as
read, on random inputs (docs/cli.md). Fails on any semantic difference or error; functions whose
run on random inputs fails before any pass (a gather with random indices) are skipped by
tirlower with a warning, and counted here.

    verify_semantics.py --tirlower BIN CORPUS_DIR
"""
import argparse
import glob
import os
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tirlower", required=True)
    parser.add_argument("corpus")
    args = parser.parse_args()
    files = [p for p in sorted(glob.glob(os.path.join(args.corpus, "*.tir")))
             if os.path.basename(p).split(".")[1] in ("block", "low", "flat")]
    failures = skipped = 0
    for path in files:
        result = subprocess.run([args.tirlower, path, "--target=c", "--verify-semantics", "-o", os.devnull],
                                capture_output=True, text=True)
        if result.returncode != 0:
            failures += 1
            print(f"FAIL {os.path.basename(path)}\n{result.stderr}")
        elif "is not checked" in result.stderr:
            skipped += 1
            print(f"SKIP {os.path.basename(path)}: " + result.stderr.split("\n")[0].split("warning: ")[-1])
    print(f"verify-semantics: {len(files) - failures - skipped} checked, {skipped} skipped, {failures} failed "
          f"of {len(files)} files")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
