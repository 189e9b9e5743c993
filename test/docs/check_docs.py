#!/usr/bin/env python3
"""The documentation stands on its own: every relative link in README.md and docs/*.md names a
file of the repository, no page sends the reader outside it (`../shared/...`), every page of
docs/ is reachable from README.md through links, and the pages speak of the product, not of how
it was developed: no numbered work sessions, tracker issues or commit hashes (a figure carries
its date and machine instead). Prints each problem; exit 1 if any.
    check_docs.py REPO_ROOT"""
import os
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
OUTSIDE = re.compile(r"\.\./shared/|\.\./\.\./")
# "session 12", "session-11's", "issue 15", "(issue 15 item 2)", "`b409e18`", "commit 755f257".
DEVELOPMENT_LOG = re.compile(r"\bsessions? ?-?\d+|\bissues? #?\d+|\bitem \d+ of|"
                             r"`(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}`|"
                             r"\bcommits? (?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b", re.IGNORECASE)


def pages(root):
    found = [os.path.join(root, "README.md")]
    docs = os.path.join(root, "docs")
    found += sorted(os.path.join(docs, n) for n in os.listdir(docs) if n.endswith(".md"))
    return found


def main():
    root = os.path.realpath(sys.argv[1])
    problems, edges = [], {}
    for page in pages(root):
        rel = os.path.relpath(page, root)
        edges[page] = set()
        with open(page, encoding="utf-8") as f:
            fenced = False
            for number, line in enumerate(f, 1):
                if line.lstrip().startswith("```"):
                    fenced = not fenced
                if fenced:
                    continue
                line = re.sub(r"`[^`]*`", lambda m: "" if LINK.search(m.group(0)) else m.group(0), line)
                log = DEVELOPMENT_LOG.search(line)
                if log:
                    problems.append(f"{rel}:{number}: a development-log reference ('{log.group(0)}'); say what the "
                                    "product does, and give figures their date and machine")
                if OUTSIDE.search(line):
                    problems.append(f"{rel}:{number}: refers to a path outside the repository: {line.strip()}")
                for target in LINK.findall(line):
                    if re.match(r"[a-z]+:", target) or target.startswith("#"):
                        continue  # a URL or an anchor in the same page
                    path = os.path.realpath(os.path.join(os.path.dirname(page), target.split("#")[0]))
                    if not path.startswith(root + os.sep):
                        problems.append(f"{rel}:{number}: link leaves the repository: {target}")
                    elif not os.path.exists(path):
                        problems.append(f"{rel}:{number}: broken link: {target}")
                    else:
                        edges[page].add(path)
    reached, todo = set(), [os.path.join(root, "README.md")]
    while todo:
        page = todo.pop()
        if page in reached:
            continue
        reached.add(page)
        todo.extend(p for p in edges.get(page, ()) if p.endswith(".md"))
    for page in edges:
        if page not in reached:
            problems.append(f"{os.path.relpath(page, root)}: no link leads here from README.md")
    for p in problems:
        print(p)
    print(f"{len(edges)} pages, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
