#!/usr/bin/env python3
"""Command-line tests of tirlower: exit codes, stdin, atomic output, flag errors, dumps,
timing, diagnostics formats. One meson test per case:
    cli_test.py --tirlower BIN --list
    cli_test.py --tirlower BIN CASE
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

VALID = """from tvm.script import tir as T


@T.prim_func
def copy(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = A[i]
"""

# An input error: C is not defined (line 7).
INVALID = VALID.replace("B[i] = A[i]", "B[i] = C[i]")

CASES = {}
TIRLOWER = None
PLUGIN = None


def case(function):
    CASES[function.__name__] = function
    return function


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def run(args, stdin=None, cwd=None):
    result = subprocess.run([TIRLOWER] + args, input=stdin.encode() if stdin is not None else None,
                            stdin=None if stdin is not None else subprocess.DEVNULL,
                            capture_output=True, cwd=cwd, timeout=60)
    result.out = result.stdout.decode("utf-8", "replace")
    result.err = result.stderr.decode("utf-8", "replace")
    return result


def expect(result, code, what=""):
    check(result.returncode == code,
          f"{what} exited with {result.returncode}, expected {code}\nstdout:\n{result.out}\nstderr:\n{result.err}")
    return result


class Workdir:
    """A temporary directory holding the inputs of one case."""

    def __enter__(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="tirlower-cli-")
        self.path = self.tmp.name
        return self

    def __exit__(self, *exc):
        self.tmp.cleanup()

    def write(self, name, text):
        path = os.path.join(self.path, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def join(self, name):
        return os.path.join(self.path, name)


@case
def exit_codes():
    with Workdir() as w:
        expect(run([w.write("ok.tir", VALID)]), 0, "valid input")
        bad = expect(run([w.write("bad.tir", INVALID)]), 1, "invalid input")
        check(bad.out == "", "an input error wrote to stdout")
        check("bad.tir:7:" in bad.err, "the error is not located at bad.tir:7:\n" + bad.err)
        expect(run([w.join("ok.tir"), "--no-such-flag"]), 2, "unknown flag")
        expect(run([]), 2, "no input")
        expect(run([w.join("ok.tir"), "--emit"]), 2, "--emit without a value")
        expect(run([w.join("ok.tir"), "--diagnostics-format=xml"]), 2, "bad --diagnostics-format")
        expect(run([w.join("ok.tir"), "extra.tir"]), 2, "two inputs")


@case
def line_endings():
    # LF and CRLF read alike; a CR alone (classic Mac line ends) is a located error, never an
    # empty module.
    with Workdir() as w:
        lf = expect(run([w.write("lf.tir", VALID)]), 0, "LF input").out
        crlf_path = w.join("crlf.tir")
        with open(crlf_path, "wb") as f:
            f.write(VALID.replace("\n", "\r\n").encode())
        check(expect(run([crlf_path]), 0, "CRLF input").out == lf, "CRLF and LF inputs print differently")
        cr_path = w.join("cr.tir")
        with open(cr_path, "wb") as f:
            f.write(VALID.replace("\n", "\r").encode())
        r = expect(run([cr_path, "-o", w.join("out.c")]), 1, "CR-only input")
        check("cr.tir:1:" in r.err and "carriage return without a newline" in r.err, r.err)
        check(not os.path.exists(w.join("out.c")), "a CR-only input left an output file")


@case
def missing_input():
    with Workdir() as w:
        r = expect(run(["nope.tir"], cwd=w.path), 1, "missing input")
        check("tirlower: error: cannot open 'nope.tir': No such file or directory" in r.err, r.err)
        check(r.out == "", "stdout not empty")


@case
def stdin_input():
    with Workdir() as w:
        from_file = expect(run([w.write("ok.tir", VALID)]), 0, "file input").out
        from_stdin = expect(run(["-"], stdin=VALID), 0, "stdin input").out
        check(from_file == from_stdin and from_file, "stdin and file outputs differ")
        r = expect(run(["-"], stdin=INVALID), 1, "invalid stdin")
        check("<stdin>:7:" in r.err, r.err)
        expect(run(["-", "-o", "-"], stdin=VALID), 0, "-o -")


@case
def output_atomic():
    with Workdir() as w:
        ok, bad = w.write("ok.tir", VALID), w.write("bad.tir", INVALID)
        out = w.join("out.tir")
        r = expect(run([ok, "-o", out]), 0, "-o out.tir")
        check(r.out == "", "-o wrote to stdout")
        with open(out) as f:
            written = f.read()
        check(written == expect(run([ok]), 0).out, "-o file differs from stdout output")
        mask = os.umask(0)
        os.umask(mask)
        check(os.stat(out).st_mode & 0o777 == 0o666 & ~mask, "output not created with the mode 0666 & ~umask")
        with open(out, "w") as f:
            f.write("previous contents\n")
        expect(run([bad, "-o", out]), 1, "error with existing output")
        with open(out) as f:
            check(f.read() == "previous contents\n", "an error changed the existing output file")
        fresh = w.join("fresh.tir")
        expect(run([bad, "-o", fresh]), 1, "error with new output")
        check(not os.path.exists(fresh), "an error created the output file")
        leftovers = [n for n in os.listdir(w.path) if n.startswith(".tirlower")]
        check(not leftovers, f"temporary files left behind: {leftovers}")


@case
def emit_and_extension():
    with Workdir() as w:
        ok = w.write("ok.tir", VALID)
        r = expect(run([ok, "-o", w.join("out.xyz")]), 2, "unknown extension")
        check("out.xyz" in r.err and "--emit" in r.err, r.err)
        check(not os.path.exists(w.join("out.xyz")), "output created on misuse")
        r = expect(run([ok, "--emit=nope"]), 2, "unknown emitter")
        check("unknown emitter 'nope'" in r.err and "tir" in r.err and "json" in r.err, r.err)
        expect(run([ok, "-o", w.join("out.json")]), 0, "-o .json")
        with open(w.join("out.json")) as f:
            json.load(f)
        r = expect(run([ok, "--emit=json"]), 0, "--emit=json")
        json.loads(r.out)
        expect(run([ok, "--emit=tir", "-o", w.join("out.txt")]), 0, "--emit with any extension")
        plain = expect(run([ok]), 0).out
        expect(run([ok, "-o", w.join("out")]), 0, "-o without an extension")
        with open(w.join("out")) as f:
            check(f.read() == plain, "-o without an extension did not write TIR")


@case
def output_to_devices_and_pipes():
    """An -o naming something other than a regular file is written in place: the atomic
    rename used for files would replace /dev/null itself."""
    import stat
    import threading
    with Workdir() as w:
        ok = w.write("ok.tir", VALID)
        plain = expect(run([ok]), 0).out
        before = os.stat(os.devnull)
        expect(run([ok, "-o", os.devnull]), 0, "-o /dev/null")
        after = os.stat(os.devnull)
        check(stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev and after.st_ino == before.st_ino,
              "-o /dev/null replaced the device")
        fifo = w.join("pipe")
        os.mkfifo(fifo)
        received = []
        reader = threading.Thread(target=lambda: received.append(open(fifo).read()))
        reader.start()
        expect(run([ok, "--emit=tir", "-o", fifo]), 0, "-o FIFO")
        reader.join(timeout=30)
        check(received == [plain], f"the FIFO received {received!r}")
        check(stat.S_ISFIFO(os.stat(fifo).st_mode), "-o FIFO replaced the FIFO")
        leftovers = [n for n in os.listdir(w.path) if n.startswith(".tirlower")]
        check(not leftovers, f"temporary files left behind: {leftovers}")
        r = expect(run([ok, "-o", w.path]), 1, "-o a directory")
        check("Is a directory" in r.err, r.err)


@case
def pass_flags():
    with Workdir() as w:
        ok = w.write("ok.tir", VALID)
        plain = expect(run([ok]), 0).out
        r = expect(run(["--pass", "verify", "--pass=verify,verify", ok]), 0, "repeated --pass before INPUT")
        check(r.out == plain, "verify changed the output")
        expect(run([ok, "--pass-pipeline=verify, verify"]), 0, "--pass-pipeline")
        r = expect(run([ok, "--pass=verfy"]), 2, "unknown pass")
        check("unknown pass 'verfy'" in r.err and "did you mean 'verify'" in r.err, r.err)
        expect(run([ok, "--pass=verify", "--pass-pipeline=verify"]), 2, "--pass with --pass-pipeline")
        r = expect(run([ok, "--pass-pipeline=verify{bad=1}"]), 2, "unknown option")
        check("unknown option 'bad'" in r.err, r.err)
        # A limit bounds the work only if the limit itself is bounded (issue 17): 10^9 unrolled
        # statements would run for minutes before any check.
        r = expect(run([ok, "--pass=unroll{limit=2000000000}"]), 2, "unroll limit too large")
        check("option 'limit' of pass 'unroll' takes an integer from 1 to 1048576, not '2000000000'" in r.err, r.err)
        expect(run([ok, "--pass=unroll{limit=1048576}"]), 0, "the largest unroll limit")
        # Typed options (PassInfo::options): a misspelt name and a value of the wrong type.
        r = expect(run([ok, "--pass=unroll{limt=2}"]), 2, "misspelt option")
        check("unknown option 'limt' for pass 'unroll'; did you mean 'limit'?" in r.err, r.err)
        r = expect(run([ok, "--pass=simplify,unroll{limit=0}"]), 2, "bad option value")
        check("option 'limit' of pass 'unroll' takes an integer from 1 to 1048576, not '0' (column 23)" in r.err, r.err)
        check(r.out == "", "output despite the error")
        r = expect(run([ok, "--pass=verify-layouts{mode=loud}"]), 2, "bad choice")
        check("option 'mode' of pass 'verify-layouts' is error|warn, not 'loud'" in r.err, r.err)
        # An option given twice, and a text option whose own check fails (require=): each is
        # misuse located in the pipeline text, with no output.
        r = expect(run([ok, "--pass=unroll{limit=2,limit=3}"]), 2, "option given twice")
        check("--pass: option 'limit' of pass 'unroll' is given twice (column 16)\n"
              "  unroll{limit=2,limit=3}\n"
              "                 ^~~~~\n" in r.err, r.err)
        check(r.out == "", "output despite the error")
        r = expect(run([ok, "--pass-pipeline=simplify,verify-layouts{require=A=NCHW;B}"]), 2, "require entry without '='")
        check("--pass-pipeline: option 'require' of pass 'verify-layouts': require expects BUFFER=LAYOUT entries "
              "separated by ';', got 'B' (column 33)" in r.err, r.err)
        r = expect(run([ok, "--pass=legalize-layouts{require='A=NCHW4c;B=NCHWc'}"]), 2, "malformed required layout")
        check("--pass: option 'require' of pass 'legalize-layouts': malformed layout requirement \"NCHWc\" for 'B': "
              "split axis 'c' needs a factor (e.g. 4c) (at character 5) (column 26)" in r.err, r.err)
        check(r.out == "", "output despite the error")
        expect(run([ok, "--pass=unroll{limit=8},verify-layouts{mode=warn}"]), 0, "valid options")
        # Pass contracts: a pass before the one establishing what it requires, across flags too.
        r = expect(run([ok, "--pass=flatten", "--pass=apply-layout-transforms"]), 2, "flatten before its layouts")
        check("pass 'flatten' requires layouts applied, which the later pass 'apply-layout-transforms'" in r.err, r.err)
        check(r.out == "", "output despite the error")
        r = expect(run([ok, "--pass=lower-opaque-block,convert-blocks-to-opaque"]), 2, "block lowering out of order")
        check("run 'convert-blocks-to-opaque' before 'lower-opaque-block'" in r.err, r.err)
        expect(run([ok, "--pass=flatten"]), 0, "a requirement no pass of the pipeline establishes")


@case
def pipeline_syntax_caret():
    with Workdir() as w:
        ok = w.write("ok.tir", VALID)
        r = expect(run([ok, "--pass-pipeline=verify,,verify"]), 2, "pipeline syntax error")
        lines = r.err.splitlines()
        check(any("column 8" in line for line in lines), r.err)
        text_line = next((i for i, line in enumerate(lines) if line.strip() == "verify,,verify"), None)
        check(text_line is not None and text_line + 1 < len(lines), "pipeline text not shown:\n" + r.err)
        caret = lines[text_line + 1]
        check(caret.index("^") - lines[text_line].index("v") == 7, "caret not under column 8:\n" + r.err)
        r = expect(run([ok, "--pass-pipeline=verify{"]), 2, "unterminated options")
        check("^" in r.err, r.err)


@case
def list_passes():
    r = expect(run(["--list-passes"]), 0, "--list-passes")
    passes = r.out.split("\n\n")[0]  # then the targets' pipelines
    names = [line.split()[0] for line in passes.splitlines() if line and not line.startswith(" ")]
    check("verify" in names, r.out)
    for name in names:
        used = run(["-", f"--pass={name}"], stdin=VALID)
        check(used.returncode != 2, f"listed pass {name} is not accepted by --pass:\n{used.err}")


@case
def version_and_help():
    r = expect(run(["--version"]), 0, "--version")
    check(r.out.startswith("tirlower "), r.out)
    r = expect(run(["--help"]), 0, "--help")
    for flag in ["--pass-pipeline", "--emit", "--split-input-file", "--verify-diagnostics", "--timing",
                 "--print-ir-tree-dir", "--list-passes", "--transform-layout", "--layout"]:
        check(flag in r.out, f"--help does not mention {flag}")


@case
def split_input_file():
    with Workdir() as w:
        text = VALID + "# -----\n" + INVALID
        path = w.write("split.tir", text)
        r = expect(run([path, "--split-input-file"]), 1, "split input with an error in chunk 2")
        error_line = text.splitlines().index("        B[i] = C[i]") + 1
        check(f"split.tir:{error_line}:" in r.err, f"expected line {error_line}:\n" + r.err)
        check(r.out == "", "stdout not empty after an error")
        two = w.write("two.tir", VALID + "# -----\n" + VALID)
        r = expect(run([two, "--split-input-file"]), 0, "two valid chunks")
        single = expect(run([w.write("one.tir", VALID)]), 0).out
        check(r.out == single + "# -----\n" + single, "chunks not joined with '# -----':\n" + r.out)


@case
def verify_diagnostics():
    with Workdir() as w:
        produced = run([w.write("bad.tir", INVALID), "--diagnostics-format=json"])
        # Expect exactly what is produced (the error and its notes, all on line 7).
        diagnostics = []
        for line in produced.err.splitlines():
            obj = json.loads(line)
            diagnostics += [obj] + obj.get("notes", [])
        check(all(d.get("line") == 7 for d in diagnostics), produced.err)
        message = diagnostics[0]["message"]
        comments = [f"        # expected-{d['severity']}@+{len(diagnostics) - k} {{{{{d['message']}}}}}\n"
                    for k, d in enumerate(diagnostics)]
        expected = INVALID.replace("        B[i] = C[i]", "".join(comments) + "        B[i] = C[i]")
        r = expect(run([w.write("expect.tir", expected), "--verify-diagnostics"]), 0, "matching expectations")
        check(r.out == "", "a chunk with expected errors printed output")
        wrong = expected.replace(message, "this message is not produced")
        expect(run([w.write("wrong.tir", wrong), "--verify-diagnostics"]), 1, "unmet expectation")
        expect(run([w.write("none.tir", INVALID), "--verify-diagnostics"]), 1, "unexpected error")
        r = expect(run([w.join("expect.tir"), "--verify-diagnostics", "-o", w.join("o.tir")]), 0)
        mixed = w.write("mixed.tir", VALID + "# -----\n" + expected)
        r = expect(run([mixed, "--verify-diagnostics", "--split-input-file"]), 0, "split + verify")
        check(r.out == expect(run([w.write("v.tir", VALID)]), 0).out, "valid chunk output missing")


@case
def diagnostics_format_json():
    with Workdir() as w:
        r = expect(run([w.write("bad.tir", INVALID), "--diagnostics-format=json"]), 1)
        lines = r.err.splitlines()
        check(lines, "no diagnostics")
        for line in lines:
            obj = json.loads(line)
            check("message" in obj and "severity" in obj, line)
        first = json.loads(lines[0])
        check(first.get("line") == 7 and first.get("file", "").endswith("bad.tir"), lines[0])
        r = expect(run(["nope.tir", "--diagnostics-format=json"], cwd=w.path), 1)
        for line in r.err.splitlines():
            json.loads(line)


@case
def print_ir_after():
    with Workdir() as w:
        ok = w.write("ok.tir", VALID)
        r = expect(run([ok, "--pass=verify", "--print-ir-after-all"]), 0)
        check("# -----// IR Dump After verify (unchanged) //----- #" in r.err, r.err)
        check(r.out == expect(run([ok]), 0).out, "dumps leaked into stdout")
        r = expect(run([ok, "--pass=verify", "--print-ir-after=verify"]), 0)
        check("IR Dump After verify" in r.err, r.err)
        r = expect(run([ok, "--pass=verify", "--print-ir-after=verfy"]), 2)
        check("did you mean 'verify'" in r.err, r.err)


@case
def print_ir_tree_dir():
    with Workdir() as w:
        ok = w.write("ok.tir", VALID)
        tree = w.join("tree")
        expect(run([ok, "--pass=verify,verify", "--print-ir-tree-dir=" + tree]), 0)
        names = sorted(os.listdir(tree))
        check(names == ["00_input.tir", "01_verify.tir", "02_verify.tir"], str(names))
        with open(os.path.join(tree, "01_verify.tir")) as f:
            first = f.readline()
        check(first.startswith("# tirlower: after pass verify"), first)
        # Every dump is itself a valid input.
        for name in names:
            expect(run([os.path.join(tree, name)]), 0, name)


@case
def timing():
    with Workdir() as w:
        ok = w.write("ok.tir", VALID)
        r = expect(run([ok, "--pass=verify", "--timing=json"]), 0)
        report = json.loads(r.err)
        names = [step["name"] for step in report["steps"]]
        check("parse" in names and "verify" in names, str(names))
        check(report["peak_rss_kib"] > 0 and report["input_lines"] == VALID.count("\n"), r.err)
        r = expect(run([ok, "--pass=verify", "--timing"]), 0)
        check("total" in r.err and "pass verify" in r.err, r.err)


@case
def verify_roundtrip_and_verify_each():
    with Workdir() as w:
        ok = w.write("ok.tir", VALID)
        expect(run([ok, "--verify-roundtrip"]), 0, "--verify-roundtrip")
        expect(run([ok, "--pass=verify", "--verify-each=false"]), 0, "--verify-each=false")
        expect(run([ok, "--pass=verify", "--verify-each"]), 0, "--verify-each")


SAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "ir-samples")

TWO_FUNCTIONS = VALID + """

@T.prim_func
def twice(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32")):
    for i in range(4):
        B[i] = A[i] * 2
"""

OUT_OF_BOUNDS = VALID.replace("B[i] = A[i]", "B[i] = A[i + 1]")


@case
def run_function_json():
    with Workdir() as w:
        ok = w.write("ok.tir", VALID)
        r = expect(run(["run", ok, "--seed=5"]), 0, "run")
        out = json.loads(r.out)
        check(out["function"] == "copy" and out["seed"] == 5 and out["status"] == "ok" and out["return_code"] == 0,
              r.out)
        a, b = out["buffers"]["A"], out["buffers"]["B"]
        check(a["dtype"] == "float32" and a["shape"] == [16] and len(a["data"]) == 16, r.out)
        check(a["data"] == b["data"], "copy: B must equal A\n" + r.out)
        check(out["scalars"] == {}, r.out)
        # Same seed, same output; another seed, other inputs.
        check(run(["run", ok, "--seed=5"]).out == r.out, "run is not deterministic")
        check(json.loads(run(["run", ok, "--seed=6"]).out)["buffers"]["A"] != a, "--seed has no effect")
        # The output read back with --inputs reproduces the run exactly; --outputs writes a file.
        inputs = w.write("in.json", r.out)
        expect(run(["run", ok, "--seed=5", "--inputs", inputs, "--outputs", w.join("out.json")]), 0, "--inputs")
        with open(w.join("out.json"), encoding="utf-8") as f:
            check(f.read() == r.out, "--inputs round trip differs")
        # Given values are used.
        given = w.write("given.json", json.dumps({"buffers": {"A": {"data": [0.1] * 16}}}))
        r = expect(run(["run", ok, "--inputs", given]), 0, "--inputs values")
        check(json.loads(r.out)["buffers"]["B"]["data"] == [0.1] * 16, r.out)
        bad = w.write("bad.json", json.dumps({"buffers": {"A": {"data": [1.0] * 3}}}))
        r = expect(run(["run", ok, "--inputs", bad]), 1, "--inputs with a wrong length")
        check("buffer 'A'" in r.err and "3 elements" in r.err, r.err)
        # After a pipeline.
        expect(run(["run", ok, "--pass-pipeline=flatten,simplify"]), 0, "run after a pipeline")


@case
def run_function_errors():
    with Workdir() as w:
        two = w.write("two.tir", TWO_FUNCTIONS)
        r = expect(run(["run", two]), 2, "run with two functions")
        check("--func" in r.err and "copy, twice" in r.err, r.err)
        r = expect(run(["run", two, "--func", "nope"]), 2, "run --func unknown")
        check("'nope'" in r.err and "copy, twice" in r.err, r.err)
        r = expect(run(["run", two, "--func", "twice"]), 0, "run --func")
        out = json.loads(r.out)
        check([2 * x for x in out["buffers"]["A"]["data"]] == out["buffers"]["B"]["data"], r.out)
        oob = w.write("oob.tir", OUT_OF_BOUNDS)
        r = expect(run(["run", oob, "--outputs", w.join("o.json")]), 1, "run out of bounds")
        check("out-of-bounds read of buffer 'A'" in r.err and "oob.tir:" in r.err, r.err)
        check(not os.path.exists(w.join("o.json")), "an output was written after a runtime error")
        expect(run(["run"]), 2, "run without a file")
        expect(run(["run", two, "--verify-semantics"]), 2, "run with --verify-semantics")


NHWC = """from tvm.script import tir as T


@T.prim_func
def copy(A: T.Buffer((1, 2, 2, 8), "float32", layout="NHWC"), B: T.Buffer((1, 2, 2, 8), "float32", layout="NHWC")):
    for h, w, c in T.grid(2, 2, 8):
        B[0, h, w, c] = A[0, h, w, c]
"""


@case
def require_layout_flags():
    with Workdir() as w:
        src = w.write("in.tir", NHWC)
        out = w.join("out.tir")
        # Unmet: an error at the buffer, a note at the flag's text; no output.
        r = expect(run(["--require-layout", "B=NCHW", src, "--pass=verify-layouts", "-o", out]), 1, "unmet")
        check("error: buffer 'B' has layout \"NHWC\" but \"NCHW\" is required" in r.err, r.err)
        check("<command line>:1:3: note: \"NCHW\" required by --require-layout='B=NCHW'" in r.err, r.err)
        check(not os.path.exists(out), "an output was written after an unmet requirement")
        # --layout-verify=warn: a warning, exit 0, the output written.
        r = expect(run([src, "--require-layout=B=NCHW", "--pass=verify-layouts", "--layout-verify=warn", "-o", out]),
                   0, "--layout-verify=warn")
        check("warning: buffer 'B'" in r.err and os.path.exists(out), r.err)
        expect(run([src, "--layout-verify=maybe"]), 2, "--layout-verify=maybe")
        # Repeatable in both spellings, and the input after the flag is not taken as a value.
        r = expect(run(["--require-layout", "A=NCHW4c", "--require-layout=B=NCHW", src,
                        "--pass=legalize-layouts,apply-layout-transforms,verify-layouts"]), 0, "two requirements")
        check('layout="NCHW4c"' in r.out and 'layout="NCHW"' in r.out, r.out)
        # Malformed: misuse, located inside the value.
        r = expect(run([src, "--require-layout=B=NCHWc", "--pass=verify-layouts"]), 2, "malformed requirement")
        check("<command line>:1:7: error: --require-layout: malformed layout requirement \"NCHWc\" for 'B': split axis "
              "'c' needs a factor" in r.err, r.err)
        r = expect(run([src, "--require-layout=NCHW", "--pass=verify-layouts"]), 2, "requirement without a buffer")
        check("<command line>:1:1: error: --require-layout expects BUFFER=LAYOUT entries separated by ';', got 'NCHW'"
              in r.err, r.err)
        r = expect(run([src, "--require-layout=Z=NCHW", "--pass=verify-layouts"]), 1, "unknown buffer")
        check("<command line>:1:3: error: --require-layout: no function has a buffer named 'Z'\nZ=NCHW\n  ^~~~" in r.err,
              r.err)
        # The flag is the default of the passes' option require: the pipeline's value replaces it,
        # and a note about a requirement from the pipeline points into the pipeline's text.
        r = expect(run([src, "--require-layout=Z=NCHW", "--pass=verify-layouts{require=B=NCHW}"]), 1, "option wins")
        check("--pass: 'Z'" not in r.err and "Z=NCHW" not in r.err, r.err)
        check("<command line>:1:26: note: \"NCHW\" required by the pass option require='B=NCHW'\n"
              "verify-layouts{require=B=NCHW}\n                         ^~~~" in r.err, r.err)
        # The pass option: a bad value is misuse.
        expect(run([src, "--pass=verify-layouts{mode=loud}"]), 2, "verify-layouts{mode=loud}")
        expect(run([src, "--pass=legalize-layouts{require=B}"]), 2, "legalize-layouts{require=B}")
        r = expect(run(["--help"]), 0, "--help")
        check("--require-layout" in r.out and "--layout-verify" in r.out, r.out)


@case
def layout_string_carets():
    # A malformed layout points at the offending character inside the literal, whatever quotes
    # it is written with (the caret was 2 columns early inside a triple-quoted string).
    with Workdir() as w:
        for literal in ('"NHHC"', "'NHHC'", '"""NHHC"""'):
            src = w.write("in.tir", NHWC.replace('layout="NHWC"', "layout=" + literal, 1))
            column = NHWC.index('layout="NHWC"') - NHWC.index("def copy") + len("layout=") + literal.index("NHHC") + 3
            r = expect(run([src, "--pass=verify-layouts"]), 1, "malformed layout " + literal)
            check("in.tir:5:%d: error: malformed layout \"NHHC\": axis 'H' is repeated" % column in r.err, r.err)


CORPUS_GPU = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tvm", "corpus-gpu")


@case
def gpu_missing_barriers_are_caught():
    # The shared-memory matmul as TVM printed it after ThreadSync, marked as having explicit
    # barriers, with barriers removed: the interpreter reports what a missing barrier lets
    # happen; thread-sync puts both back, and the run then matches TVM's outputs.
    with open(os.path.join(CORPUS_GPU, "gpu_matmul_shared.flat.tir"), encoding="utf-8") as f:
        text = f.read()
    marked = text.replace('"tirx.noalias": True})', '"tirx.noalias": True, "tirlower.explicit_barriers": True})')
    check(marked != text, "the corpus file has no tirx.noalias attribute to extend")
    lines = marked.splitlines(keepends=True)
    syncs = [k for k, line in enumerate(lines) if "T.tvm_storage_sync" in line]
    check(len(syncs) == 2, f"expected two barriers, found {len(syncs)}")
    inputs = os.path.join(CORPUS_GPU, "gpu_matmul_shared.in.json")
    with open(os.path.join(CORPUS_GPU, "gpu_matmul_shared.out.json"), encoding="utf-8") as f:
        want = json.load(f)["buffers"]["C"]["data"]
    cases = [
        (syncs, "read of uninitialised memory: buffer 'A_shared'"),
        # Without the barrier at the start of each k_0 iteration, the next tile overwrites one a
        # slower thread still reads.
        ([syncs[0]], "data race on shared buffer 'A_shared'"),
        # Without the barrier between filling the tiles and reading them.
        ([syncs[1]], "read of uninitialised memory: buffer 'A_shared'"),
    ]
    with Workdir() as w:
        for removed, message in cases:
            src = w.write("stripped.tir", "".join(line for k, line in enumerate(lines) if k not in removed))
            r = expect(run(["run", src, "--inputs", inputs]), 1, f"run without barriers {removed}")
            check(message in r.err and "stripped.tir:" in r.err, r.err)
            synced = w.join("synced.tir")
            expect(run([src, "--pass=thread-sync", "-o", synced]), 0, "thread-sync")
            with open(synced, encoding="utf-8") as f:
                check(f.read().count("T.tvm_storage_sync") == 2, "thread-sync did not put both barriers back")
            out = w.join("out.json")
            expect(run(["run", synced, "--inputs", inputs, "--outputs", out]), 0, "run after thread-sync")
            with open(out, encoding="utf-8") as f:
                got = json.load(f)["buffers"]["C"]["data"]
            worst = max(abs(g - t) - 1e-5 * (1 + abs(t)) for g, t in zip(got, want))
            check(len(got) == len(want) and worst <= 0, f"C differs from TVM's by up to {worst}")


@case
def verify_semantics_samples():
    blocks = "lower-init-block,convert-blocks-to-opaque,lower-match-buffer,lower-opaque-block,"
    pipelines = [blocks + "apply-layout-transforms,flatten,simplify",
                 blocks + "apply-layout-transforms,flatten,simplify,remove-no-op"]
    # conv2d_nhwc_tiled.tir (29 MFLOP, the bench's size) takes the interpreter over a minute per
    # --verify-semantics run here; cdiff runs it through the C target's whole pipeline (with
    # compact-buffer-allocation) against the interpreter instead, with and without sanitizers.
    too_large = {"conv2d_nhwc_tiled.tir"}
    for name in sorted(os.listdir(SAMPLES)):
        if not name.endswith(".tir") or name in too_large:
            continue
        for pipeline in pipelines:
            for seed in ("1", "2"):
                r = expect(run([os.path.join(SAMPLES, name), "--pass-pipeline=" + pipeline, "--verify-semantics",
                                "--seed=" + seed]), 0, f"--verify-semantics on {name} with {pipeline}")
                check("warning" not in r.err, f"{name}: {r.err}")


# ---- Never exit 0 on something other than what was asked (issue 16) ----

@case
def run_honours_output_and_rejects_other_flags():
    with Workdir() as w:
        ok = w.write("ok.tir", VALID)
        out = w.join("out.json")
        r = expect(run(["run", ok, "-o", out]), 0, "run -o")
        check(r.out == "", "run -o wrote to stdout:\n" + r.out)
        with open(out, encoding="utf-8") as f:
            check(json.load(f)["function"] == "copy", "run -o did not write the outputs")
        expect(run(["-o", w.join("first.json"), "run", ok]), 0, "-o before run")
        check(os.path.exists(w.join("first.json")), "-o before run was ignored")
        expect(run(["run", ok, "-o", out, "--outputs", out]), 2, "-o and --outputs")
        for flag in ["--emit=c", "--split-input-file", "--verify-roundtrip", "-O3", "--openmp", "--tir-spelling=tir",
                     "--target-triple=x86_64-linux-gnu", "--mcpu=native", "--verify-diagnostics"]:
            r = expect(run(["run", ok, flag]), 2, "run " + flag)
            check("does not apply to 'run'" in r.err, r.err)
        tree = w.join("tree")
        expect(run(["run", ok, "--pass=verify", "--print-ir-tree-dir=" + tree]), 0, "run --print-ir-tree-dir")
        check(sorted(os.listdir(tree)) == ["00_input.tir", "01_verify.tir"], "run ignored --print-ir-tree-dir")


@case
def run_inputs_names_and_nested_lists():
    with Workdir() as w:
        ok = w.write("ok.tir", VALID.replace("(16,)", "(4, 4)").replace("B[i] = A[i]", "B[i // 4, i % 4] = A[i // 4, i % 4]"))
        typo = w.write("typo.json", json.dumps({"bufers": {"A": {"data": [1.0] * 16}}}))
        r = expect(run(["run", ok, "--inputs", typo]), 1, "--inputs with a misspelt member")
        check('"bufers"' in r.err and r.out == "", r.err)
        typo = w.write("typo2.json", json.dumps({"buffers": {"A": {"dat": [1.0] * 16}}}))
        r = expect(run(["run", ok, "--inputs", typo]), 1, "--inputs with a misspelt buffer member")
        check('"dat"' in r.err, r.err)
        r = expect(run(["run", ok, "--inputs", w.write("n.json", json.dumps({"buffers": {"X": [1.0]}}))]), 1,
                   "--inputs with an unknown buffer")
        check("'X'" in r.err, r.err)
        rows = [[float(4 * i + j) for j in range(4)] for i in range(4)]
        for given in ({"data": rows}, rows):
            nested = w.write("nested.json", json.dumps({"buffers": {"A": given}}))
            r = expect(run(["run", ok, "--inputs", nested]), 0, "--inputs with nested lists")
            check(json.loads(r.out)["buffers"]["B"]["data"] == sum(rows, []), r.out)
        short = w.write("short.json", json.dumps({"buffers": {"A": rows[:3]}}))
        r = expect(run(["run", ok, "--inputs", short]), 1, "--inputs with too few nested rows")
        check("shape [3, 4] is not the buffer's shape [4, 4]" in r.err, r.err)
        short = w.write("short.json", json.dumps({"buffers": {"A": sum(rows, [])[:12]}}))
        r = expect(run(["run", ok, "--inputs", short]), 1, "--inputs with too few elements")
        check("12 elements" in r.err, r.err)


@case
def run_func_by_global_symbol():
    with Workdir() as w:
        text = TWO_FUNCTIONS.replace('def twice(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32")):',
                                     'def twice(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32")):\n'
                                     '    T.func_attr({"global_symbol": "twice_c"})')
        src = w.write("two.tir", text)
        check("twice_c" in expect(run([src, "--emit=c"]), 0, "C with a global_symbol").out, "no global_symbol in C")
        r = expect(run(["run", src, "--func", "twice_c"]), 0, "run --func GLOBAL_SYMBOL")
        check(json.loads(r.out)["function"] == "twice", r.out)
        expect(run(["run", src, "--func", "twice"]), 0, "run --func NAME")


def object_symbols(path):
    r = subprocess.run(["nm", "--defined-only", path], capture_output=True, text=True)
    check(r.returncode == 0, "nm failed: " + r.stderr)
    return sorted(line.split()[-1] for line in r.stdout.splitlines() if " T " in line)


@case
def split_input_file_combines_outputs():
    second = TWO_FUNCTIONS[TWO_FUNCTIONS.index("@T.prim_func\ndef twice"):]
    text = VALID + "# -----\nfrom tvm.script import tir as T\n\n\n" + second
    with Workdir() as w:
        src = w.write("split.tir", text)
        r = expect(run([src, "--split-input-file", "--emit=json"]), 0, "--emit=json")
        documents = json.loads(r.out)
        check(isinstance(documents, list) and len(documents) == 2, "not a JSON array of two documents:\n" + r.out)
        r = expect(run([src, "--split-input-file", "--emit=c", "-o", w.join("out.c")]), 0, "--emit=c")
        with open(w.join("out.c")) as f:
            c = f.read()
        check("# -----" not in c and "copy(" in c and "twice(" in c, c)
        cc = subprocess.run(["cc", "-std=c11", "-c", w.join("out.c"), "-o", w.join("c.o")], capture_output=True,
                            text=True)
        check(cc.returncode == 0, "the combined C does not compile:\n" + cc.stderr)
        expect(run([src, "--split-input-file", "-o", w.join("out.o")]), 0, "-o out.o")
        check(object_symbols(w.join("out.o")) == ["copy", "twice"], "object lacks a function")
        for emit in ("llvm", "bc"):
            r = run([src, "--split-input-file", "--emit=" + emit, "-o", w.join("out." + emit)])
            expect(r, 0, "--emit=" + emit)
        with open(w.join("out.llvm")) as f:
            ll = f.read()
        check("@copy(" in ll and "@twice(" in ll and "# -----" not in ll, ll)
        dup = w.write("dup.tir", VALID + "# -----\n" + VALID)
        r = expect(run([dup, "--split-input-file", "--emit=c", "-o", w.join("dup.c")]), 1, "one symbol twice")
        check("'copy' is defined twice" in r.err and "dup.tir:" in r.err, r.err)
        check(not os.path.exists(w.join("dup.c")), "an output was written")
        r = expect(run([dup, "--split-input-file"]), 0, "tir joins chunks")
        check(r.out.count("# -----") == 1, r.out)


PADDED = """from tvm.script import tir as T


@T.prim_func
def scale(A: T.Buffer((1, 5, 5, 6), "float32", layout="NHWC"), B: T.Buffer((1, 5, 5, 6), "float32", layout="NHWC"),
          k: T.float32):
    T.func_attr({"tir.noalias": True})
    T.transform_layout(B, lambda n, h, w, c: [n, c // 4, h, w, c % 4], pad_value=T.float32(0))
    for h, w, c in T.grid(5, 5, 6):
        B[0, h, w, c] = A[0, h, w, c] * k
"""

# Calls scale() through the header: A is NHWC, B is NCHW4c padded to 8 channels.
PADDED_CALLER = r"""#include <stdio.h>
#include "k.h"

int main(void) {
  float a[150], b[COUNT_B];
  for (int i = 0; i < 150; ++i)
    a[i] = (float)i;
  for (int i = 0; i < COUNT_B; ++i)
    b[i] = -1.0f;
  if (scale(a, b, 2.0f) != 0)
    return 1;
  for (int i = 0; i < COUNT_B; ++i)
    printf("%g\n", b[i]);
  return 0;
}
"""


@case
def emit_h_header_with_physical_shapes():
    # --emit=h / -o x.h: the prototypes of --emit=c, each parameter's physical shape and size in
    # a comment (also in the C); the header and the C compile together and the caller sized by
    # the comment's count gets every element written.
    with Workdir() as w:
        src = w.write("pad.tir", PADDED)
        expect(run([src, "--target=c", "-o", w.join("k.c")]), 0, "-o k.c")
        expect(run([src, "--target=c", "-o", w.join("k.h"), "--header-guard=K_H"]), 0, "-o k.h")
        with open(w.join("k.h")) as f:
            header = f.read()
        with open(w.join("k.c")) as f:
            c = f.read()
        check(expect(run([src, "--target=c", "--emit=h", "--header-guard=K_H"]), 0, "--emit=h").out == header,
              "--emit=h differs from -o k.h")
        check("#include" in header and "int32_t scale(" in header and "{" not in header.split("extern \"C\" {")[1],
              "not a header of prototypes:\n" + header)
        lines = {line.split(":")[0].strip("/ "): line for line in header.splitlines() if line.startswith("//   ")}
        # B: 6 channels in blocks of 4 -> 2 blocks, 25 pixels: 2 * 5 * 5 * 4 floats.
        grown = 2 * 5 * 5 * 4
        check(f"shape (1, 2, 5, 5, 4), layout NCHW4c: {grown} elements ({grown * 4} bytes)" in lines.get("B", ""),
              "B's comment does not give the padded count:\n" + header)
        check("shape (1, 5, 5, 6), layout NHWC: 150 elements" in lines.get("A", "") and "read only" in lines["A"],
              header)
        check("k: float32 scalar" in lines.get("k", ""), header)
        for line in lines.values():
            check(line in c, "the C lacks the header's comment line " + line + ":\n" + c)
        w.write("main.c", PADDED_CALLER)
        flags = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-I", w.path]
        cc = subprocess.run(["cc"] + flags + ["-DCOUNT_B=%d" % grown, "-include", w.join("k.h"), w.join("k.c"),
                                              w.join("main.c"), "-o", w.join("main")], capture_output=True, text=True)
        check(cc.returncode == 0, "header and C do not compile together:\n" + cc.stderr)
        out = subprocess.run([w.join("main")], capture_output=True, text=True)
        check(out.returncode == 0, "the call failed")
        values = [float(v) for v in out.stdout.split()]
        check(-1.0 not in values, "an element of B's physical size was not written")
        check(values.count(0.0) == 25 * 2 + 1, "padding lanes are not the pad value")  # 2 pad lanes per pixel, and a[0]*2
        cxx = subprocess.run(["c++", "-x", "c++", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", w.join("k.h")],
                             capture_output=True, text=True)
        check(cxx.returncode == 0, "the header is not valid C++:\n" + cxx.stderr)
        # The header declares the LLVM object's functions too (one calling convention).
        expect(run([src, "--target=llvm", "-o", w.join("k2.h"), "--header-guard=K_H"]), 0, "-o .h with --target=llvm")
        with open(w.join("k2.h")) as f:
            check(f.read() == header, "the LLVM target's header differs from the C target's")
        r = expect(run([src, "--target=opencl", "-o", w.join("k3.h")]), 2, "-o .h with --target=opencl")
        check("asks for h" in r.err, r.err)
        r = run([src, "--emit=h"])  # not lowered: the C emitter rejects 4-d accesses, so no header either
        check(r.returncode == 1 and r.out == "" and "pad.tir:" in r.err, "a module C rejects got a header:\n" + r.err)


@case
def load_pass_plugin():
    # --load-pass-plugin=lib.so as opt has: the plugin's pass runs in a pipeline beside the
    # product's, is listed, and reaches `run`; a missing library or one that is no plugin is misuse.
    check(PLUGIN and os.path.exists(PLUGIN), "the test plugin was not built (--plugin)")
    with Workdir() as w:
        plugin = "--load-pass-plugin=" + PLUGIN
        two = w.write("two.tir", VALID.replace("B[i] = A[i]", "B[i] = A[i] * T.float32(2)"))
        plain = expect(run([two, "--pass=flatten"]), 0).out
        scaled = expect(run([two, plugin, "--pass", "flatten,plugin-scale-constants{factor=3}"]), 0, "plugin pass").out
        check("T.float32(2.0)" in plain and scaled == plain.replace("T.float32(2.0)", "T.float32(6.0)"),
              "the plugin's pass did not scale the constant:\n" + scaled)
        src = two
        listed = expect(run(["--list-passes", plugin]), 0).out
        check("plugin-scale-constants" in listed and "flatten" in listed, listed)
        inputs = w.write("in.json", json.dumps({"buffers": {"A": list(range(16))}}))
        r = expect(run(["run", two, "--inputs", inputs, plugin, "--pass=plugin-scale-constants{factor=3}"]), 0, "run")
        check(json.loads(r.out)["buffers"]["B"]["data"] == [6 * i for i in range(16)], r.out)
        r = expect(run([two, plugin, "--pass=plugin-scale-constants{factor=x}"]), 2, "bad plugin pass option")
        check("tirlower: error:" in r.err and "factor" in r.err, r.err)
        r = expect(run([two, "--pass=plugin-scale-constants"]), 2, "plugin pass without the plugin")
        check("unknown pass 'plugin-scale-constants'" in r.err, r.err)
        r = expect(run([two, "--load-pass-plugin=" + w.join("nope.so")]), 2, "missing library")
        check(r.err.startswith("tirlower: error: --load-pass-plugin=") and "nope.so" in r.err, r.err)
        r = expect(run([two, "--load-pass-plugin=" + src]), 2, "not a shared library")
        check("tirlower: error:" in r.err and "cannot load" in r.err, r.err)
        libm = subprocess.run(["cc", "-print-file-name=libm.so.6"], capture_output=True, text=True).stdout.strip()
        r = expect(run([two, "--load-pass-plugin=" + libm]), 2, "a library without the entry point")
        check("tirlower: error:" in r.err and "tirlower_plugin_api_version" in r.err, r.err)
        r = expect(run([two, "--load-pass-plugin=" + PLUGIN, "--load-pass-plugin=" + PLUGIN]), 2, "loaded twice")
        check("plugin-scale-constants" in r.err and "registered twice" in r.err, r.err)


NPY_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "npy")

NPY_KERNEL = """from tvm.script import tir as T


@T.prim_func
def transpose(A: T.Buffer((2, 3), "float32"), B: T.Buffer((3, 2), "float32"), M: T.Buffer((2,), "int32"),
              C: T.Buffer((2,), "int32"), mask: T.Buffer((2,), "bool"), D: T.Buffer((2,), "float64")):
    for i, j in T.grid(2, 3):
        B[j, i] = A[i, j]
    for k in range(2):
        C[k] = T.Select(mask[k], M[k] * 2, M[k])
"""


def read_npy(path):
    """A .npy file as (descr, shape, values), parsed here independently of tirlower."""
    import ast
    import struct
    with open(path, "rb") as f:
        data = f.read()
    check(data[:8] == b"\x93NUMPY\x01\x00", "not a version 1.0 .npy file: %r" % data[:10])
    (length,) = struct.unpack("<H", data[8:10])
    check((10 + length) % 64 == 0 and data[10 + length - 1:10 + length] == b"\n", "header not padded as numpy pads it")
    header = ast.literal_eval(data[10:10 + length].decode("latin1"))
    check(header["fortran_order"] is False, str(header))
    count = 1
    for extent in header["shape"]:
        count *= extent
    code = {"<f4": "f", "<f8": "d", "<i4": "i", "|b1": "?"}[header["descr"]]
    return header["descr"], header["shape"], list(struct.unpack("<%d%s" % (count, code), data[10 + length:]))


@case
def run_npy_files():
    # run reads .npy inputs per buffer (numpy's bytes, committed in test/cli/npy, made by
    # make_npy.py) and writes .npy outputs per buffer, or for the one buffer a function writes.
    npy = lambda name: os.path.join(NPY_DIR, name)
    with Workdir() as w:
        src = w.write("t.tir", NPY_KERNEL)
        r = expect(run(["run", src, "--inputs", "A=" + npy("a.npy"), "--inputs", "M=" + npy("m_big_endian.npy"),
                        "--inputs", "mask=" + npy("mask.npy"), "--inputs", "D=" + npy("f64.npy"),
                        "--outputs", "B=" + w.join("b.npy"), "--outputs", "C=" + w.join("c.npy"),
                        "--outputs", w.join("all.json")]), 0, "run with .npy files")
        check(r.out == "", "only named outputs were asked for, but stdout has:\n" + r.out)
        _, _, a = read_npy(npy("a.npy"))
        descr, shape, b = read_npy(w.join("b.npy"))
        check(descr == "<f4" and shape == (3, 2), "b.npy is %s %s" % (descr, shape))
        check(b == [a[i * 3 + j] for j in range(3) for i in range(2)], "B is not A transposed: %s" % b)
        _, _, m = read_npy(npy("m.npy"))
        _, _, mask = read_npy(npy("mask.npy"))
        descr, shape, c = read_npy(w.join("c.npy"))
        check(descr == "<i4" and c == [v * 2 if keep else v for v, keep in zip(m, mask)], "C: %s" % c)
        with open(w.join("all.json")) as f:
            document = json.load(f)
        check(document["buffers"]["D"]["data"] == read_npy(npy("f64.npy"))[2], "D did not come from f64.npy")
        # The JSON file and .npy files combine; the arrays win for the buffers they name.
        w.write("in.json", json.dumps({"buffers": {"A": [[1, 2, 3], [4, 5, 6]], "M": [1, 1]}}))
        r = expect(run(["run", src, "--inputs", w.join("in.json"), "--inputs", "M=" + npy("m.npy"),
                        "--outputs-format=json"]), 0, "JSON and .npy inputs")
        out = json.loads(r.out)
        check(out["buffers"]["A"]["data"] == [1, 2, 3, 4, 5, 6] and out["buffers"]["M"]["data"] == m, r.out)
        # FILE.npy alone: the one buffer the function writes.
        copy = w.write("copy.tir", VALID)
        expect(run(["run", copy, "-o", w.join("only.npy")]), 0, "-o FILE.npy")
        check(read_npy(w.join("only.npy"))[1] == (16,), "")
        r = expect(run(["run", src, "-o", w.join("which.npy")]), 2, "FILE.npy for a function writing two buffers")
        check("writes buffers B, C" in r.err and "NAME=" in r.err, r.err)
        r = expect(run(["run", src, "--inputs", npy("a.npy")]), 2, "an array without a buffer name")
        check("--inputs NAME=" in r.err, r.err)
        r = expect(run(["run", src, "--inputs", "A=" + npy("m.npy")]), 1, "an int32 array for a float32 buffer")
        check("holds int32" in r.err and "'A' is float32" in r.err, r.err)
        r = expect(run(["run", src, "--inputs", "A=" + npy("f64.npy")]), 1, "wrong dtype")
        r = expect(run(["run", src, "--inputs", "M=" + npy("mask.npy")]), 1, "bool for int32")
        bad = w.write("bad.npy", "not numpy")
        r = expect(run(["run", src, "--inputs", "A=" + bad]), 1, "not a .npy file")
        check("bad.npy" in r.err and "not a .npy file" in r.err, r.err)
        r = expect(run(["run", src, "--inputs", "Q=" + npy("m.npy")]), 1, "unknown buffer")
        check("'Q'" in r.err, r.err)
        r = expect(run(["run", src, "--outputs", "Z=" + w.join("z.npy")]), 2, "unknown output buffer")
        check("no buffer 'Z'" in r.err and "B" in r.err, r.err)


@case
def run_outputs_table():
    # --outputs-format=table (the default when the JSON would go to a terminal): rows as numpy
    # prints them; large buffers are summarised with "...".
    with Workdir() as w:
        src = w.write("t.tir", NPY_KERNEL)
        w.write("in.json", json.dumps({"buffers": {"A": [[0.5, -0.25, 0.125], [0.75, -1, 0.3125]], "M": [7, -3],
                                                   "mask": [1, 0], "D": [1.5, 2.5]}}))
        args = ["run", src, "--inputs", w.join("in.json")]
        table = expect(run(args + ["--outputs-format=table"]), 0, "table").out
        check("transpose: ok, return code 0" in table, table)
        check("A: float32, shape (2, 3)\n[[   0.5,  -0.25,  0.125],\n [  0.75,     -1, 0.3125]]" in table,
              "A's rows:\n" + table)
        check("B: float32, shape (3, 2)\n" in table and "C: int32, shape (2,)\n[14, -3]" in table, table)
        # On a terminal the table is the default; piped it is JSON.
        import pty
        controller, terminal = pty.openpty()
        p = subprocess.run([TIRLOWER] + args, stdout=terminal, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                           timeout=60)
        os.close(terminal)
        chunks = []
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(controller)
        shown = b"".join(chunks).decode().replace("\r\n", "\n")
        check(p.returncode == 0 and shown == table, "the terminal did not get the table:\n" + shown)
        json.loads(expect(run(args), 0).out)
        big = w.write("big.tir", VALID.replace("16", "4096"))
        big_table = expect(run(["run", big, "--outputs-format=table"]), 0).out
        check("..." in big_table and len(big_table) < 2000, "a large buffer is not summarised:\n" + big_table[:3000])


GPU_SCALE = """from tvm.script import tir as T


@T.prim_func
def scale(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32"), n: T.int32):
    for bx in T.thread_binding(4, thread="blockIdx.x"):
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            B[bx * 64 + tx] = A[bx * 64 + tx] * T.Cast("float32", n)
"""


@case
def emit_launch_json():
    # --emit=launch / -o k.launch.json: the OpenCL launch geometry and arguments beside the kernel
    # (the longest matching extension wins over .json); the numbers are the kernel comment's.
    with Workdir() as w:
        src = w.write("k.tir", GPU_SCALE)
        expect(run([src, "--target=opencl", "-o", w.join("k.launch.json")]), 0, "-o k.launch.json")
        with open(w.join("k.launch.json")) as f:
            launch = json.load(f)
        kernel = expect(run([src, "--target=opencl"]), 0).out
        k = launch["kernels"][0]
        check(k["kernel"] == "scale" and k["local"] == [64, 1, 1] and k["groups"] == [4, 1, 1] and
              k["global"] == [256, 1, 1], str(k))
        check("// launch scale: global {256, 1, 1}, local {64, 1, 1} (groups {4, 1, 1})" in kernel, kernel)
        check([a["name"] for a in k["args"]] == ["A", "B", "n"] and k["args"][0]["elements"] == 256 and
              k["args"][2] == {"name": "n", "kind": "scalar", "dtype": "int32"}, str(k["args"]))
        expect(run([src, "--target=opencl", "-o", w.join("k.json")]), 0, "-o k.json")
        with open(w.join("k.json")) as f:
            check("module" in json.load(f), "-o k.json did not write --emit=json")
        r = expect(run([src, "--target=c", "-o", w.join("c.launch.json")]), 2, "--target=c with .launch.json")
        check("asks for launch" in r.err, r.err)
        bad = w.write("pad.tir", PADDED)  # 4-d accesses, not lowered: OpenCL rejects them, so no launch JSON
        r = expect(run([bad, "--emit=launch"]), 1, "not lowered for OpenCL")
        check(r.out == "" and "pad.tir:" in r.err, r.err)


@case
def target_and_output_name_agree():
    with Workdir() as w:
        ok = w.write("ok.tir", VALID)
        for target, name in (("c", "x.ll"), ("opencl", "x.c"), ("llvm", "x.cl"), ("c", "x.o")):
            r = expect(run([ok, "--target=" + target, "-o", w.join(name)]), 2, f"--target={target} -o {name}")
            check("--target=" + target in r.err and name in r.err, r.err)
            check(not os.path.exists(w.join(name)), "an output was written")
        r = expect(run([ok, "--target=c", "--emit=llvm"]), 2, "--target=c --emit=llvm")
        check("--target=c" in r.err, r.err)
        expect(run([ok, "--target=llvm", "-o", w.join("x.o")]), 0, "--target=llvm -o x.o")
        expect(run([ok, "--target=c", "-o", w.join("x.tir")]), 0, "--target=c -o x.tir (the lowered IR)")
        for flag in ["-O2", "--mcpu=native", "--mattr=+avx2", "--target-triple=x86_64-linux-gnu"]:
            r = expect(run([ok, "--target=c", flag]), 2, "--target=c " + flag)
            check("LLVM" in r.err, r.err)
        expect(run([ok, "--target=llvm", "--openmp"]), 2, "--openmp with LLVM")


@case
def empty_input_warns():
    with Workdir() as w:
        for text in ("", "from tvm.script import tir as T\n"):
            src = w.write("empty.tir", text)
            r = expect(run([src, "--target=c", "-o", w.join("out.c")]), 0, "empty input")
            check("warning:" in r.err and "defines no function" in r.err, "no warning:\n" + r.err)
        r = expect(run(["run", w.join("empty.tir")]), 1, "run on an empty input")
        check("defines no function" in r.err, r.err)


@case
def binary_output_not_to_a_terminal():
    import pty
    with Workdir() as w:
        ok = w.write("ok.tir", VALID)
        for emit in ("obj", "bc"):
            master, slave = pty.openpty()
            try:
                p = subprocess.run([TIRLOWER, ok, "--emit=" + emit], stdout=slave, stderr=subprocess.PIPE, timeout=60)
                check(p.returncode == 2, f"--emit={emit} to a terminal exited {p.returncode}")
                check(b"terminal" in p.stderr and b"-o -" in p.stderr, p.stderr.decode())
                p = subprocess.run([TIRLOWER, ok, "--emit=" + emit, "-o", "-"], stdout=slave, stderr=subprocess.PIPE,
                                   timeout=60)
                check(p.returncode == 0, f"--emit={emit} -o - to a terminal exited {p.returncode}")
            finally:
                os.close(master)
                os.close(slave)
        expect(run([ok, "--emit=obj"]), 0, "--emit=obj to a pipe")


@case
def output_through_symlink_keeps_mode():
    with Workdir() as w:
        ok = w.write("ok.tir", VALID)
        target = w.write("real.tir", "old\n")
        os.chmod(target, 0o640)
        link = w.join("link.tir")
        os.symlink("real.tir", link)
        expect(run([ok, "-o", link]), 0, "-o a symlink")
        check(os.path.islink(link), "-o replaced the symlink with a file")
        with open(target) as f:
            check(f.read() == expect(run([ok]), 0).out, "the link's target was not written")
        check(os.stat(target).st_mode & 0o777 == 0o640, "the existing file's mode changed: %o" % os.stat(target).st_mode)
        os.chmod(target, 0o755)
        expect(run([ok, "-o", target]), 0, "-o an executable file")
        check(os.stat(target).st_mode & 0o777 == 0o755, "the mode of an existing output was reset")
        dangling = w.join("dangling.tir")
        os.symlink("made.tir", dangling)
        expect(run([ok, "-o", dangling]), 0, "-o a dangling symlink")
        check(os.path.islink(dangling) and os.path.exists(w.join("made.tir")), "a dangling link was not written through")


@case
def print_ir_tree_dir_replaces_earlier_run():
    with Workdir() as w:
        ok = w.write("ok.tir", VALID)
        tree = w.join("tree")
        expect(run([ok, "--pass=verify,verify,verify", "--print-ir-tree-dir=" + tree]), 0)
        mine = w.write("tree/notes.txt", "keep me\n")
        other = w.write("tree/05_mine.tir", "# my own file\n")
        expect(run([ok, "--pass=verify", "--print-ir-tree-dir=" + tree]), 0)
        names = sorted(os.listdir(tree))
        check(names == ["00_input.tir", "01_verify.tir", "05_mine.tir", "notes.txt"], str(names))


# ---- Command line as in LLVM tools (issues 16, 17 item 13) ----

@case
def command_line_errors_have_the_error_form():
    with Workdir() as w:
        ok = w.write("ok.tir", VALID)
        cases = [
            ([ok, "--pas=flatten"], "unknown command-line option '--pas'; did you mean '--pass=flatten'?"),
            ([ok, "--emitt=c"], "did you mean '--emit=c'?"),
            ([ok, "-p", "flatten"], "unknown command-line option '-p'"),
            ([ok, "--target=cuda"], "--target: unknown target 'cuda'; available targets: c, llvm, opencl"),
            ([ok, "-O9"], "-O: optimisation level must be 0, 1, 2 or 3, got '9'"),
            ([ok, "--diagnostics-format=xml"], "--diagnostics-format: unknown diagnostics format 'xml'"),
            ([ok, "extra.tir"], "more than one input file"),
            (["run"], "run: no input file"),
            (["run", ok, "extra.tir"], "more than one input file"),
            ([ok, "--seed=-1"], "--seed: expected a non-negative integer, got '-1'"),
            ([ok, "--seed=x"], "--seed: expected a non-negative integer"),
            ([ok, "--max-steps=0"], "--max-steps: expected a positive integer"),
            ([ok, "--emit"], "option '--emit' needs a value"),
            ([ok, "--timing=csv"], "--timing: unknown timing format 'csv'"),
            ([ok, "--target=llvm", "--target-triple=nonsense"], "--target-triple: unknown target triple 'nonsense'"),
            ([ok, "--target=llvm", "--mcpu=pentium9000"], "--mcpu: 'pentium9000' is not a CPU"),
            ([ok, "--target=llvm", "--mattr=+nosuchfeature"], "--mattr: 'nosuchfeature' is not a feature"),
        ]
        for args, message in cases:
            r = expect(run(args), 2, " ".join(args[1:] if args[0] == ok else args))
            check(r.err.startswith("tirlower: error: ") and message in r.err and "flatten -p" not in r.err,
                  f"{args}: expected 'tirlower: error: ...{message}...', got:\n{r.err}")
            check(r.out == "", "a command-line error wrote to stdout")
            j = expect(run(["--diagnostics-format=json"] + args), 2, "JSON form")
            lines = j.err.splitlines()
            check(len(lines) == 1, f"{args}: not one JSON line:\n{j.err}")
            obj = json.loads(lines[0])
            check(obj["severity"] == "error" and message in obj["message"], lines[0])


@case
def help_is_grouped_by_category():
    r = expect(run(["--help"]), 0, "--help")
    headings = [line.strip().rstrip(":") for line in r.out.splitlines() if line and not line.startswith(" ")]
    for group in ("Input and output", "Pipeline", "Layout", "Target", "Interpreter (run, --verify-semantics)",
                  "Debugging and testing"):
        check(group in headings, f"--help lacks the group '{group}':\n{r.out}")
    check("{true}" not in r.out and "{text}" not in r.out, "--help shows CLI11's {default} syntax:\n" + r.out)
    check("--verify-each[=true|false]" in r.out and "--timing[=text|json]" in r.out, r.out)
    r = expect(run(["run", "--help"]), 0, "run --help")
    check("--func" in r.out and "--inputs" in r.out, r.out)


@case
def version_names_llvm():
    r = expect(run(["--version"]), 0, "--version")
    check(r.out.startswith("tirlower ") and "(LLVM 15." in r.out, r.out)


SCALE = """from tvm.script import tir as T


@T.prim_func
def scale(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
    for i in range(1024):
        B[i] = A[i] * T.float32(2)
"""


@case
def llvm_cpu_and_features():
    # AVX registers (ymm) appear in the vectorised loop only when the CPU or the features have AVX.
    with Workdir() as w:
        src = w.write("scale.tir", SCALE)

        def ymm_count(*flags):
            out = w.join("out.o")
            expect(run([src, "--target=llvm", "-O3", "--target-triple=x86_64-linux-gnu", "-o", out] + list(flags)), 0,
                   " ".join(flags))
            r = subprocess.run(["objdump", "-d", out], capture_output=True, text=True)
            check(r.returncode == 0, r.stderr)
            return r.stdout.count("ymm")

        check(ymm_count() == 0, "the default CPU is not generic x86-64")
        check(ymm_count("--mattr=+avx2") > 0, "--mattr=+avx2 did not reach the code generator")
        check(ymm_count("--mcpu=skylake") > 0, "--mcpu=skylake did not reach the code generator")
        check(ymm_count("--mcpu=skylake", "--mattr=-avx") == 0, "--mattr=-avx did not apply on top of --mcpu")
        expect(run([src, "--target=llvm", "--mcpu=native", "-o", w.join("n.o")]), 0, "--mcpu=native")


# ---- Bounded resources (issue 17 items 7, 8, 10, 12) ----

HUGE = VALID.replace('(16,), "float32"', '(1099511627776,), "float32"', 1)
SPIN = """from tvm.script import tir as T


@T.prim_func
def spin(A: T.Buffer((1,), "int32")):
    for i, j, k in T.grid(100000, 100000, 100000):
        A[0] = i + j + k
"""


@case
def interpreter_buffer_cap():
    with Workdir() as w:
        src = w.write("huge.tir", HUGE)
        r = expect(run(["run", src]), 1, "run with a 4 TiB parameter")
        check("huge.tir:5:" in r.err and "buffer 'A'" in r.err and "--max-buffer-bytes" in r.err
              and "internal error" not in r.err, r.err)
        r = expect(run([src, "--verify-semantics", "--pass=verify"]), 0, "--verify-semantics with a 4 TiB parameter")
        check("huge.tir:" in r.err and "buffer 'A'" in r.err and "internal error" not in r.err, r.err)
        ok = w.write("ok.tir", VALID)
        r = expect(run(["run", ok, "--max-buffer-bytes=32"]), 1, "--max-buffer-bytes=32")
        check("buffer 'A' needs 64 bytes" in r.err, r.err)
        expect(run(["run", ok, "--max-buffer-bytes=1K"]), 0, "--max-buffer-bytes=1K")


@case
def interpreter_step_limit():
    with Workdir() as w:
        src = w.write("spin.tir", SPIN)
        r = expect(run(["run", src]), 1, "run of 10^15 iterations")
        check("step limit of 100000000" in r.err and "--max-steps" in r.err and "spin.tir:" in r.err, r.err)
        r = expect(run(["run", src, "--max-steps=1000"]), 1, "--max-steps=1000")
        check("step limit of 1000 " in r.err, r.err)


@case
def input_size_limit():
    r = expect(run(["/dev/zero"]), 1, "reading /dev/zero")
    check("cannot read '/dev/zero'" in r.err and "256 MiB" in r.err, r.err)


@case
def signal_during_write_removes_temporary():
    import signal
    import time
    body = "".join(f"""
@T.prim_func
def f{k}(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = A[i] * T.float32({k})
""" for k in range(3000))
    with Workdir() as w:
        src = w.write("big.tir", "from tvm.script import tir as T\n" + body)
        out = w.join("out.json")
        hits = 0
        for attempt in range(20):
            p = subprocess.Popen([TIRLOWER, src, "--emit=json", "-o", out], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            sent = False
            while p.poll() is None:
                if any(n.startswith(".tirlower-") for n in os.listdir(w.path)):
                    p.send_signal(signal.SIGTERM if attempt % 2 else signal.SIGINT)
                    sent = True
                    break
            p.wait(timeout=60)
            hits += sent and p.returncode < 0
            leftovers = [n for n in os.listdir(w.path) if n.startswith(".tirlower")]
            check(not leftovers, f"attempt {attempt}: a signal during the write left {leftovers}")
            if hits >= 3:
                break
        check(hits > 0, "no signal reached the process during its write")


# ---- docs/cli.md documents every flag (issue 16) ----

DOCS_CLI = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "cli.md")


def help_flags(args):
    import re
    flags = set()
    for line in expect(run(args), 0, " ".join(args)).out.splitlines():
        match = re.match(r"\s+(-[^ ]+(?:, -[^ ]+)*)", line)
        if match:
            for name in match.group(1).split(", "):
                flags.add(re.match(r"-{1,2}[A-Za-z][\w-]*", name).group(0))
    return flags


@case
def help_flags_are_documented():
    import re
    with open(DOCS_CLI, encoding="utf-8") as f:
        docs = f.read()
    flags = help_flags(["--help"]) | help_flags(["run", "--help"])
    check(len(flags) > 30, f"too few flags found in --help: {sorted(flags)}")
    missing = [flag for flag in sorted(flags) if not re.search("`" + re.escape(flag) + r"(?![\w-])", docs)]
    check(not missing, f"flags in --help that docs/cli.md does not document: {missing}")


@case
def many_parameters_are_linear():
    """A signature of 10^5 parameters goes through the parser, every printer and every emitter.
    Each step is linear in the parameter count (a few tenths of a second); any step that scans
    the signature once per parameter takes minutes, or in LLVM tens of GiB, and hits the run()
    timeout. The outputs are checked, not only the exit codes."""
    import re
    count = 100000
    params = ["n: T.int32"]
    params += [f'A{i}: T.Buffer(({"n" if i % 2 else 4},), "float32")' for i in range(count)]
    text = ("from tvm.script import tir as T\n\n\n@T.prim_func\ndef wide(" + ", ".join(params) + "):\n"
            f"    A{count - 1}[0] = A0[3] + T.float32(1)\n")
    with Workdir() as w:
        source = w.write("wide.tir", text)
        printed = expect(run([source, "--emit=tir", "-o", "-"]), 0, "--emit=tir").out
        signature = printed[printed.index("def wide("):printed.index("):\n")]
        check(signature.count("T.Buffer(") == count, "not every buffer parameter prints inline")
        again = expect(run(["-", "--emit=tir", "-o", "-"], stdin=printed), 0, "reparse").out
        check(again == printed, "the printed module does not print back the same")
        module = json.loads(expect(run([source, "--emit=json", "-o", "-"]), 0, "--emit=json").out)
        function = module["module"]["functions"][0]
        check(len(function["params"]) == count + 1, "JSON parameter count")
        check(all(p["buffer"] is not None for p in function["params"][1:]), "a JSON parameter lost its buffer")
        c = expect(run([source, "--target=c", "-o", "-"]), 0, "--target=c").out
        prototype = c[c.index("int32_t wide("):]
        prototype = prototype[:prototype.index(")")]
        check(prototype.count("float *") == count, "C prototype parameter count")
        ir = expect(run([source, "--target=llvm", "--emit=llvm", "-o", "-"]), 0, "--target=llvm").out
        define = next(line for line in ir.splitlines() if line.startswith("define"))
        check(len(re.findall(r"\bptr\b", define)) == count, "LLVM signature parameter count")
        check(define.count("readonly") == count - 1, "every buffer but the written one is readonly")


# A module of several functions for --threads: layouts (applied from plans that several
# functions share, and from plans of their own), allocations, lets, branches and a vectorized
# loop (a remark per function under --remarks). broken[k] replaces fields of function k.
THREADS_FUNCTION = """

@T.prim_func
def kernel_{k}(a: T.handle, b: T.handle, scale: T.float32, n: T.int32):
    T.func_attr({{"global_symbol": "kernel_{k}", "tir.noalias": True}})
    A = T.match_buffer(a, (1, 8, 8, {c}), "float32", layout="NHWC")
    B = T.match_buffer(b, (1, 8, 8, {c}), "float32", layout="NHWC")
    {transform}
    C = T.alloc_buffer((16, {c}), "float32")
    for i in range(16):
        for j in range({c}):
            C[i, j] = T.float32({k} % 5)
    for h in range(8):
        for w in range(8):
            base: T.int32 = h + w // 4
            for c in range({c}):
                if c < {half}:
                    B[0, h, w, c] = A[0, h, w, c] * scale + C[base, c]
                else:
                    B[0, h, w, c] = T.max(A[0, h, w, c], T.float32(0))
    for v in T.vectorized({lanes}):
        B[0, 0, 0, v] = B[0, 0, 0, v] + C[0, v]
"""
THREADS_TRANSFORM = "T.transform_layout(B, lambda n, h, w, c: [n, c // 4, h, w, c % 4])"


def threads_module(count, broken=None):
    text = "from tvm.script import tir as T\n"
    for k in range(count):
        c = (8, 16, 32)[k % 3] + 4 * (k % 4 == 3)  # some channel counts are shared, some not
        fields = {"k": k, "c": c, "half": c // 2, "transform": THREADS_TRANSFORM, "lanes": 4}
        fields.update((broken or {}).get(k, {}))
        text += THREADS_FUNCTION.format(**fields)
    return text


def outputs_per_thread_count(w, path, flags, counts):
    """(output bytes, stderr) of a successful run of `path` with `flags` for each --threads count."""
    outputs = []
    for threads in counts:
        out = w.join(f"out{threads}")
        r = expect(run([path, *flags, f"--threads={threads}", "-o", out]), 0, f"{flags} --threads={threads}")
        with open(out, "rb") as f:
            outputs.append((f.read(), r.err))
    return outputs


@case
def threads():
    with Workdir() as w:
        ok = w.write("many.tir", threads_module(12))
        for flags in (["--target=c"], ["--target=c", "--emit=tir"], ["--target=c", "--emit=json"],
                      ["--target=llvm", "--emit=llvm"], ["--target=c", "--remarks"],
                      ["--pass=apply-layout-transforms,flatten,simplify", "--emit=tir"]):
            outputs = outputs_per_thread_count(w, ok, flags, ("1", "2", "4"))
            check(len(outputs[0][0]) > 1000, f"{flags}: output too short")
            check(outputs[1] == outputs[0] and outputs[2] == outputs[0],
                  f"{flags}: --threads=2 or 4 differs from --threads=1")
            if "--remarks" in flags:
                check(outputs[0][1].count("remark: vectorized loop 'v'") == 12, outputs[0][1])

        # Errors in the 2nd and the 5th function. One thread stops apply-layout-transforms at the
        # 2nd (a map that is not injective); the 5th's error (a vectorized loop of no constant
        # extent) would come in a later pass. Then the 5th's error alone: vectorize reports the
        # remarks of the four functions before it, then the error. Any number of threads reports
        # exactly what one thread does, exits 1, and writes nothing.
        not_injective = {"transform": "T.transform_layout(B, lambda n, h, w, c: [n, c % 4, h, w])"}
        no_constant_lanes = {"lanes": "n"}
        bad = w.write("bad.tir", threads_module(8, {1: not_injective, 4: no_constant_lanes}))
        late = w.write("late.tir", threads_module(8, {4: no_constant_lanes}))
        for path, wanted, remarks in ((bad, "is not injective", 0), (late, "needs a constant extent", 4)):
            results = []
            for threads in ("1", "2", "4"):
                out = w.join(f"bad{threads}.c")
                r = expect(run([path, "--target=c", "--remarks", f"--threads={threads}", "-o", out]), 1,
                           f"{path} --threads={threads}")
                check(not os.path.exists(out), f"--threads={threads} wrote output for a failing module")
                results.append(r.err)
            check(results[0].count("error:") == 1 and wanted in results[0], results[0])
            check(results[0].count("remark: vectorized loop 'v'") == remarks, results[0])
            check(results[1] == results[0] and results[2] == results[0],
                  f"diagnostics differ between thread counts:\n{results[0]}\n---\n{results[2]}")

        # The C emitter on workers: renamed symbols warn, then the 7th function's symbol is taken
        # (the 2nd's, renamed); then a function C cannot express (a 2-d buffer, the 5th) after a
        # warning. One thread's diagnostics and exit code, and no output, for any thread count.
        text = threads_module(8)
        taken = (text.replace('"kernel_1"', '"memcpy"').replace('"kernel_3"', '"sqrtf"')
                 .replace('"kernel_6"', '"tir_memcpy"'))
        two_d = w.write("two_d.tir", text.replace('"kernel_1"', '"memcpy"').replace(
            'C = T.alloc_buffer((16, 16), "float32")', 'C = T.alloc_buffer((16, 16), "float32", axis_separators=[1])', 1))
        for path, wanted in ((w.write("taken.tir", taken), "two functions have the C symbol 'tir_memcpy'"),
                             (two_d, "1-d buffers only")):
            results = []
            for threads in ("1", "2", "4"):
                out = w.join(f"emit{threads}.c")
                r = expect(run([path, "--target=c", f"--threads={threads}", "-o", out]), 1, f"{path} --threads={threads}")
                check(not os.path.exists(out), f"--threads={threads} wrote output for a failing module")
                results.append(r.err)
            check(wanted in results[0] and "warning: C symbol 'memcpy'" in results[0], results[0])
            check(results[1] == results[0] and results[2] == results[0],
                  f"emitter diagnostics differ between thread counts:\n{results[0]}\n---\n{results[2]}")

        # --threads is a count of at least 1: anything else is misuse (exit 2).
        for value in ("0", "-1", "two", "", "100000"):
            r = expect(run([ok, f"--threads={value}"]), 2, f"--threads={value}")
            check("--threads" in r.err, r.err)
        # --timing still lists every pass of a parallel section, with a share of its time.
        r = expect(run([ok, "--target=c", "--threads=2", "--timing=json", "-o", w.join("t.c")]), 0)
        report = json.loads(r.err)
        steps = {step["name"]: step for step in report["steps"]}
        for name in ("pass apply-layout-transforms", "pass flatten", "pass simplify"):
            check(name in steps or name.split(" ", 1)[1] in steps, str(list(steps)))


# The streamed compile: an input of 256 KiB or more, every pass function-local and an emitter
# that writes in parts (C, TVMScript) is parsed, lowered and written piece by piece. Its output and its
# diagnostics must be those of the whole-module path (--split-input-file without separators
# takes that path: one chunk, emitted as one module), for any thread count; --timing=json says
# which path wrote the output. Anything reported sends it down the whole-module path.
def compile_both(w, path, flags, code):
    """Runs the streamed and the whole-module path with 1, 2 and 4 threads, expecting exit
    `code`: [(output bytes or None, stderr without the timing line, streamed)]."""
    results = []
    for extra in ([], ["--split-input-file"]):
        for threads in ("1", "2", "4"):
            out = w.join(f"out{threads}{len(extra)}.c")
            if os.path.exists(out):
                os.remove(out)
            r = expect(run([path, *flags, *extra, f"--threads={threads}", "--timing=json", "-o", out]), code,
                       f"{path} {flags} {extra} --threads={threads}")
            lines = r.err.splitlines()
            report = json.loads(lines[-1])  # --timing=json's line comes last, on failures too
            data = open(out, "rb").read() if os.path.exists(out) else None
            results.append((data, "\n".join(lines[:-1]), report["streamed"]))
    return results


@case
def streamed_compile():
    with Workdir() as w:
        count = 320  # about 290 KiB
        ok = w.write("big.tir", threads_module(count))
        check(os.path.getsize(ok) >= 256 * 1024, "the module is too small to stream")
        for flags in (["--target=c"], ["--target=c", "--verify-each=false"],
                      ["--emit=c", "--pass=apply-layout-transforms,flatten,simplify"],
                      ["--emit=tir"], ["--target=c", "--emit=tir"], ["--emit=tir", "--tir-spelling=tirx"]):
            results = compile_both(w, ok, flags, 0)
            check(all(streamed for _, _, streamed in results[:3]), f"{flags}: not streamed")
            check(not any(streamed for _, _, streamed in results[3:]), f"{flags}: --split-input-file streamed")
            functions = results[0][0].count(b"int32_t kernel_" if "--emit=tir" not in flags else b"def kernel_")
            check(len(results[0][0]) > 100000 and functions == count, f"{flags}: output too short")
            for data, err, _ in results[1:]:
                check(data == results[0][0], f"{flags}: the streamed and whole-module outputs differ")
                check(err == results[0][1], f"{flags}: stderr differs: {err!r}")
        # TVMScript in the spelling of the input: a module some of whose functions are written in
        # TVM 0.25-0.27's (s_tir=True) prints every function in it, so pieces of the old spelling
        # alone send it down the whole-module path; a module all in the new spelling streams.
        newer = threads_module(count).replace("@T.prim_func\n", "@T.prim_func(s_tir=True)\n")
        mixed = threads_module(count).replace("@T.prim_func\n", "@T.prim_func(s_tir=True)\n", 1)
        for path, streams in ((w.write("newer.tir", newer), True), (w.write("mixed.tir", mixed), False)):
            results = compile_both(w, path, ["--emit=tir"], 0)
            check(all(streamed == streams for _, _, streamed in results[:3]), f"{path}: streamed is not {streams}")
            check(results[0][0].startswith(b"# from tvm.script import tirx as T\n"), results[0][0][:200])
            for data, err, _ in results[1:]:
                check(data == results[0][0] and err == results[0][1], f"{path}: the outputs differ")

        # A small input takes the whole-module path.
        r = expect(run([w.write("small.tir", threads_module(20)), "--target=c", "--timing=json", "-o", w.join("s.c")]), 0)
        check(json.loads(r.err.splitlines()[-1])["streamed"] is False, r.err)

        # Remarks and warnings are reported by the streamed compile as the whole-module path
        # reports them, in its order; the output is its output.
        text = threads_module(count)
        renamed = w.write("renamed.tir", text.replace('"kernel_250"', '"memcpy"'))
        for path, flags, wanted, times in ((ok, ["--target=c", "--remarks"], "remark: vectorized loop 'v'", count),
                                           (renamed, ["--target=c"], "warning: C symbol 'memcpy'", 1)):
            results = compile_both(w, path, flags, 0)
            check(all(streamed for _, _, streamed in results[:3]), f"{flags}: not streamed")
            check(results[0][1].count(wanted) == times, results[0][1][:2000])
            for data, err, _ in results[1:]:
                check(data == results[0][0] and err == results[0][1], f"{path} {flags}: runs differ")

        # Errors far into the input, each where a different step finds it: the parser (an
        # undefined name), a pass (a map that is not injective), the C emitter (a 2-d buffer), and
        # a function name that an earlier piece defined too. Exit 1, no output, and the
        # whole-module path's diagnostics for any thread count.
        not_injective = {"transform": "T.transform_layout(B, lambda n, h, w, c: [n, c % 4, h, w])"}
        parse_error = text.split("@T.prim_func")
        parse_error[200] = parse_error[200].replace("* scale", "* scael", 1)
        duplicate = text.replace("def kernel_290(", "def kernel_3(", 1)
        two_d = text.replace('C = T.alloc_buffer((16, 16), "float32")\n',
                             'C = T.alloc_buffer((16, 16), "float32", axis_separators=[1])\n', 40)
        cases = ((w.write("parse.tir", "@T.prim_func".join(parse_error)), "scael"),
                 (w.write("pass.tir", threads_module(count, {230: not_injective})), "is not injective"),
                 (w.write("two_d.tir", two_d), "1-d buffers only"),
                 (w.write("duplicate.tir", duplicate), "kernel_3"))
        for path, wanted in cases:
            results = compile_both(w, path, ["--target=c"], 1)
            # Found by the streamed compile itself, without the whole-module path.
            check(all(streamed for _, _, streamed in results[:3]), f"{path}: the streamed compile did not report it")
            check(results[0][0] is None, f"{path}: wrote output")
            check(wanted in results[0][1] and "error:" in results[0][1], results[0][1][:2000])
            for data, err, _ in results[1:]:
                check(data is None and err == results[0][1], f"{path}: diagnostics differ:\n{err[:2000]}")


# The streamed compile on what TVM prints: the corpus's functions (blocks in TVM 0.25-0.27's
# spelling, low-level and flat stages) renamed and joined into one module of more than 256 KiB.
@case
def streamed_compile_tvm_printed():
    corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tvm", "corpus")
    functions = []
    for name in sorted(os.listdir(corpus)):
        if not name.endswith(".tir") or name.startswith("relaxdyn"):
            continue  # (the dynamic-shape model's functions use the class's TypeVar)
        with open(os.path.join(corpus, name), encoding="utf-8") as f:
            text = f.read()
        if "class Module:\n" not in text:
            continue
        lines = text.split("class Module:\n", 1)[1].split("\n")
        functions.append("\n".join(line[4:] if line.startswith("    ") else line for line in lines).strip("\n"))
    module, k = "# from tvm.script import tirx as T\n", 0
    while len(module) < 300 * 1024:
        for function in functions:
            k += 1
            module += "\n\n" + re.sub(r"def (\w+)\(", lambda m: f"def {m.group(1)}_{k}(", function, count=1)
    module += "\n"
    with Workdir() as w:
        path = w.write("tvm.tir", module)
        for flags in (["--target=c"], ["--emit=tir"], ["--target=c", "--emit=tir"], ["--target=llvm", "--emit=tir"]):
            results = compile_both(w, path, flags, 0)
            check(all(streamed for _, _, streamed in results[:3]), f"{flags}: not streamed")
            check(len(results[0][0]) > 100000, f"{flags}: output too short")
            for data, err, _ in results[1:]:
                check(data == results[0][0] and err == results[0][1], f"{flags}: the streamed and whole-module runs differ")


# Parsing on several threads: inputs over 128 KiB are cut at top-level decorators into pieces
# parsed at once. A header of TypeVars (symbolic extents) comes first; the output of every
# emitter and the diagnostics must not depend on the thread count.
PARSE_FUNCTION = """
@T.prim_func
def rows_{k}(A: T.Buffer((n, 16), "float32"), B: T.Buffer((n, 16), "float32")):
    T.func_attr({{"global_symbol": "rows_{k}", "tir.noalias": True}})
    for i in range(n):
        for j in range(16):
            with T.sblock("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32({k}) + T.float32(1)
"""


def parse_module(count, edits=None):
    text = "# from typing import TypeVar\nfrom tvm.script import tirx as T\n\nn = TypeVar(\"n\")\n"
    for k in range(count):
        function = PARSE_FUNCTION.format(k=k)
        for old, new in (edits or {}).get(k, []):
            function = function.replace(old, new)
        text += function
    return text


@case
def threads_parse():
    with Workdir() as w:
        ok = w.write("big.tir", parse_module(800))
        check(os.path.getsize(ok) > 256 * 1024, "the module must be large enough to be cut into pieces")
        for flags in (["--emit=tir"], ["--target=c"], ["--emit=json"]):
            outputs = outputs_per_thread_count(w, ok, flags, ("1", "2", "3"))
            check(outputs[0][0].count(b"rows_799") >= 1, f"{flags}: the last function is missing")
            check(outputs[1] == outputs[0] and outputs[2] == outputs[0], f"{flags}: --threads=2 or 3 differs")
        # What one piece cannot decide alone is parsed on one thread: errors in two pieces (every
        # one reported, in order), a function defined in two pieces, a TypeVar declared after
        # functions, a warning. Each gives exactly what one thread gives.
        cases = {
            "errors": (parse_module(500, {40: [("T.float32(1)", "T.float32(1) +")],
                                          420: [("range(16)", "range(16")]}), 1),
            "redefined": (parse_module(500, {450: [("def rows_450", "def rows_3")]}), 1),
            "late_typevar": (parse_module(500) + "\nm = TypeVar(\"m\")\n" +
                             PARSE_FUNCTION.format(k=500).replace("(n, 16)", "(m, 16)").replace("range(n)", "range(m)"), 0),
        }
        for name, (text, code) in cases.items():
            path = w.write(name + ".tir", text)
            results = []
            for threads in ("1", "2", "4"):
                out = w.join(f"{name}{threads}.tir")
                r = expect(run([path, "--emit=tir", f"--threads={threads}", "-o", out]), code, f"{name} {threads}")
                produced = open(out, "rb").read() if os.path.exists(out) else None
                results.append((r.err, produced))
            check(results[1] == results[0] and results[2] == results[0], f"{name}: differs between thread counts")
            if code:
                check(results[0][1] is None, f"{name}: output written for a failing input")
            if name == "errors":
                check("errors.tir:373:" in results[0][0] and "errors.tir:3790:" in results[0][0], results[0][0])
            if name == "redefined":
                check("redefinition of function 'rows_3'" in results[0][0], results[0][0])


@case
def c_output_streamed():
    """The C file is written as the emitter goes (its text after the head through an unnamed
    temporary file), the head first: to a file, stdout, /dev/stdout on a pipe and a FIFO the same
    bytes (and to /dev/null), with 1 and 2 threads. An emitter error after more than a MiB of
    functions writes nothing."""
    import threading
    with Workdir() as w:
        text = threads_module(1200)
        ok = w.write("many.tir", text)
        reference = expect(run([ok, "--target=c", "--threads=1"]), 0, "C to stdout").stdout
        check(len(reference) > 1 << 20, f"the C text ({len(reference)} bytes) must pass a MiB")
        check(reference.startswith(b"// Generated by tirlower.") and reference.count(b"int32_t kernel_") == 1200,
              "the head does not come first, or functions are missing")
        check(reference.index(b"int32_t kernel_0(") < reference.index(b"int32_t kernel_1199("), "functions out of order")
        for threads in ("1", "2"):
            r = expect(run([ok, "--target=c", f"--threads={threads}"]), 0, f"stdout --threads={threads}")
            check(r.stdout == reference, f"stdout with --threads={threads} differs")
            out = w.join(f"out{threads}.c")
            expect(run([ok, "--target=c", f"--threads={threads}", "-o", out]), 0, f"-o --threads={threads}")
            with open(out, "rb") as f:
                check(f.read() == reference, f"-o file with --threads={threads} differs from stdout")
            expect(run([ok, "--target=c", f"--threads={threads}", "-o", os.devnull]), 0, "-o /dev/null")
            # /dev/stdout on a pipe: a link to "pipe:[N]", written in place through the link.
            r = expect(run([ok, "--target=c", f"--threads={threads}", "-o", "/dev/stdout"]), 0, "-o /dev/stdout")
            check(r.stdout == reference, f"-o /dev/stdout with --threads={threads} differs")
        fifo = w.join("pipe")
        os.mkfifo(fifo)
        received = []
        reader = threading.Thread(target=lambda: received.append(open(fifo, "rb").read()))
        reader.start()
        expect(run([ok, "--target=c", "--threads=2", "-o", fifo]), 0, "-o FIFO")
        reader.join(timeout=30)
        check(received == [reference], "the FIFO received other bytes")

        # The last function cannot be written in C (a 2-d buffer): the error comes after the text
        # of the others was streamed. Exit 1; an existing file keeps its contents, no new file.
        head, last = text.rsplit("@T.prim_func", 1)
        last = last.replace('"float32")\n    for i', '"float32", axis_separators=[1])\n    for i', 1)
        check("axis_separators" in last, "the broken function was not made")
        bad = w.write("bad.tir", head + "@T.prim_func" + last)
        existing = w.join("existing.c")
        for threads in ("1", "2"):
            with open(existing, "w") as f:
                f.write("previous contents\n")
            fresh = w.join(f"fresh{threads}.c")
            for out in (existing, fresh):
                r = expect(run([bad, "--target=c", f"--threads={threads}", "-o", out]), 1, f"bad -o --threads={threads}")
                check("1-d buffers only" in r.err and "many.tir" not in r.err, r.err)
            with open(existing) as f:
                check(f.read() == "previous contents\n", "a failing module changed the existing output")
            check(not os.path.exists(fresh), "a failing module created the output file")
            r = expect(run([bad, "--target=c", f"--threads={threads}"]), 1, "bad to stdout")
            check(r.stdout == b"", "a failing module wrote to stdout")
        leftovers = [n for n in os.listdir(w.path) if n.startswith(".tirlower")]
        check(not leftovers, f"temporary files left behind: {leftovers}")


def dynamic_symbols(path):
    r = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True)
    check(r.returncode == 0, "nm failed: " + r.stderr)
    return sorted(line.split()[-1] for line in r.stdout.splitlines() if " T " in line)


@case
def shared_library():
    """-o k.so: the C compiled into a shared library (--abi=tvm-ffi by default there); a
    toolchain that fails or cannot be run is a located error carrying its output, leaving no
    output file and no temporary directory; flags that do not apply are misuse."""
    with Workdir() as w:
        src = w.write("k.tir", VALID)
        so = w.join("k.so")
        env = dict(os.environ, TMPDIR=w.path)
        env.pop("CC", None)

        def build(*args, cc_env=None):
            e = dict(env, CC=cc_env) if cc_env else env
            r = subprocess.run([TIRLOWER, src] + list(args), capture_output=True, text=True, env=e, timeout=60)
            r.out, r.err = r.stdout, r.stderr
            return r

        expect(build("-o", so), 0, "-o k.so")
        with open(so, "rb") as f:
            check(f.read(4) == b"\x7fELF", "k.so is not an ELF file")
        check(dynamic_symbols(so) == ["__tvm_ffi_copy", "copy"], f"symbols {dynamic_symbols(so)}")
        plain = w.join("plain.so")
        expect(build("--emit=so", "--abi=c", "-o", plain), 0, "--emit=so --abi=c")
        check(dynamic_symbols(plain) == ["copy"], f"--abi=c symbols {dynamic_symbols(plain)}")
        c = expect(build("--target=c", "--abi=tvm-ffi"), 0, "--abi=tvm-ffi C").out
        check("int __tvm_ffi_copy(void *self, const tl_ffi_any *args, int32_t num_args, tl_ffi_any *result)" in c, c)
        check("__tvm_ffi_" not in expect(build("--target=c"), 0, "plain C").out, "--abi=c wrote an entry")

        with open(so, "wb") as f:
            f.write(b"previous")
        failing = w.write("failing-cc", "#!/bin/sh\necho 'cc: fatal error: no space on the moon' >&2\nexit 3\n")
        os.chmod(failing, 0o755)
        for how, args, cc_env in (("--cc", ["--cc=" + failing], None), ("CC", [], failing)):
            r = expect(build("-o", so, *args, cc_env=cc_env), 1, f"a failing compiler from {how}")
            check("k.tir:4:1: error: --emit=so: '" + failing + "' failed (exit status 3)" in r.err, r.err)
            check("no space on the moon" in r.err and "^" in r.err, r.err)
            with open(so, "rb") as f:
                check(f.read() == b"previous", "a failed build changed the existing output")
        fresh = w.join("fresh.so")
        r = expect(build("-o", fresh, "--cc=" + w.join("no-such-cc")), 1, "a compiler that does not exist")
        check("cannot run '" + w.join("no-such-cc") + "': No such file or directory" in r.err, r.err)
        check(not os.path.exists(fresh), "a failed build created the output")
        leftovers = [n for n in os.listdir(w.path) if n.startswith("tirlower-so-") or n.startswith(".tirlower")]
        check(not leftovers, f"temporary files left behind: {leftovers}")

        for args, what in ((["--abi=tvm-ffi"], "--abi with TIR output"),
                           (["--emit=h", "--target=c", "--abi=tvm-ffi"], "--abi with a header"), (["--emit=c", "--cc=gcc"], "--cc with C"),
                           (["--target=opencl", "-o", so], "--target=opencl with .so"),
                           (["--abi=fortran", "--target=c"], "an unknown ABI"),
                           (["--emit=so", "-O3", "--target=c"], "-O with C"),
                           (["--emit=so", "--target=llvm", "--openmp"], "--openmp with an LLVM .so")):
            r = expect(build(*args), 2, what)
            check(r.err.startswith("tirlower: error: "), r.err)


@case
def llvm_backend_loaded_on_demand():
    """The tool does not link libLLVM: the LLVM emitter is the module tirlower-llvm.so, opened only
    for an LLVM output, found beside the executable (or installed, relative to it; the install
    test), or named by TIRLOWER_LLVM_BACKEND; a missing module is a clear error, exit 1, no
    output, and the other targets do not need it."""
    needed = subprocess.run(["readelf", "-d", TIRLOWER], capture_output=True, text=True, check=True).stdout
    check("NEEDED" in needed and "libLLVM" not in needed, "the tool links libLLVM:\n" + needed)
    with Workdir() as w:
        src = w.write("copy.tir", VALID)
        obj = w.join("copy.o")
        expect(run([src, "--target=llvm", "--emit=obj", "-O2", "-o", obj]), 0, "--emit=obj")
        with open(obj, "rb") as f:
            check(f.read(4) == b"\x7fELF", "--emit=obj did not write an object file")
        missing = w.join("nowhere/tirlower-llvm.so")
        env = dict(os.environ, TIRLOWER_LLVM_BACKEND=missing)
        for flags in (["--target=llvm", "-o", w.join("a.ll")], ["--emit=obj", "-o", w.join("a.o")],
                      ["--emit=bc", "--mcpu=native", "-o", w.join("a.bc")]):
            r = subprocess.run([TIRLOWER, src, *flags], capture_output=True, text=True, env=env, timeout=60)
            check(r.returncode == 1, f"{flags} without the module exited {r.returncode}: {r.stderr}")
            check("tirlower: error: the LLVM backend (tirlower-llvm.so) is not installed: looked for " + missing
                  in r.stderr, f"{flags} without the module: {r.stderr!r}")
            check(not os.path.exists(flags[-1]), f"{flags} without the module created its output")
        r = subprocess.run([TIRLOWER, src, "--target=c", "-o", w.join("a.c")], capture_output=True, text=True,
                           env=env, timeout=60)
        check(r.returncode == 0 and os.path.exists(w.join("a.c")), f"--target=c needed the LLVM module: {r.stderr}")
        # A module that is not one: dlopen's reason is reported.
        env["TIRLOWER_LLVM_BACKEND"] = src
        r = subprocess.run([TIRLOWER, src, "--emit=llvm", "-o", w.join("b.ll")], capture_output=True, text=True,
                           env=env, timeout=60)
        check(r.returncode == 1 and "cannot load the LLVM backend " + src + ": " in r.stderr,
              f"a bad module: exit {r.returncode}, {r.stderr!r}")
        # The executable alone, without the module beside it or at its installed place.
        lonely = w.join("bin/tirlower")
        os.makedirs(os.path.dirname(lonely))
        shutil.copy(TIRLOWER, lonely)
        r = subprocess.run([lonely, src, "--emit=obj", "-o", w.join("c.o")], capture_output=True, text=True,
                           timeout=60, env={k: v for k, v in os.environ.items() if k != "TIRLOWER_LLVM_BACKEND"})
        check(r.returncode == 1 and "looked for " + w.join("bin/tirlower-llvm.so") + ", " in r.stderr
              and "reinstall tirlower" in r.stderr, f"the executable alone: exit {r.returncode}, {r.stderr!r}")


PIECES = """from tvm.script import tir as T


@T.prim_func
def scale(A: T.Buffer((1000,), "float32"), B: T.Buffer((1000,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i in range(1000):
        B[i] = A[i] * T.float32(1.5) + T.float32(0.25)


@T.prim_func
def exp_add(A: T.Buffer((1000,), "float32"), B: T.Buffer((1000,), "float32")):
    for i in range(1000):
        B[i] = T.exp(A[i]) + A[i]


@T.prim_func
def heap(A: T.Buffer((1000,), "float32"), B: T.Buffer((1000,), "float32")):
    tmp = T.alloc_buffer((70000,), "float32")
    for i in range(70000):
        tmp[i] = A[i % 1000] * T.float32(2)
    for i in range(1000):
        B[i] = tmp[i * 70] + tmp[i * 70 + 69]


@T.prim_func
def ints(A: T.Buffer((1000,), "int32"), B: T.Buffer((1000,), "int32")):
    T.func_attr({"tir.noalias": True})
    for i in range(1000):
        B[i] = A[i] * 3 + i % 7


@T.prim_func
def total(A: T.Buffer((1000,), "float32"), B: T.Buffer((1000,), "float32")):
    B[0] = T.float32(0)
    for i in range(1000):
        B[0] = B[0] + A[i]


@T.prim_func
def relu(A: T.Buffer((1000,), "float32"), B: T.Buffer((1000,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i in range(1000):
        B[i] = T.max(A[i], T.float32(0))


@T.prim_func
def pick(A: T.Buffer((1000,), "int32"), B: T.Buffer((1000,), "int32")):
    for i in range(1000):
        if A[i] % 8 == 0:
            B[i] = 11
        elif A[i] % 8 == 1:
            B[i] = 27
        elif A[i] % 8 == 2:
            B[i] = 5
        elif A[i] % 8 == 3:
            B[i] = 91
        elif A[i] % 8 == 4:
            B[i] = 3
        else:
            B[i] = 7


@T.prim_func
def pick_again(A: T.Buffer((1000,), "int32"), B: T.Buffer((1000,), "int32")):
    for i in range(1000):
        if A[i] % 8 == 0:
            B[i] = -4
        elif A[i] % 8 == 1:
            B[i] = 8
        elif A[i] % 8 == 2:
            B[i] = 15
        elif A[i] % 8 == 3:
            B[i] = 16
        elif A[i] % 8 == 4:
            B[i] = 23
        else:
            B[i] = 42
"""


@case
def llvm_objects_on_threads():
    """A module's functions are optimised and compiled in pieces on --threads threads and their
    objects joined: the object is byte-identical for any thread count, links, and each function
    computes what the same function compiled from tirlower's C computes (constant pools, lookup
    tables in .rodata reached through its section symbol, libm calls, heap storage)."""
    import ctypes
    with Workdir() as w:
        src = w.write("pieces.tir", PIECES)
        objects = {}
        for threads in (1, 2, 3, 8):
            out = w.join(f"t{threads}.o")
            expect(run([src, "--target=llvm", "--emit=obj", "-O3", "--fp-contract=off", f"--threads={threads}",
                        "-o", out]), 0, f"--threads={threads}")
            with open(out, "rb") as f:
                objects[threads] = f.read()
        check(all(o == objects[1] for o in objects.values()), "the object depends on the thread count")
        symbols = subprocess.run(["nm", "--defined-only", "-g", w.join("t2.o")], capture_output=True, text=True,
                                 check=True).stdout.split()
        names = ["scale", "exp_add", "heap", "ints", "total", "relu", "pick", "pick_again"]
        check(sorted(symbols[2::3]) == sorted(names), f"defined globals: {symbols}")
        expect(run([src, "--target=c", "-o", w.join("pieces.c")]), 0, "--target=c")
        for stem, inputs in (("llvm", [w.join("t2.o")]), ("c", [w.join("pieces.c")])):
            subprocess.run(["cc", "-O1", "-ffp-contract=off", "-fPIC", "-shared", *inputs, "-o", w.join(stem + ".so"),
                            "-lm"], check=True)
        libs = [ctypes.CDLL(w.join("llvm.so")), ctypes.CDLL(w.join("c.so"))]
        for name in names:
            integer = name in ("ints", "pick", "pick_again")
            element = ctypes.c_int32 if integer else ctypes.c_float
            results = []
            for lib in libs:
                a = (element * 1000)(*[element((k * 37 % 101) - 50 if integer else (k % 53) / 17.0 - 1.5)
                                       for k in range(1000)])
                b = (element * 1000)()
                code = getattr(lib, name)(a, b)
                results.append((code, bytes(b)))
            check(results[0] == results[1], f"{name}: the joined object and the C differ")


def main():
    global TIRLOWER, PLUGIN
    parser = argparse.ArgumentParser()
    parser.add_argument("--tirlower", required=True)
    parser.add_argument("--plugin", help="the pass plugin test/cli/plugin/scale_plugin.cpp builds")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("cases", nargs="*")
    args = parser.parse_args()
    if args.list:
        print("\n".join(CASES))
        return 0
    TIRLOWER = os.path.abspath(args.tirlower)
    PLUGIN = os.path.abspath(args.plugin) if args.plugin else None
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
