#!/usr/bin/env python3
"""check_ir_names.py flags an IR name spelled outside its home and accepts one with a reason.

    check_ir_names_selftest.py CHECKER
"""
import os
import subprocess
import sys
import tempfile

SOURCE = '''// a comment naming "thread_extent" is not code
#include "ir/attrs.h"
bool launch(std::string_view key) { return key == "thread_extent"; }
bool shared(std::string_view s) { return s == "shared.dyn"; }
// ir-names: a JSON member, not the attribute
const char *member = "global_symbol";
const char *message = "run thread_extent first";
int a = 1;
int b = 2;
bool noalias(const Attrs &a) { return a.find("tirx.noalias"); }
bool shuffle(const Call &c) { return c.op == "tvm_warp_shuffle_down"; }
'''


def main():
    checker = sys.argv[1]
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "lib", "x"))
        os.makedirs(os.path.join(root, "tools"))
        with open(os.path.join(root, "lib", "x", "f.cpp"), "w") as f:
            f.write(SOURCE)
        run = subprocess.run([sys.executable, checker, root], capture_output=True, text=True)
    flagged = sorted((line.split(": the IR name")[0] for line in run.stderr.splitlines() if "the IR name" in line), key=lambda w: int(w.rsplit(":", 1)[1]))
    expected = [os.path.join("lib", "x", "f.cpp") + f":{n}" for n in (3, 4, 10, 11)]
    if run.returncode != 1 or flagged != expected:
        print(f"expected exit 1 flagging {expected}; got exit {run.returncode} flagging {flagged}\n{run.stderr}")
        sys.exit(1)
    print("check_ir_names flags the four names outside their homes and accepts the reasoned one")


if __name__ == "__main__":
    main()
