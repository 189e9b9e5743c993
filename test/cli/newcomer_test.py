#!/usr/bin/env python3
"""Command-line tests of what a newcomer writes first: `run --inputs` in the forms a user
guesses (each read or refused naming the member, never ignored), the return code of a failed
assert, headers' include guards, `-o k.c` on unlowered input, the pipeline printers, `run --help`,
the table's order, carets in `--layout`, and large outputs. One meson test per case:
    newcomer_test.py --tirlower BIN --list
    newcomer_test.py --tirlower BIN CASE
"""
import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import time

import cli_test
from cli_test import Failure, Workdir, check, expect, run, NPY_KERNEL

CASES = {}


def case(function):
    CASES[function.__name__] = function
    return function


KERNEL = """from tvm.script import tir as T


@T.prim_func
def scale(A: T.Buffer((4, 8), "float32"), W: T.Buffer((8,), "int8"), B: T.Buffer((4, 8), "float32"), n: T.int32):
    for i, j in T.grid(4, 8):
        B[i, j] = A[i, j] * T.Cast("float32", W[j]) + T.Cast("float32", n)
"""


def run_inputs(w, inputs, extra=()):
    """`run` on KERNEL with `inputs` (an object, or text) as in.json."""
    src = w.write("k.tir", KERNEL)
    text = inputs if isinstance(inputs, str) else json.dumps(inputs)
    path = w.write("in.json", text)
    return run(["run", src, "--inputs", path, *extra])


def refused(w, inputs, *words):
    r = expect(run_inputs(w, inputs), 1, "inputs " + (inputs if isinstance(inputs, str) else json.dumps(inputs))[:200])
    check(r.out == "", "a refused input wrote outputs:\n" + r.out[:500])
    for word in words:
        check(word in r.err, f"the error lacks {word!r}:\n{r.err}")
    return r


A = [[float(i * 8 + j) / 4 for j in range(8)] for i in range(4)]
W = [1, -2, 3, -4, 5, -6, 7, -8]


@case
def run_inputs_forms_a_user_writes_first():
    with Workdir() as w:
        # Buffers at the top level, or wrapped in "inputs": refused, naming the member and the form.
        refused(w, {"A": A, "W": W}, 'top-level member "A" is a buffer', '{"buffers": {"A"')
        refused(w, {"n": 3}, 'top-level member "n" is a scalar parameter', '"scalars"')
        refused(w, {"inputs": {"A": A}}, 'unknown top-level member "inputs"', '"buffers"')
        refused(w, {"bufers": {"A": A}}, '"bufers"', 'did you mean "buffers"')
        # An unknown buffer or scalar name: the closest parameter.
        refused(w, {"buffers": {"a": A}}, "no buffer parameter 'a'", "did you mean 'A'?", "buffers: A, W, B")
        refused(w, {"buffers": {"WW": W}}, "did you mean 'W'?")
        refused(w, {"scalars": {"N": 3}}, "no scalar parameter 'N'", "did you mean 'n'?")
        refused(w, {"buffers": {"n": [3]}}, "'n' is a scalar parameter", '"scalars"')
        refused(w, {"scalars": {"A": 3}}, "'A' is a buffer", '"buffers"')
        # "function" names another function: the file was meant for it.
        refused(w, {"function": "other", "buffers": {"A": A}}, 'for function "other"', "--func")
        # What run writes is read back whole (function, seed, status, return_code are its own).
        src = w.write("k.tir", KERNEL)
        out = expect(run(["run", src, "--seed=4"]), 0, "run").out
        again = expect(run_inputs(w, out, ["--seed=9"]), 0, "run's own output as inputs").out
        check(json.loads(again)["buffers"] == json.loads(out)["buffers"], "the round trip changed the buffers")


