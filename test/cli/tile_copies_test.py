#!/usr/bin/env python3
"""Property test of the tile-copies pass on random copies.

    tile_copies_test.py --tirlower PATH [--cases N] [--seed S]

Each case is a copy B[i...] = A[p(i)...] over a random shape (rank 2 to 4), with A's axes a
random permutation of B's, loops in a random order, and a random layout of B (none, a
permutation, or an axis split into blocks of 2, 4 or 8 as NCHWc does). tirlower lowers it with
tile-copies at any size, with streaming stores and tiles of 16 to 1024 input bytes (so that
the small copies get tiles smaller than their loops) under
--verify-semantics, which runs the function on random inputs before and after every pass and
fails on the first difference, then emits C from the result. Every case must pass, and the pass
must have rewritten (a remark) at least a third of them: the test is about the rewrites, not
about copies the pass leaves alone.
"""
import argparse
import random
import subprocess
import sys
import tempfile

PIPELINE = ("apply-layout-transforms,flatten,tile-copies{{min-bytes=0,nontemporal-bytes=0,tile-bytes={}}},vectorize,"
            "simplify,remove-no-op")


def case(rng, k):
    rank = rng.randint(2, 4)
    shape = [rng.choice([1, 2, 3, 4, 6, 8, 12, 16]) for _ in range(rank)]
    dtype = rng.choice(["float32", "float32", "int8", "float64", "int16"])
    perm = list(range(rank))
    rng.shuffle(perm)
    names = [f"v{d}" for d in range(rank)]
    a_shape = [shape[p] for p in perm]
    layout = ""
    kind = rng.choice(["none", "permute", "block", "block"])
    if kind == "permute":
        order = list(range(rank))
        rng.shuffle(order)
        layout = f"    T.transform_layout(B, lambda {', '.join(names)}: [{', '.join(names[d] for d in order)}])\n"
    elif kind == "block":
        axes = [d for d in range(rank) if shape[d] % 2 == 0 and shape[d] > 1]
        if axes:
            d = rng.choice(axes)
            f = rng.choice([b for b in (2, 4, 8) if shape[d] % b == 0])
            outer = [names[e] if e != d else f"{names[d]} // {f}" for e in range(rank)]
            layout = f"    T.transform_layout(B, lambda {', '.join(names)}: [{', '.join(outer)}, {names[d]} % {f}])\n"
    loops = list(range(rank))
    rng.shuffle(loops)
    text = "from tvm.script import tir as T\n\n\n@T.prim_func\n"
    text += (f"def copy{k}(A: T.Buffer(({', '.join(map(str, a_shape))},), \"{dtype}\"), "
             f"B: T.Buffer(({', '.join(map(str, shape))},), \"{dtype}\")):\n")
    text += f"    T.func_attr({{\"global_symbol\": \"copy{k}\", \"tir.noalias\": True}})\n" + layout
    indent = "    "
    for d in loops:
        text += f"{indent}for i{d} in range({shape[d]}):\n"
        indent += "    "
    text += f"{indent}B[{', '.join(f'i{d}' for d in range(rank))}] = A[{', '.join(f'i{p}' for p in perm)}]\n"
    return text


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tirlower", required=True)
    parser.add_argument("--cases", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rewritten = tiled = 0
    with tempfile.TemporaryDirectory(prefix="tile-copies-") as tmp:
        for k in range(args.cases):
            path = f"{tmp}/copy{k}.tir"
            with open(path, "w") as f:
                f.write(case(rng, k))
            pipeline = PIPELINE.format(rng.choice([16, 64, 256, 1024]))
            result = subprocess.run([args.tirlower, path, f"--pass-pipeline={pipeline}", "--verify-semantics",
                                     "--remarks", "--emit=c", "-o", f"{tmp}/copy{k}.c"], capture_output=True, text=True)
            if result.returncode != 0:
                with open(path) as f:
                    print(f"case {k} failed (exit {result.returncode}):\n{f.read()}\n{result.stderr}", file=sys.stderr)
                return 1
            rewritten += "remark: tile-copies:" in result.stderr
            tiled += ", tile " in result.stderr
    print(f"tile_copies_test: {args.cases} random copies agree before and after every pass; "
          f"tile-copies rewrote {rewritten}, {tiled} with a tile smaller than its loop")
    if rewritten * 3 < args.cases or tiled * 10 < args.cases:
        print(f"tile_copies_test: only {rewritten} of {args.cases} cases were rewritten, {tiled} tiled", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
