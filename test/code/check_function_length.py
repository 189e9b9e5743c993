#!/usr/bin/env python3
"""No function in lib/ or tools/ is longer than 80 lines, unless it says why.

    check_function_length.py [--max N] [--list] DIR...

Lists every function definition under DIR (.cpp and .h files) whose body (opening brace to
closing brace) is longer than N lines (default 80). Such a function passes only when a comment
directly above its signature, or in the signature, reads `// long-function: <reason>` with a
reason of at least three words. Exit 1 when one has no reason, 0 otherwise. --list prints every
function over the limit with its length, reasoned or not.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cxx_source  # noqa: E402

REASON = re.compile(r"//\s*long-function:\s*(.*)")


def reason_of(lines, fn):
    comment = cxx_source.comment_above(lines, fn)
    for k, line in enumerate(comment):
        m = REASON.search(line)
        if m:
            # The reason may continue on the following comment lines.
            words = m.group(1).split()
            for more in comment[k + 1:]:
                if not more.strip().startswith("//"):
                    break
                words += more.strip()[2:].split()
            return " ".join(words) if len(words) >= 3 else None
    return None


def sources(dirs):
    for top in dirs:
        for root, subdirs, files in os.walk(top):
            subdirs.sort()
            for name in sorted(files):
                if name.endswith((".cpp", ".h")):
                    yield os.path.join(root, name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max", type=int, default=80)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    unexplained = []
    explained = 0
    for path in sources(args.dirs):
        text = open(path, encoding="utf-8").read()
        lines = text.split("\n")
        for fn in cxx_source.functions(path, text):
            if fn.length <= args.max:
                continue
            reason = reason_of(lines, fn)
            where = f"{path}:{fn.start_line}: {fn.name} is {fn.length} lines"
            if reason:
                explained += 1
                if args.list:
                    print(f"{where} (long-function: {reason})")
            else:
                unexplained.append(where)
                print(f"{where}, over {args.max}: split it into named steps, or say why it "
                      f"stands with a '// long-function: <reason>' comment above it")
    print(f"{len(unexplained)} function(s) over {args.max} lines without a reason, "
          f"{explained} with one")
    sys.exit(1 if unexplained else 0)


if __name__ == "__main__":
    main()
