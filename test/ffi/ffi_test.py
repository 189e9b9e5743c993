#!/usr/bin/env python3
"""The TVM FFI entry from Python: test/ffi/kernels.tir built into one shared library with
tirlower.build (python/tirlower, --emit=so), loaded through tvm_ffi, called on numpy arrays and
compared with the interpreter (`tirlower run`, same pipeline); then every check of the entry
raises its documented error (docs/abi.md, "Errors").

Usage: ffi_test.py --tirlower BUILD/tools/tirlower/tirlower --target c|llvm [--venv DIR]
Runs itself again with the test virtual environment's python (scripts/bootstrap makes it:
apache-tvm-ffi and numpy); exits 77 (skipped) when there is none.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
KERNELS = os.path.join(HERE, "kernels.tir")


def reexec_in_venv(venv):
    python = os.path.join(venv, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(venv):
        return
    if not os.path.exists(python):
        print(f"skipped: no test environment at {venv} (scripts/bootstrap makes it)")
        sys.exit(77)
    os.execv(python, [python] + sys.argv)


class Tester:
    def __init__(self, tirlower, target, scratch):
        import numpy as np
        sys.path.insert(0, os.path.join(ROOT, "python"))
        import tirlower as package

        self.np = np
        self.tirlower = tirlower
        self.target = target
        self.scratch = scratch
        self.package = package
        self.mod = package.build(KERNELS, target=target, tirlower=tirlower)
        self.failures = 0
        self.count = 0

    # The interpreter's outputs for `func` on `inputs` (name -> numpy array or scalar).
    def interpret(self, func, inputs, outputs):
        np = self.np
        args = [self.tirlower, "run", KERNELS, f"--target={self.target}", f"--func={func}"]
        for name, value in inputs.items():
            path = os.path.join(self.scratch, f"{func}.{name}.in.npy")
            np.save(path, np.array(value, order="C"))
            args.append(f"--inputs={name}={path}")
        paths = {}
        for name in outputs:
            paths[name] = os.path.join(self.scratch, f"{func}.{name}.out.npy")
            args.append(f"--outputs={name}={paths[name]}")
        done = subprocess.run(args, capture_output=True, text=True)
        if done.returncode != 0:
            raise AssertionError(f"tirlower run failed: {' '.join(args)}\n{done.stderr}")
        return {name: np.load(path) for name, path in paths.items()}

    def case(self, name, fn):
        self.count += 1
        try:
            fn()
            print(f"ok: {name}")
        except Exception:
            self.failures += 1
            print(f"FAIL: {name}")
            traceback.print_exc(file=sys.stdout)

    def same(self, actual, expected, exact=True):
        np = self.np
        expected = expected.reshape(actual.shape)
        if exact:
            assert np.array_equal(actual, expected), f"differs:\n{actual}\nexpected\n{expected}"
        else:
            assert np.allclose(actual, expected, rtol=1e-3, atol=1e-3), f"differs:\n{actual}\nexpected\n{expected}"

    def raises(self, kind, fragments, func, *args):
        try:
            self.mod[func](*args)
        except kind as e:
            text = str(e)
            for fragment in fragments:
                assert fragment in text, f"{kind.__name__} {text!r} lacks {fragment!r}"
            return
        except Exception as e:  # the wrong kind
            raise AssertionError(f"expected {kind.__name__}, got {type(e).__name__}: {e}")
        raise AssertionError(f"expected {kind.__name__} containing {fragments}, nothing was raised")

    # ---- results against the interpreter

    def results(self):
        np = self.np
        rng = np.random.default_rng(7)

        def add_f32():
            a = rng.standard_normal((4, 8)).astype("float32")
            b = rng.standard_normal((4, 8)).astype("float32")
            c = np.zeros((4, 8), "float32")
            assert self.mod["add_f32"](a, b, c) is None
            self.same(c, self.interpret("add_f32", {"A": a, "B": b}, ["C"])["C"])

        def scale_f16():
            a = rng.standard_normal(16).astype("float16")
            b = np.zeros(16, "float16")
            self.mod["scale_f16"](a, b, 1.5)
            expected = self.interpret("scale_f16", {"A": a, "k": np.float32(1.5)}, ["B"])["B"]
            self.same(b, expected)

        def dot_i8_symbolic():
            for rows in (1, 5, 12):
                a = rng.integers(-128, 128, (rows, 8)).astype("int8")
                w = rng.integers(-128, 128, 8).astype("int8")
                c = np.zeros(rows, "int32")
                self.mod["dot_i8"](a, w, c)
                expected = self.interpret("dot_i8", {"A": a, "W": w, "n": np.int64(rows)}, ["C"])["C"]
                self.same(c, expected)
                assert np.array_equal(c, a.astype("int32") @ w.astype("int32"))

        def strided_parameter():
            wide = rng.standard_normal((3, 20)).astype("float32")
            view = wide[:, :16]  # strides (20, 1) in elements, as the buffer declares
            b = np.zeros((3, 16), "float32")
            self.mod["rows_of_wide"](view, b)
            expected = self.interpret("rows_of_wide", {"A": wide.reshape(-1)[:56]}, ["B"])["B"]
            self.same(b, expected)
            self.same(b, view * 2)

        def transformed_layout():
            a = rng.standard_normal(130).astype("float32")
            bias = rng.standard_normal(130).astype("float32")
            b = np.full((33, 4), 7, "float32")  # the physical shape: 130 channels in 33 blocks of 4
            self.mod["blocked_bias"](a, bias, b)
            expected = self.interpret("blocked_bias", {"A": a, "bias": bias}, ["B"])["B"]
            self.same(b.reshape(-1)[:130], expected.reshape(-1)[:130])
            self.same(b.reshape(-1)[:130], a + bias)

        def assert_passes():
            a = np.arange(4, dtype="float32")
            self.mod["checked_scale"](a, 3)
            self.same(a, np.arange(4, dtype="float32") * 3)

        def several_functions():
            names = ["add_f32", "scale_f16", "dot_i8", "pair_sum", "rows_of_wide", "checked_scale", "blocked_bias"]
            for name in names:
                assert self.mod[name] is not None

        for name, fn in list(locals().items()):
            if callable(fn):
                self.case(f"result: {name}", fn)

    # ---- each check raises its documented error

    def errors(self):
        np = self.np
        a = np.zeros((4, 8), "float32")

        checks = {
            "too few arguments": (TypeError, ["add_f32(A: Tensor[(4, 8), float32]", "expected 3 arguments, got 2"],
                                  "add_f32", a, a),
            "an int for a tensor": (TypeError, ["argument #1 'B' must be a tensor", "got int"], "add_f32", a, 1, a),
            "wrong dtype": (TypeError, ["argument #2 'C' has dtype float64, expected float32"], "add_f32", a, a,
                            np.zeros((4, 8), "float64")),
            "wrong dtype code (int32 for float32)": (TypeError,
                                                    ["argument #1 'B' has dtype int32, expected float32"],
                                                    "add_f32", a, np.zeros((4, 8), "int32"), a),
            "wrong dtype (int8 for float16)": (TypeError, ["argument #0 'A' has dtype int8, expected float16"],
                                               "scale_f16", np.zeros(16, "int8"), np.zeros(16, "float16"), 1.0),
            "wrong ndim": (ValueError, ["argument #0 'A' has ndim 1, expected 2"], "add_f32", np.zeros(32, "float32"),
                           a, a),
            "wrong extent": (ValueError, ["argument #1 'B' has shape[1] 9, expected 8"], "add_f32", a,
                             np.zeros((4, 9), "float32"), a),
            "symbolic extent disagrees": (ValueError, ["argument #1 'B' has shape[0] 4, expected 5",
                                                       "n, from A.shape[0]"],
                                          "pair_sum", np.zeros((5, 2), "float32"), np.zeros(4, "float32")),
            "non-compact strides": (ValueError, ["argument #0 'A' has strides[0] 16, expected 8 (a compact tensor)"],
                                    "add_f32", np.zeros((8, 8), "float32")[::2], a, a),
            "declared strides differ": (ValueError, ["argument #0 'a' has strides[0] 16, expected 20"], "rows_of_wide",
                                        np.zeros((3, 16), "float32"), np.zeros((3, 16), "float32")),
            "a float for an int": (TypeError, ["argument #1 'k' must be an int (int32), got float"], "checked_scale",
                                   np.zeros(4, "float32"), 1.5),
            "a tensor for a float": (TypeError, ["argument #2 'k' must be a float (float32), got ffi.Tensor"],
                                     "scale_f16", np.zeros(16, "float16"), np.zeros(16, "float16"), a),
            "failed assert": (RuntimeError, ["k must be positive"], "checked_scale", np.zeros(4, "float32"), 0),
            "unaligned data": (ValueError, ["argument #0 'A' has data at address", "not a multiple of 4 bytes"],
                               "add_f32", np.frombuffer(np.zeros(4 * 8 * 4 + 1, "uint8")[1:].data,
                                                        "float32").reshape(4, 8), a, a),
        }
        for name, (kind, fragments, func, *args) in checks.items():
            self.case(f"error: {name}", lambda: self.raises(kind, fragments, func, *args))

    def package_errors(self):
        pkg = self.package

        def diagnostics_become_exceptions():
            try:
                pkg.build("from tvm.script import tir as T\n\n@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n"
                          "    A[0] = B[0]\n", target=self.target, tirlower=self.tirlower)
            except pkg.CompileError as e:
                assert "error:" in str(e) and "'B'" in str(e), str(e)
                assert e.returncode == 1
                return
            raise AssertionError("no CompileError")

        def misuse_is_usage_error():
            try:
                pkg.build(KERNELS, target=self.target, tirlower=self.tirlower, abi="fortran")
            except pkg.UsageError as e:
                assert e.returncode == 2 and "--abi" in str(e), str(e)
                return
            raise AssertionError("no UsageError")

        self.case("package: a diagnostic becomes CompileError", diagnostics_become_exceptions)
        self.case("package: misuse becomes UsageError", misuse_is_usage_error)

    def torch(self):
        try:
            import torch
        except ImportError:
            print("note: torch is not installed; the torch case is not run")
            return

        def torch_tensors():
            a = torch.randn(4, 8)
            b = torch.randn(4, 8)
            c = torch.zeros(4, 8)
            self.mod["add_f32"](a, b, c)
            assert torch.equal(c, a + b)

        self.case("result: torch tensors through DLPack", torch_tensors)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tirlower", required=True)
    parser.add_argument("--target", default="c")
    parser.add_argument("--venv", default=os.environ.get("TIRLOWER_TEST_VENV", os.path.join(ROOT, ".venv-test")))
    args = parser.parse_args()
    reexec_in_venv(args.venv)
    with tempfile.TemporaryDirectory(prefix="tirlower-ffi-") as scratch:
        tester = Tester(os.path.abspath(args.tirlower), args.target, scratch)
        tester.results()
        tester.errors()
        tester.package_errors()
        tester.torch()
    print(f"{tester.count - tester.failures} passed, {tester.failures} failed")
    return 1 if tester.failures else 0


if __name__ == "__main__":
    sys.exit(main())
