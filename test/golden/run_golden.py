#!/usr/bin/env python3
"""Golden-test runner for tirlower.

Each test/golden/**/*.tir file states its command lines:
    # RUN: tirlower %s --pass=flatten
    # EXIT: 1            (optional: expected exit status of every RUN, default 0)
`%s` is the test file; `tirlower` is the binary under test. The stdout of the RUN lines
without --verify-diagnostics, concatenated, must equal the sibling file NAME.expected byte
for byte, after each occurrence of the test file's absolute path (JSON locations) is written
as `%s`, so that the expected output does not depend on where the checkout is. A RUN with --verify-diagnostics passes when it exits with the expected status.

    run_golden.py --tirlower BIN [--update] FILE...
--update rewrites the .expected files instead of comparing.
"""
import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys
import tempfile

RUN_RE = re.compile(r"^\s*#\s*RUN:\s?(.*)$")
EXIT_RE = re.compile(r"^\s*#\s*EXIT:\s*(\d+)\s*$")


def read_directives(path):
    runs, exit_code, pending = [], 0, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = RUN_RE.match(line)
            if m:
                text = m.group(1).rstrip()
                pending = text if pending is None else pending + " " + text
                if pending.endswith("\\"):
                    pending = pending[:-1]
                    continue
                runs.append(pending.strip())
                pending = None
                continue
            m = EXIT_RE.match(line)
            if m:
                exit_code = int(m.group(1))
    if pending is not None:
        runs.append(pending.strip())
    return runs, exit_code


def expected_path(path):
    return os.path.splitext(path)[0] + ".expected"


def run_one(tirlower, path, command, cwd):
    args = shlex.split(command.replace("%s", shlex.quote(os.path.abspath(path))))
    if not args or args[0] != "tirlower":
        raise ValueError("RUN line must start with 'tirlower': " + command)
    args[0] = tirlower
    return subprocess.run(args, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, timeout=120)


def check_file(tirlower, path, update):
    runs, want_exit = read_directives(path)
    if not runs:
        print(f"{path}: no '# RUN:' line")
        return False
    ok, output, compares = True, b"", False
    with tempfile.TemporaryDirectory(prefix="tirlower-golden-") as cwd:
        for command in runs:
            result = run_one(tirlower, path, command, cwd)
            verify = "--verify-diagnostics" in shlex.split(command)
            if result.returncode != want_exit:
                print(f"{path}: `{command}` exited with {result.returncode}, expected {want_exit}")
                sys.stdout.write(result.stderr.decode("utf-8", "replace"))
                ok = False
            if not verify:
                compares = True
                output += result.stdout.replace(os.path.abspath(path).encode("utf-8"), b"%s")
    if not compares:
        return ok
    expected_file = expected_path(path)
    if update:
        if ok:
            with open(expected_file, "wb") as f:
                f.write(output)
        return ok
    try:
        with open(expected_file, "rb") as f:
            expected = f.read()
    except FileNotFoundError:
        print(f"{path}: missing {expected_file} (run scripts/update-goldens)")
        return False
    if expected != output:
        diff = difflib.unified_diff(
            expected.decode("utf-8", "replace").splitlines(keepends=True),
            output.decode("utf-8", "replace").splitlines(keepends=True),
            fromfile=expected_file, tofile="actual output")
        print(f"{path}: output differs from {expected_file}")
        sys.stdout.writelines(diff)
        return False
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tirlower", required=True)
    parser.add_argument("--update", action="store_true")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    tirlower = os.path.abspath(args.tirlower)
    failed = [f for f in args.files if not check_file(tirlower, f, args.update)]
    if failed:
        print(f"{len(failed)} of {len(args.files)} golden files failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
