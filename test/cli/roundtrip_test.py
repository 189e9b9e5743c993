#!/usr/bin/env python3
"""print(parse(print(x))) == print(x) for every input of the project: each ir-sample, each
golden input that is meant to parse, and each golden expected output that is TIR. Runs
`tirlower FILE --verify-roundtrip` on each and reports every failure.

    roundtrip_test.py --tirlower BIN --root SOURCE_ROOT
"""
import argparse
import glob
import os
import subprocess
import sys


def meant_to_fail(text):
    # Goldens say so with --verify-diagnostics or `# EXIT:`, lit tests by running tirlower under `not`.
    return "--verify-diagnostics" in text or "# EXIT:" in text or "%not %tirlower" in text


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tirlower", required=True)
    parser.add_argument("--root", required=True)
    args = parser.parse_args()
    files = sorted(glob.glob(os.path.join(args.root, "ir-samples", "*.tir")))
    for path in sorted(glob.glob(os.path.join(args.root, "test", "**", "*.tir"), recursive=True)):
        # parse-errors: inputs meant to fail. tvm/conformance: TVM's pass tests as data, read by
        # the tvm-conformance test, whose list (docs/tvm-compatibility.md) names those not read.
        if "parse-errors" in path or os.path.join("tvm", "conformance") in path:
            continue
        with open(path, encoding="utf-8") as f:
            if not meant_to_fail(f.read()):
                files.append(path)
    for path in sorted(glob.glob(os.path.join(args.root, "test", "golden", "**", "*.expected"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        # One module per file: outputs of several RUN lines concatenated are not one input.
        if text.startswith("# from tvm.script import") and text.count("@T.prim_func") == len(
                set(line for line in text.splitlines() if line.startswith("def "))) and "# -----" not in text and "#include" not in text:
            files.append(path)
    failures = 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            split = "\n# -----" in f.read()
        command = [args.tirlower, path, "--verify-roundtrip", "--emit=tir", "-o", os.devnull]
        if split:
            command.append("--split-input-file")
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            failures += 1
            print(f"FAIL {os.path.relpath(path, args.root)}\n{result.stderr}")
    print(f"round trip: {len(files) - failures} of {len(files)} files stable")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
