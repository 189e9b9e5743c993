#!/usr/bin/env python3
"""The TVM FFI entry from C: writes test/ffi/kernels.tir as C with --abi=tvm-ffi (or, with
--target llvm, as an object), compiles c_entry_test.c against it with -Wall -Wextra -Werror and
runs it (hand-built DLTensors, no Python and no tvm-ffi in the program).

Usage: c_entry_test.py --tirlower BUILD/tools/tirlower/tirlower [--target c|llvm] [--cc CC]
"""

import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tirlower", required=True)
    parser.add_argument("--target", default="c")
    parser.add_argument("--cc", default=os.environ.get("CC", "cc"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tirlower-ffi-c-") as scratch:
        kernels = os.path.join(scratch, "kernels.c" if args.target == "c" else "kernels.o")
        steps = [
            [args.tirlower, os.path.join(HERE, "kernels.tir"), f"--target={args.target}", "--abi=tvm-ffi", "-o",
             kernels],
            args.cc.split() + ["-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", os.path.join(HERE, "c_entry_test.c"),
                               kernels, "-lm", "-o", os.path.join(scratch, "c_entry_test")],
            [os.path.join(scratch, "c_entry_test")],
        ]
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True)
            sys.stdout.write(done.stdout + done.stderr)
            if done.returncode != 0:
                print(f"FAIL: {' '.join(step)} exited with status {done.returncode}")
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
