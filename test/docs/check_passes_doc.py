#!/usr/bin/env python3
"""docs/passes.md against the registry.

    check_passes_doc.py GENERATOR PAGE [--update]

GENERATOR prints the pass reference (the passes' names, aliases, summaries, typed options,
contracts and the targets' pipelines, from lib/transform). The page must hold exactly that
text between its BEGIN/END markers, and its hand-written section "What each pass does" must
describe exactly the registered passes, in registry order. --update rewrites the generated
part of the page (after a change to a PassInfo or a target pipeline).
"""
import re
import subprocess
import sys

BEGIN = "<!-- BEGIN pass reference"
END = "<!-- END pass reference -->"
HAND = "## What each pass does"


def fail(message):
    print(f"check_passes_doc: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--update"):
        fail("usage: check_passes_doc.py GENERATOR PAGE [--update]")
    generator, page = sys.argv[1], sys.argv[2]
    generated = subprocess.run([generator], check=True, capture_output=True, text=True).stdout
    text = open(page, encoding="utf-8").read()
    start = text.find(BEGIN)
    end = text.find(END)
    if start < 0 or end < start:
        fail(f"{page}: no '{BEGIN} ...' ... '{END}' markers")
    body_start = text.index("\n", start) + 1
    if len(sys.argv) == 4:
        with open(page, "w", encoding="utf-8") as f:
            f.write(text[:body_start] + generated + text[end:])
        print(f"updated {page}")
        return
    committed = text[body_start:end]
    if committed != generated:
        import difflib
        diff = "".join(difflib.unified_diff(committed.splitlines(True), generated.splitlines(True),
                                            "committed", "registry"))
        fail(f"{page} differs from the registry (run this script with --update):\n{diff}")
    registered = re.findall(r"^\| `([^`]+)` \|", generated.split("## Target pipelines")[0], re.M)
    hand = text.find(HAND)
    if hand < 0:
        fail(f"{page}: no section '{HAND}'")
    section = text[hand:].split("\n## ", 1)[0]
    described = re.findall(r"^\| `([^`]+)` \|", section, re.M)
    if described != registered:
        fail(f"{page}: '{HAND}' describes {described}, the registry has {registered} (in this order)")
    print(f"{page}: {len(registered)} passes agree with the registry")


if __name__ == "__main__":
    main()
