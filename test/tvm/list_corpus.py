#!/usr/bin/env python3
"""Lists the TVM corpus test cases, one per operator: NAME, a tab, and its stage files (the
stages of operators that have recorded outputs: NAME.out.json, or NAME.KEY.out.json per run of
a function over symbolic extents), space-separated."""
import glob
import os
import sys

STAGES = ("block", "low", "flat")


def main():
    corpus = sys.argv[1]
    cases = {}
    for path in sorted(glob.glob(os.path.join(corpus, "*.tir"))):
        parts = os.path.basename(path).split(".")
        if len(parts) != 3 or parts[1] not in STAGES:
            continue
        if not (os.path.exists(os.path.join(corpus, parts[0] + ".out.json")) or
                glob.glob(os.path.join(glob.escape(corpus), glob.escape(parts[0]) + ".*.out.json"))):
            continue
        cases.setdefault(parts[0], []).append(path)
    for name, files in sorted(cases.items()):
        print(name + "\t" + " ".join(files))


if __name__ == "__main__":
    main()
