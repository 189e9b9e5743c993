#!/usr/bin/env python3
"""Kind switches stand only in lib/ir's functors, or say why they stand.

    check_kind_switches.py ROOT

Every `switch (... kind())` in ROOT/lib and ROOT/tools outside lib/ir/functor.h (the one
dispatch the rest of the compiler goes through) must have a `// kind-switch: <reason>` comment
on one of the four lines above it (e.g. "a classification of four kinds, not a walk"). A tree
walk belongs in an ExprFunctor / StmtFunctor. Exit 1 when one has no reason.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cxx_source  # noqa: E402

SWITCH = re.compile(r"\bswitch\s*\([^;{]*\bkind\s*\(\s*\)")
EXEMPT = os.path.join("lib", "ir", "functor.h")


def main():
    root = sys.argv[1]
    missing, reasoned = [], 0
    for top in ("lib", "tools"):
        for folder, subdirs, files in os.walk(os.path.join(root, top)):
            subdirs.sort()
            for name in sorted(files):
                path = os.path.join(folder, name)
                if not name.endswith((".cpp", ".h")) or os.path.relpath(path, root) == EXEMPT:
                    continue
                text = open(path, encoding="utf-8").read()
                code, lines = cxx_source.blank(text), text.split("\n")
                for m in SWITCH.finditer(code):
                    line = code.count("\n", 0, m.start()) + 1
                    above = lines[max(0, line - 5):line - 1]
                    if any("// kind-switch:" in l for l in above):
                        reasoned += 1
                    else:
                        missing.append(f"{os.path.relpath(path, root)}:{line}")
    for where in missing:
        print(f"{where}: a switch over node kinds with no '// kind-switch: <reason>' comment above "
              f"it; walk the tree with an ExprFunctor/StmtFunctor (lib/ir/functor.h) instead",
              file=sys.stderr)
    print(f"{reasoned} kind switch(es) outside lib/ir/functor.h, each with its reason; {len(missing)} without")
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