@case
def run_inputs_shapes_and_ragged_lists():
    with Workdir() as w:
        # A "shape" that is not the buffer's (8, 4 for a 4 x 8 buffer) is refused, even though the
        # element count fits; the buffer's own shape is accepted.
        flat = [x for row in A for x in row]
        refused(w, {"buffers": {"A": {"shape": [8, 4], "data": flat}}}, "buffer 'A'", '"shape" [8, 4]', "[4, 8]")
        refused(w, {"buffers": {"A": {"shape": [32], "data": flat}}}, '"shape" [32]')
        expect(run_inputs(w, {"buffers": {"A": {"shape": [4, 8], "data": flat}}}), 0, "the buffer's shape")
        # Nested lists of another shape, and ragged ones.
        transposed = [list(col) for col in zip(*A)]
        refused(w, {"buffers": {"A": transposed}}, "buffer 'A'", "nested lists' shape [8, 4]", "[4, 8]")
        ragged = [A[0] + [1.0], A[1][:-1]] + A[2:]
        refused(w, {"buffers": {"A": ragged}}, "buffer 'A': data[1] is a ragged list", "shape [4, 9]")
        deep = [A[0], [[x] for x in A[1]]] + A[2:]
        refused(w, {"buffers": {"A": {"data": deep}}}, "buffer 'A': data[1][0]", "ragged")
        expect(run_inputs(w, {"buffers": {"A": flat, "W": W}}), 0, "a flat list")


@case
def run_inputs_values_out_of_range():
    with Workdir() as w:
        for dtype, value, words in (("int8", 300, ["300", "int8 [-128, 127]"]),
                                    ("int8", -129, ["-129", "int8"]),
                                    ("int32", 2 ** 31, ["2147483648", "int32 [-2147483648, 2147483647]"]),
                                    ("uint8", 256, ["256", "uint8 [0, 255]"]),
                                    ("uint8", -1, ["-1", "uint8"]),
                                    ("int64", 2 ** 63, ["9223372036854775808", "int64"]),
                                    ("float16", 100000, ["100000", "float16", "infinity"]),
                                    ("float32", "1e39", ["1e+39", "float32"]),
                                    ("float64", "1e400", ["1e400", "buffers.X[2]"])):
            src = w.write("r.tir", f"""from tvm.script import tir as T


@T.prim_func
def f(X: T.Buffer((4,), "{dtype}"), Y: T.Buffer((4,), "{dtype}")):
    for i in range(4):
        Y[i] = X[i]
""")
            data = '{"buffers": {"X": [0, 1, %s, 3]}}' % value
            r = expect(run(["run", src, "--inputs", w.write("in.json", data)]), 1, f"{dtype} {value}")
            check("internal error" not in r.err and r.out == "", r.err + r.out)
            for word in words:
                check(word in r.err, f"{dtype} {value}: the error lacks {word!r}:\n{r.err}")
        # The edges fit; "inf" is how infinity is asked for.
        src = w.write("r.tir", KERNEL)
        expect(run_inputs(w, {"buffers": {"W": [127, -128, 0, 0, 0, 0, 0, 0]}, "scalars": {"n": -2 ** 31}}), 0, "edges")
        refused(w, {"scalars": {"n": 2 ** 31}}, "scalar 'n'", "int32")
        refused(w, {"buffers": {"W": [128, 0, 0, 0, 0, 0, 0, 0]}}, "buffer 'W' element 0", "128")


@case
def run_inputs_given_twice():
    with Workdir() as w:
        # A member twice in one object: JSON keeps the last; tirlower says so.
        refused(w, '{"buffers": {"W": [1, 1, 1, 1, 1, 1, 1, 1], "W": [2, 2, 2, 2, 2, 2, 2, 2]}}',
                'buffers.W', "twice")
        refused(w, '{"scalars": {"n": 1}, "scalars": {"n": 2}}', "scalars", "twice")
        # A buffer twice on the command line (a JSON file and a .npy file: the array wins, as
        # documented).
        src = w.write("t.tir", NPY_KERNEL)
        a = w.join("a.npy")
        expect(run(["run", src, "--outputs", "A=" + a]), 0, "write A")
        r = expect(run(["run", src, "--inputs", "A=" + a, "--inputs", "A=" + a]), 2, "A twice")
        check("buffer 'A' is given twice" in r.err, r.err)
        # A .npy array of another shape than the buffer's (the transpose's B for A).
        b = w.join("b.npy")
        expect(run(["run", src, "--outputs", "B=" + b]), 0, "write B")
        r = expect(run(["run", src, "--inputs", "A=" + b]), 1, "a 3 x 2 array for a 2 x 3 buffer")
        check('"shape" [3, 2] is not the buffer\'s shape [2, 3]' in r.err, r.err)


