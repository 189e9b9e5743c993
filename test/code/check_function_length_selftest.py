#!/usr/bin/env python3
"""check_function_length.py on fixtures/long_functions.cpp: it flags the functions over 80 lines
without a reason (or with one too short to be a reason), passes the one with a reason and the
one of exactly 80 lines, and is not misled by braces in constructors' initializer lists,
strings or tables.

    check_function_length_selftest.py CHECKER FIXTURE_DIR
"""
import re
import subprocess
import sys


def main():
    checker, fixtures = sys.argv[1], sys.argv[2]
    run = subprocess.run([sys.executable, checker, "--list", fixtures], capture_output=True, text=True)
    flagged = re.findall(r": (\w+) is \d+ lines, over 80", run.stdout)
    reasoned = re.findall(r": (\w+) is \d+ lines \(long-function:", run.stdout)
    problems = []
    if run.returncode != 1:
        problems.append(f"exit {run.returncode}, expected 1")
    if sorted(flagged) != ["reasonTooShort", "tooLongWithoutReason"]:
        problems.append(f"flagged {flagged}")
    if reasoned != ["tooLongWithReason"]:
        problems.append(f"accepted with a reason {reasoned}")
    if problems:
        print(run.stdout + run.stderr)
        print("check_function_length_selftest: " + "; ".join(problems), file=sys.stderr)
        sys.exit(1)
    print("the checker flags exactly the unexplained long functions of the fixture")


if __name__ == "__main__":
    main()
