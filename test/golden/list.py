#!/usr/bin/env python3
"""Lists test inputs for meson (one path per line, relative to the listed folder, sorted).
    list.py golden          test/golden/**/*.tir
    list.py parse-errors    test/parse-errors/*.tir
"""
import os
import sys

TEST_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    which = sys.argv[1]
    root = os.path.join(TEST_DIR, which)
    found = []
    if os.path.isdir(root):
        for directory, _, files in os.walk(root):
            for name in files:
                if name.endswith(".tir"):
                    found.append(os.path.relpath(os.path.join(directory, name), root))
    for path in sorted(found):
        print(path)


if __name__ == "__main__":
    main()