@case
def failed_assert_returns_what_the_c_returns():
    # One return code for a failed assert: run's JSON says what the emitted C returns.
    kernel = """from tvm.script import tir as T


@T.prim_func
def checked(A: T.Buffer((4,), "int32"), n: T.int32):
    assert n < 10, "n must be below 10"
    for i in range(4):
        A[i] = n
"""
    with Workdir() as w:
        src = w.write("k.tir", kernel)
        w.write("in.json", json.dumps({"scalars": {"n": 12}}))
        out = json.loads(expect(run(["run", src, "--inputs", w.join("in.json")]), 0, "run").out)
        check(out["status"] == "assert_failed", out)
        cc = shutil.which("cc")
        if not cc:
            check(out["return_code"] == 1, out)
            return
        expect(run([src, "--target=c", "-o", w.join("k.c")]), 0, "to C")
        w.write("main.c", """#include <stdint.h>
#include <stdio.h>
int32_t checked(int32_t *A, int32_t n);
int main(void) { int32_t a[4]; printf("%d\\n", (int)checked(a, 12)); return 0; }
""")
        exe = w.join("k")
        subprocess.run([cc, "-std=c11", "-o", exe, w.join("main.c"), w.join("k.c"), "-lm"], check=True)
        c_code = int(subprocess.run([exe], capture_output=True, text=True, check=True).stdout)
        check(c_code == 1 and out["return_code"] == c_code,
              f"run says return_code {out['return_code']}, the C returns {c_code}")
        table = expect(run(["run", src, "--inputs", w.join("in.json"), "--outputs-format=table"]), 0).out
        check("assert_failed, return code 1" in table, table)


TVM_MODULE = """# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def {name}(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] * T.float32(2)
"""


@case
def header_guards_differ_between_modules():
    # TVM prints every module as `class Module`: two headers of two modules included in one file
    # must both declare their functions.
    with Workdir() as w:
        first = w.write("first.tir", TVM_MODULE.format(name="double_it"))
        second = w.write("second.tir", TVM_MODULE.format(name="twice"))
        expect(run([first, "--target=c", "-o", w.join("first.h")]), 0, "first.h")
        expect(run([second, "--target=c", "-o", w.join("second.h")]), 0, "second.h")
        with open(w.join("first.h")) as f:
            check("#ifndef TIRLOWER_FIRST_H" in f.read(), "the guard is not from the file name")
        # Written to stdout: from the functions, so two modules differ too.
        one = expect(run([first, "--target=c", "--emit=h"]), 0).out
        two = expect(run([second, "--target=c", "--emit=h"]), 0).out
        guard = lambda text: text.split("#ifndef ", 1)[1].split("\n", 1)[0]
        check(guard(one) != guard(two) and "DOUBLE_IT" in guard(one), guard(one) + " / " + guard(two))
        check("MODULE" not in guard(one), guard(one))
        # --header-guard sets it; a value that is not a C identifier, or the flag for C, is misuse.
        mine = expect(run([first, "--target=c", "--emit=h", "--header-guard=MY_OPS_H"]), 0).out
        check("#ifndef MY_OPS_H\n#define MY_OPS_H\n" in mine and mine.endswith("#endif // MY_OPS_H\n"), mine)
        expect(run([first, "--target=c", "--emit=h", "--header-guard=1x"]), 2, "a bad guard")
        expect(run([first, "--target=c", "--header-guard=X_H"]), 2, "--header-guard for C")
        cc = shutil.which("cc")
        if cc:
            w.write("use.c", '#include "first.h"\n#include "second.h"\n'
                             "void use(float *a, float *b) { double_it(a, b); twice(a, b); }\n")
            subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-c", "-o", w.join("use.o"),
                            w.join("use.c")], check=True, cwd=w.path)


