#!/usr/bin/env python3
"""Lists the golden files the C differential test runs (one line each, tab-separated):
    RELATIVE-PATH <TAB> PIPELINE <TAB> 1 when the RUN line splits its input, else 0
A file qualifies when its first RUN line names a pipeline with `flatten` (so the module the
passes produce is flat, the C emitter's input) and uses no --verify-diagnostics; files whose
RUN line needs other flags (--layout, ...) are left out.
    list_cases.py GOLDEN-DIR
"""
import os
import re
import shlex
import sys

RUN_RE = re.compile(r"^\s*#\s*RUN:\s?(.*)$")
KNOWN_FLAGS = {"--split-input-file"}


def case(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = RUN_RE.match(line)
            if m:
                args = shlex.split(m.group(1))
                break
        else:
            return None
    pipeline, split = None, False
    for arg in args[2:]:
        if arg.startswith("--pass="):
            pipeline = arg[len("--pass="):]
        elif arg == "--split-input-file":
            split = True
        else:
            return None  # --verify-diagnostics, --layout=..., anything else
    if not pipeline or "flatten" not in [p.split("{")[0].strip() for p in pipeline.split(",")]:
        return None
    return pipeline, split


def main():
    root = sys.argv[1]
    found = []
    for directory, _, files in os.walk(root):
        for name in files:
            if name.endswith(".tir"):
                path = os.path.join(directory, name)
                c = case(path)
                if c:
                    found.append((os.path.relpath(path, root), c[0], "1" if c[1] else "0"))
    for rel, pipeline, split in sorted(found):
        print(f"{rel}\t{pipeline}\t{split}")


if __name__ == "__main__":
    main()
