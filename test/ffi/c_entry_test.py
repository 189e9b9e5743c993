#!/usr/bin/env python3
"""The TVM FFI entry from C: writes test/ffi/kernels.tir as C with --abi=tvm-ffi (or, with
--target llvm, as an object), compiles a test program (c_entry_test.c, or the one --program
names) against it with -Wall -Wextra -Werror and runs it (hand-built DLTensors, no Python and
no tvm-ffi in the program). With --sanitize, the program and the C are built with
AddressSanitizer and UndefinedBehaviorSanitizer when the compiler has them (each report fails).

Usage: c_entry_test.py --tirlower BUILD/tools/tirlower/tirlower [--target c|llvm] [--cc CC]
                       [--program FILE.c] [--sanitize] [-- PROGRAM ARGS...]
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
    parser.add_argument("--program", default=os.path.join(HERE, "c_entry_test.c"))
    parser.add_argument("--sanitize", action="store_true")
    parser.add_argument("program_args", nargs="*")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tirlower-ffi-c-") as scratch:
        kernels = os.path.join(scratch, "kernels.c" if args.target == "c" else "kernels.o")
        flags = []
        if args.sanitize:
            probe = os.path.join(scratch, "probe.c")
            with open(probe, "w") as f:
                f.write("int main(void) { return 0; }\n")
            sanitizers = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-g"]
            if subprocess.run(args.cc.split() + sanitizers + [probe, "-o", probe + ".out"],
                              capture_output=True).returncode == 0:
                flags = sanitizers
            else:
                print("note: the compiler has no AddressSanitizer; running without it")
        program = os.path.join(scratch, "test_program")
        steps = [
            [args.tirlower, os.path.join(HERE, "kernels.tir"), f"--target={args.target}", "--abi=tvm-ffi", "-o",
             kernels],
            args.cc.split() + ["-std=c11", "-O1", "-Wall", "-Wextra", "-Werror"] + flags +
            [args.program, kernels, "-lm", "-o", program],
            [program] + args.program_args,
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