@case
def llvm_target_writes_the_c_header():
    with Workdir() as w:
        src = w.write("k.tir", TVM_MODULE.format(name="double_it"))
        header = expect(run([src, "--target=llvm", "-o", w.join("k.h")]), 0, "--target=llvm -o k.h")
        with open(w.join("k.h")) as f:
            text = f.read()
        check("int32_t double_it(" in text, text)
        c_header = expect(run([src, "--target=c", "--emit=h", "--header-guard=G"]), 0).out
        llvm_header = expect(run([src, "--target=llvm", "--emit=h", "--header-guard=G"]), 0).out
        check(c_header == llvm_header, "the LLVM target's header differs from the C target's")
        r = expect(run([src, "--target=opencl", "--emit=h"]), 2, "--target=opencl --emit=h")
        check("--emit=h" in r.err, r.err)


BLOCK = """from tvm.script import tir as T


@T.prim_func
def add_one(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 4), "float32")):
    for i, j in T.grid(4, 4):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
"""


@case
def output_name_alone_says_to_use_the_target():
    # `-o k.c` picks the C emitter but runs no pass: the error on block-level input says which
    # flag lowers it.
    with Workdir() as w:
        src = w.write("b.tir", BLOCK)
        for out, target in (("k.c", "c"), ("k.h", "c"), ("k.o", "llvm"), ("k.ll", "llvm")):
            r = expect(run([src, "-o", w.join(out)]), 1, "-o " + out)
            check(f"--target={target} also runs the {target} target's default pipeline" in r.err, r.err)
            check(not os.path.exists(w.join(out)), out + " was created")
            expect(run([src, f"--target={target}", "-o", w.join(out)]), 0, f"--target={target} -o {out}")
        # With passes given, the note would be wrong: it is not added.
        r = expect(run([src, "--pass=simplify", "-o", w.join("x.c")]), 1, "--pass=simplify -o x.c")
        check("no pass ran" not in r.err, r.err)


@case
def pipelines_are_printed():
    out = expect(run(["--print-pipeline", "--target=c"]), 0, "--print-pipeline --target=c").out.strip()
    check(out.startswith("lower-init-block,") and "flatten" in out and "\n" not in out, out)
    # What it prints is a pipeline the tool takes, and the same one.
    again = expect(run(["--print-pipeline", "--pass-pipeline=" + out]), 0).out.strip()
    check(again == out, again)
    given = expect(run(["--print-pipeline", "--pass=flatten,unroll{limit=64}"]), 0).out.strip()
    check(given == "flatten,unroll{limit=64}", given)
    expect(run(["--print-pipeline", "--pass=flaten"]), 2, "a misspelt pass")
    # --list-passes: contracts and the targets' pipelines, as docs/passes.md.
    listing = expect(run(["--list-passes"]), 0).out
    check("requires: layouts applied" in listing and "establishes: flat buffers" in listing, listing)
    check("target pipelines" in listing and out in listing, listing)
    expect(run(["run", "x.tir", "--print-pipeline"]), 2, "--print-pipeline in run")


@case
def run_help_lists_every_flag_that_applies():
    text = expect(run(["run", "--help"]), 0).out
    for flag in ("--func", "--inputs", "--outputs", "--outputs-format", "--seed", "--max-steps", "--max-buffer-bytes",
                 "--pass=", "--pass-pipeline", "--target", "--layout", "--transform-layout", "--print-ir-after",
                 "--timing", "--threads", "--diagnostics-format"):
        check(flag in text, f"run --help lacks {flag}:\n{text}")
    for flag in ("--emit", "--openmp", "--mcpu", "--list-passes", "--verify-semantics", "--print-pipeline"):
        check("\n  " + flag not in text, f"run --help lists {flag}, which run refuses:\n{text}")


