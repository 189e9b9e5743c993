#!/usr/bin/env python3
"""Runs one function of a .tir file for several values of its symbolic size through the
reference interpreter (`tirlower run`, the function as read) and through `--target=opencl` on
PoCL (ocl_runner, with the launch sizes --emit=launch gives), and compares every buffer.
Buffers get deterministic values (element k of the p-th buffer: ((7 k + 3 p) % 23) / 4 - 2).
    opencl_vs_interpreter.py TIRLOWER OCL_RUNNER FILE FUNC SIZE=V [SIZE=V ...]
Prints one line per value: `n=V: N buffers match`, the first mismatches (exit 1), or that there
is no OpenCL device (ocl_runner's exit 77)."""
import json
import os
import subprocess
import sys
import tempfile


def main():
    tirlower, runner, path, func = sys.argv[1:5]
    sizes = [arg.split("=", 1) for arg in sys.argv[5:]]
    with tempfile.TemporaryDirectory(prefix="ocl-vs-interp-") as work:
        return run(tirlower, runner, path, func, sizes, work)


def run(tirlower, runner, path, func, sizes, work):
    cl = os.path.join(work, "k.cl")
    subprocess.run([tirlower, path, "--target=opencl", "-o", cl], check=True)
    launch = json.loads(subprocess.run([tirlower, path, "--target=opencl", "--emit=launch", "-o", "-"], check=True,
                                       capture_output=True, text=True).stdout)
    kernel = next(k for k in launch["kernels"] if k["function"] == func)
    failed = False
    for name, value in sizes:
        scalars = {name: int(value)}
        buffers = {}
        for p, arg in enumerate(kernel["args"]):
            if arg["kind"] == "buffer":
                count = arg["elements"] if isinstance(arg["elements"], int) else int(value)
                buffers[arg["name"]] = {"dtype": arg["dtype"], "shape": [count],
                                        "data": [((7 * k + 3 * p) % 23) / 4 - 2 for k in range(count)]}
        inputs = os.path.join(work, "in.json")
        with open(inputs, "w") as f:
            json.dump({"buffers": buffers, "scalars": scalars}, f)
        expected = json.loads(subprocess.run([tirlower, "run", path, "--func", func, "--inputs", inputs, "-o", "-"],
                                             check=True, capture_output=True, text=True).stdout)["buffers"]
        args = []
        for arg in kernel["args"]:
            if arg["kind"] == "buffer":
                args.append({"buffer": arg["dtype"], "data": buffers[arg["name"]]["data"]})
            else:
                args.append({"scalar": arg["dtype"], "value": scalars[arg["name"]], "name": arg["name"]})
        described = os.path.join(work, "args.json")
        with open(described, "w") as f:
            json.dump({"kernel": kernel["kernel"], "global": kernel["global"], "local": kernel["local"], "args": args}, f)
        out = os.path.join(work, "out.json")
        status = subprocess.run([runner, cl, described, out]).returncode
        if status == 77:
            print(f"{name}={value}: no OpenCL device (skipped)")
            continue
        if status != 0:
            print(f"{name}={value}: ocl_runner exits {status}")
            failed = True
            continue
        actual = json.load(open(out))["args"]
        bad = []
        for arg, got in zip(kernel["args"], actual):
            if arg["kind"] != "buffer":
                continue
            want = expected[arg["name"]]["data"]
            for k, (g, w) in enumerate(zip(got["data"], want)):
                if w is not None and abs(g - w) > 1e-5 * max(1.0, abs(w)):
                    bad.append(f"{arg['name']}[{k}] is {g}, the interpreter's {w}")
        print(f"{name}={value}: " + ("; ".join(bad[:3]) if bad else f"{len(expected)} buffers match"))
        failed |= bool(bad)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
