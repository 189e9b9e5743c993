#!/usr/bin/env python3
"""`meson install` into a temporary DESTDIR, then checks what a user gets: the binary, its LLVM
backend module (and that the installed binary finds it), the library, headers, pkg-config
file, man page, bash completion and docs; builds an out-of-tree program (scale_constants.cpp)
against the installed copy with pkg-config, and checks that its own pass runs beside the product's: its output on a file equals the installed tirlower's on the
same file with the constants already scaled.
    check_install.py --build BUILD_DIR --source SOURCE_DIR"""
import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

INPUT = """from tvm.script import tir as T


@T.prim_func
def scale(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
    for i, j in T.grid(4, 8):
        B[i, j] = A[i, j] * T.float32({c}) + T.float32({d})
"""


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(command, **kw):
    result = subprocess.run(command, capture_output=True, text=True, **kw)
    if result.returncode != 0:
        fail(f"{' '.join(command)} exited {result.returncode}:\n{result.stdout[-3000:]}{result.stderr[-3000:]}")
    return result.stdout


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", required=True)
    p.add_argument("--source", required=True)
    args = p.parse_args()
    options = {o["name"]: o["value"] for o in json.loads(run(["meson", "introspect", "--buildoptions", args.build]))}
    prefix = options["prefix"]
    with tempfile.TemporaryDirectory(prefix="tirlower-install-") as dest:
        run(["meson", "install", "-C", args.build, "--destdir", dest, "--no-rebuild", "--quiet"])
        root = dest + prefix

        def installed(*parts):
            path = os.path.join(root, *parts)
            if not os.path.exists(path):
                fail(f"not installed: {os.path.join(prefix, *parts)}")
            return path

        tirlower = installed(options["bindir"], "tirlower")
        installed(options["libdir"], "libtirlower.a")
        installed(options["libdir"], "tirlower", "tirlower-llvm.so")  # the LLVM backend module
        pc_dir = os.path.dirname(installed(options["libdir"], "pkgconfig", "tirlower.pc"))
        for header in ("ir/expr.h", "transform/pass.h", "parse/parser.h", "codegen/c_emitter.h",
                       "codegen/llvm/llvm_emitter.h", "codegen/opencl/opencl_emitter.h", "interp/interpreter.h"):
            installed(options["includedir"], "tirlower", header)
        man = gzip.open(installed(options["mandir"], "man1", "tirlower.1.gz")).read().decode()
        if ".TH TIRLOWER" not in man or "\\-\\-pass" not in man:
            fail("the man page lacks its title or the --pass flag")
        if ".SH \"SEE ALSO\"" not in man or ".SH \"EXIT STATUS\"" not in man:
            fail("the man page lacks its SEE ALSO or EXIT STATUS section")
        completion = installed(options["datadir"], "bash-completion", "completions", "tirlower")
        run(["bash", "-n", completion])
        for doc in ("README.md", "LICENSE", "docs/language.md", "docs/abi.md", "docs/cli.md"):
            installed(options["datadir"], "doc", "tirlower", doc)

        # The out-of-tree program, compiled and linked with what pkg-config says.
        env = dict(os.environ, PKG_CONFIG_PATH=pc_dir)
        define = ["--define-variable=prefix=" + root]
        flags = run(["pkg-config", *define, "--cflags", "--libs", "tirlower"], env=env).split()
        exe = os.path.join(dest, "scale_constants")
        cxx = shutil.which(os.environ.get("CXX", "c++")) or "c++"
        run([cxx, os.path.join(args.source, "test", "install", "scale_constants.cpp"), "-o", exe, *flags])

        original = os.path.join(dest, "in.tir")
        scaled = os.path.join(dest, "scaled.tir")
        with open(original, "w") as f:
            f.write(INPUT.format(c="1.5", d="-0.25"))
        with open(scaled, "w") as f:
            f.write(INPUT.format(c="3.0", d="-0.5"))
        ours = run([exe, original, "flatten,scale-float-constants{factor=2}"])
        theirs = run([tirlower, scaled, "--pass=flatten"])
        if ours != theirs:
            fail(f"the out-of-tree pass gave\n{ours}\nbut tirlower on the scaled input gives\n{theirs}")
        if "T.float32(3.0)" not in ours or "B_flat[" not in ours:
            fail("unexpected output:\n" + ours)
        # The installed tool finds its LLVM backend module relative to itself (DESTDIR included).
        obj = os.path.join(dest, "scaled.o")
        run([tirlower, scaled, "--target=llvm", "--emit=obj", "-O2", "-o", obj])
        with open(obj, "rb") as f:
            if f.read(4) != b"\x7fELF":
                fail("the installed tirlower's --emit=obj did not write an object file")
        bad = subprocess.run([exe, original, "flatten,scale-float-constants{factr=2}"], capture_output=True,
                             text=True)
        if bad.returncode != 2 or "factr" not in bad.stderr:
            fail(f"a bad option of the user's pass: exit {bad.returncode}, {bad.stderr!r}")
    print("installed tree and the out-of-tree pass: OK")


if __name__ == "__main__":
    main()