@case
def table_keeps_parameter_order():
    kernel = """from tvm.script import tir as T


@T.prim_func
def f(Z: T.Buffer((2,), "int32"), A: T.Buffer((2,), "int32"), m: T.int32):
    for i in range(2):
        A[i] = Z[i] + m
"""
    with Workdir() as w:
        src = w.write("k.tir", kernel)
        out = expect(run(["run", src]), 0).out
        table = expect(run(["run", src, "--outputs-format=table"]), 0).out
        check(list(json.loads(out)["buffers"]) == ["Z", "A"], out)
        check(table.index("\nZ: int32") < table.index("\nA: int32") and table.rstrip().endswith("m = " +
              str(json.loads(out)["scalars"]["m"])), table)


@case
def layout_flag_caret_points_into_the_value():
    nhwc = cli_test.NHWC
    with Workdir() as w:
        src = w.write("in.tir", nhwc)
        r = expect(run([src, "--layout=B=NHWC->NHHC", "--pass=apply-layout-transforms"]), 2, "bad --layout")
        check("<command line>:1:11: error: --layout: malformed layout \"NHHC\": axis 'H' is repeated" in r.err, r.err)
        check("\nB=NHWC->NHHC\n          ^" in r.err, r.err)
        r = expect(run([src, "--layout=B=NCHWc->NHWC", "--pass=apply-layout-transforms"]), 2, "bad --layout")
        check("<command line>:1:" in r.err and "\nB=NCHWc->NHWC\n" in r.err and ":1:1:" not in r.err, r.err)
        r = expect(run([src, "--layout=B=NHWC", "--pass=apply-layout-transforms"]), 2, "no arrow")
        check("<command line>:1:3:" in r.err and "\nB=NHWC\n  ^~~~" in r.err, r.err)


@case
def large_outputs_are_written_fast():
    # A 64 MiB parameter (16 M float32): JSON and .npy outputs in seconds, not minutes.
    kernel = """from tvm.script import tir as T


@T.prim_func
def fill(B: T.Buffer((4096, 4096), "float32")):
    for i, j in T.grid(4096, 4096):
        B[i, j] = T.Cast("float32", i - j) * T.float32(0.25)
"""
    with Workdir() as w:
        src = w.write("k.tir", kernel)
        begin = time.monotonic()
        expect(run(["run", src, "--outputs", "B=" + w.join("b.npy")]), 0, ".npy")
        npy_seconds = time.monotonic() - begin
        with open(w.join("b.npy"), "rb") as f:
            data = f.read()
        check(len(data) == 128 + 4096 * 4096 * 4 and b"'shape': (4096, 4096)" in data[:128], data[:128])
        begin = time.monotonic()
        expect(run(["run", src, "-o", w.join("b.json")]), 0, "JSON")
        json_seconds = time.monotonic() - begin
        with open(w.join("b.json")) as f:
            head = f.read(300)
        check('"data": [0, -0.25, -0.5' in head, head)
        check(npy_seconds < 20 and json_seconds < 30, f".npy {npy_seconds:.1f} s, JSON {json_seconds:.1f} s")


