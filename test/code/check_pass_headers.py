#!/usr/bin/env python3
"""Every registered pass's file opens with what the pass does, its preconditions and a tiny
before/after example (the model: lib/transform/flatten.cpp).

    check_pass_headers.py GENERATOR TRANSFORM_DIR

GENERATOR prints the registry's pass reference (test/docs/pass_reference); each registered pass
must have exactly one file in TRANSFORM_DIR that declares `info.name = "<pass>"`, and that
file's opening comment must
  - begin with `// <pass>:` (or `// <pass> (aliases: ...):`), then say what it does;
  - hold a line `// Preconditions: ...`;
  - show an example: a line with `->` between the before and after columns, or `before:` and
    `after:` lines.
"""
import os
import re
import subprocess
import sys


def opening_comment(text):
    lines = []
    for line in text.split("\n"):
        if not line.startswith("//"):
            break
        lines.append(line)
    return lines


def problems_of(name, comment):
    found = []
    if not comment or not re.match(r"// %s(:| \(aliases)" % re.escape(name), comment[0]):
        found.append(f"does not begin with '// {name}: <what it does>'")
    if not any(line.startswith("// Preconditions:") for line in comment):
        found.append("has no '// Preconditions:' line")
    text = "\n".join(comment)
    if "->" not in text and not ("before:" in text and "after:" in text):
        found.append("has no before/after example")
    return found


def main():
    generator, transform = sys.argv[1], sys.argv[2]
    reference = subprocess.run([generator], check=True, capture_output=True, text=True).stdout
    registered = re.findall(r"^\| `([^`]+)` \|", reference.split("## Target pipelines")[0], re.M)
    if not registered:
        print("check_pass_headers: the generator lists no pass", file=sys.stderr)
        sys.exit(1)
    files = {}
    for name in sorted(os.listdir(transform)):
        if name.endswith(".cpp"):
            text = open(os.path.join(transform, name), encoding="utf-8").read()
            for declared in re.findall(r'info\.name = "([^"]+)";', text):
                files.setdefault(declared, []).append((name, text))
    failures = []
    for name in registered:
        homes = files.get(name, [])
        if len(homes) != 1:
            failures.append(f"pass '{name}' is declared in {len(homes)} files of {transform}, not one")
            continue
        path, text = homes[0]
        failures += [f"{path} (pass '{name}') {p}" for p in problems_of(name, opening_comment(text))]
    for failure in failures:
        print(f"check_pass_headers: {failure}", file=sys.stderr)
    if failures:
        sys.exit(1)
    print(f"{len(registered)} pass files open with what the pass does, its preconditions and an example")


if __name__ == "__main__":
    main()
