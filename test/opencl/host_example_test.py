#!/usr/bin/env python3
"""Compiles the host program of docs/opencl-emitter.md ("Launching from a host program": the
c++ block after the marker comment, exactly as documented) and runs TVM GPU corpus files
through it on PoCL: tirlower writes the kernels (--target=opencl -o k.cl) and their launch
geometry (-o k.launch.json), the host launches them with it, and every buffer must match the
outputs TVM computed (the corpus's out.json, within its tolerance). The geometry in the JSON
must also be the one the comment above each kernel states. One case runs over a symbolic n:
its sizes are --emit=launch's expressions, which the host evaluates with in.json's scalars.
    host_example_test.py --tirlower BIN --root SOURCE-ROOT --workdir DIR
Exit status 77 (meson: skipped) when there is no OpenCL device."""
import argparse
import json
import math
import os
import re
import subprocess
import sys

MARKER = "<!-- host example: test/opencl/host_example_test.py compiles and runs this program -->"
# (file, data set): NAME.in.json / NAME.out.json, or NAME.KEY.in.json / NAME.KEY.out.json
CASES = [("gpu_matmul_shared.block.tir", ""), ("gpu_rowsum_crossthread.block.tir", ""),
         ("gpu_softmax_dlight.low.tir", ""), ("gpu_llama_fused_matmul_add.low.tir", ".n7")]


def documented_program(doc):
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    at = text.index(MARKER)
    m = re.compile(r"```c\+\+\n(.*?)```", re.S).search(text, at)
    return m.group(1)


def close(got, want, tolerance):
    if isinstance(want, str) or isinstance(got, str):
        return got == want
    if tolerance.get("kind") == "exact":
        return got == want
    return math.isclose(got, want, rel_tol=tolerance.get("rtol", 1e-5), abs_tol=tolerance.get("atol", 1e-5))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tirlower", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    source = os.path.join(args.workdir, "opencl_host.cpp")
    with open(source, "w", encoding="utf-8") as f:
        f.write(documented_program(os.path.join(args.root, "docs", "opencl-emitter.md")))
    host = os.path.join(args.workdir, "opencl_host")
    cc = subprocess.run(["c++", "-std=c++17", "-Wall", "-Wextra", "-Werror", source, "-lOpenCL", "-o", host],
                        capture_output=True, text=True)
    if cc.returncode != 0:
        print("the documented host program does not compile:\n" + cc.stderr)
        return 1
    corpus = os.path.join(args.root, "test", "tvm", "corpus-gpu")
    failures = 0
    for case, data in CASES:
        stem = case.split(".")[0]
        tir = os.path.join(corpus, case)
        cl, geometry = os.path.join(args.workdir, stem + ".cl"), os.path.join(args.workdir, stem + ".launch.json")
        out = os.path.join(args.workdir, stem + ".out.json")
        for path in (cl, geometry):
            r = subprocess.run([args.tirlower, tir, "--target=opencl", "-o", path], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"{case}: tirlower -o {os.path.basename(path)} failed:\n{r.stderr}")
                return 1
        with open(geometry) as f:
            launch = json.load(f)
        with open(cl) as f:
            kernels = f.read()
        for k in launch["kernels"]:
            if not all(isinstance(v, int) for v in k["global"] + k["groups"]):
                continue  # sizes over scalars: the comment writes them as text
            stated = "// launch %s: global {%s}, local {%s} (groups {%s})" % (
                k["kernel"], ", ".join(map(str, k["global"])), ", ".join(map(str, k["local"])),
                ", ".join(map(str, k["groups"])))
            if stated not in kernels:
                print(f"{case}: the launch JSON's geometry is not the kernel comment's: {stated}")
                failures += 1
        run = subprocess.run([host, cl, geometry, os.path.join(corpus, stem + data + ".in.json"), out],
                             capture_output=True, text=True)
        if run.returncode == 77:
            print("no OpenCL device: skipped")
            return 77
        if run.returncode != 0:
            print(f"{case}: the host program failed ({run.returncode}):\n{run.stderr}")
            failures += 1
            continue
        with open(out) as f:
            got = json.load(f)[launch["kernels"][0]["kernel"]]["buffers"]
        with open(os.path.join(corpus, stem + data + ".out.json")) as f:
            want = json.load(f)
        tolerance = want.get("tolerance", {"kind": "exact"})
        for name, buffer in want["buffers"].items():
            values = got.get(name, {}).get("data")
            if values is None or len(values) != len(buffer["data"]):
                print(f"{case}: buffer {name} missing or of the wrong size")
                failures += 1
                continue
            bad = [i for i, (g, w) in enumerate(zip(values, buffer["data"])) if not close(g, w, tolerance)]
            if bad:
                i = bad[0]
                print(f"{case}: {name}[{i}] = {values[i]}, TVM computed {buffer['data'][i]} ({len(bad)} differ)")
                failures += 1
        print(f"{case}: {'ok' if not failures else 'FAILED'} (global {launch['kernels'][0]['global']}, "
              f"local {launch['kernels'][0]['local']})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