@case
def flags_without_effect_are_refused():
    # A flag whose pass or mode does not run would be accepted and do nothing: exit 2, saying why.
    with Workdir() as w:
        src = w.write("k.tir", cli_test.NHWC)
        for args, words in ((["--seed=3", "--target=c"], ["--seed applies to 'run' and --verify-semantics"]),
                            (["--max-steps=10", "--pass=flatten"], ["--max-steps applies to"]),
                            (["--max-buffer-bytes=1M"], ["--max-buffer-bytes applies to"]),
                            (["--pass=flatten", "--print-ir-after=simplify"],
                             ["--print-ir-after=simplify: no pass 'simplify' runs", "the pipeline is flatten"]),
                            (["--print-ir-after=flatten"], ["no pass 'flatten' runs (no pass runs)"]),
                            (["--pass=flatten", "--layout-verify=warn"], ["--layout-verify applies to the verify-layouts"]),
                            (["--require-layout=B=NCHW", "--target=c"], ["--require-layout applies to the legalize-layouts"])):
            r = expect(run([src] + args), 2, " ".join(args))
            for word in words:
                check(word in r.err, f"{args}: the error lacks {word!r}:\n{r.err}")
        # Where they apply they are taken.
        expect(run([src, "--seed=3", "--pass=flatten", "--verify-semantics"]), 0, "--seed with --verify-semantics")
        expect(run(["run", src, "--seed=3", "--max-steps=100000"]), 0, "--seed in run")
        # --outputs-format with only .npy outputs: there is no JSON to format.
        r = expect(run(["run", src, "--outputs", "B=" + w.join("b.npy"), "--outputs-format=table"]), 2, "table, npy")
        check("--outputs-format applies to the JSON output" in r.err, r.err)
        expect(run(["run", src, "--outputs", "B=" + w.join("b.npy"), "--outputs", "-", "--outputs-format=table"]), 0,
               "table and npy")
        expect(run([src, "--pass=flatten", "--print-ir-after=flatten"]), 0, "--print-ir-after of a pass that runs")
        expect(run([src, "--require-layout=B=NHWC", "--pass=verify-layouts", "--layout-verify=warn"]), 0,
               "--require-layout with verify-layouts")
        expect(run([src, "--require-layout=B=NHWC", "--target=opencl", "-o", w.join("k.cl")]), 0,
               "--require-layout with the OpenCL pipeline")


def peak_rss_mib(args):
    """Runs tirlower; returns (exit status, stderr, peak resident memory in MiB)."""
    p = subprocess.Popen([cli_test.TIRLOWER] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL)
    err = p.stderr.read().decode()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, err, usage.ru_maxrss / 1024


@case
def streamed_input_that_does_not_parse():
    # A large input (the streamed compile) with an undefined name on its last line: the error is
    # the whole-module path's, found without holding the whole module.
    function = """@T.prim_func
def f{k}(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        B[i] = A[i] * T.float32(2) + T.float32({k})

"""
    text = "from tvm.script import tir as T\n\n" + "".join(function.format(k=k) for k in range(60000))
    text += function.format(k=99999999).replace("A[i] * T.float32(2)", "A[i] * undefined_name")
    with Workdir() as w:
        src = w.write("big.tir", text)
        code, streamed, streamed_mib = peak_rss_mib([src, "--target=c", "-o", w.join("big.c")])
        check(code == 1 and "error: use of undefined name 'undefined_name'" in streamed, streamed)
        check(not os.path.exists(w.join("big.c")), "a failing input created the output")
        # The whole-module path (--split-input-file without separators: one chunk, not streamed).
        code, whole, whole_mib = peak_rss_mib([src, "--target=c", "-o", w.join("big.c"), "--split-input-file"])
        check(code == 1 and whole == streamed, f"the diagnostics differ:\n{streamed}\nwhole-module path:\n{whole}")
        # Under AddressSanitizer (scripts/test-sanitized) freed memory waits in its quarantine, so
        # the peak says nothing about what the streamed compile holds.
        if not os.environ.get("TIRLOWER_SANITIZED"):
            check(streamed_mib < whole_mib / 2,
                  f"peak memory {streamed_mib:.0f} MiB, whole-module path {whole_mib:.0f} MiB")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tirlower", required=True)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("cases", nargs="*")
    args = parser.parse_args()
    if args.list:
        print("\n".join(CASES))
        return 0
    cli_test.TIRLOWER = os.path.abspath(args.tirlower)
    failed = 0
    for name in args.cases or list(CASES):
        try:
            CASES[name]()
        except Failure as e:
            print(f"FAIL {name}: {e}")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
