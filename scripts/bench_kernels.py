"""`scripts/bench kernels`: tirlower's code against TVM's own build, on the TIR TVM prints.

The kernel set is bench/kernels/ (bench/kernels/README.md): operators at realistic sizes and the
fused PrimFuncs of a LLaMA-style decoder layer, exactly as TVM 0.27 prints them, with
MANIFEST.json giving each function's parameters. Per kernel, this builds

  TVM      tvm.compile of the same text, target llvm, mcpu = the host's CPU as TVM's LLVM names
           it, mattr = the host's features that name lacks or has wrongly (only with --tvm=VENV;
           one thread: TVM_NUM_THREADS=1)
  LLVM     tirlower --target=llvm --emit=obj -O3 --mcpu=native
  gcc C    tirlower --target=c, then gcc -O3 -march=native (BENCH_CFLAGS)
  clang C  the same C through clang

links each of tirlower's three into a shared object with a small C timing loop, fills every
parameter with the same pseudo-random data, runs each once and compares every parameter with the
reference (TVM's output, else tirlower's LLVM object): floats within a tolerance relative to the
output's magnitude, integers exactly. Then it times them paired and interleaved: R rounds, each
timing one sample of every backend in turn (the order rotates from round to round), a sample
being the mean of enough back-to-back calls to last about 20 ms after one untimed call. A
backend's time is the median of its samples, and its ratio to TVM the median over rounds of
sample / TVM's sample of the same round, so both sides see the same machine weather. The last
lines are the geomeans of the ratios and the load average before and after.

--clock=cpu times each sample by the CPU time of the timing thread (time.thread_time; both TVM's
time_evaluator and tirlower's loop run the kernel in that thread), as the difference between
2N and N back-to-back calls over N, which cancels the evaluator's fixed cost: on a machine that
other work loads, a sample then leaves out the time the kernel waited for a core, though not
what the other work does to the caches. The default, --clock=wall, is what a user's program
sees on a quiet machine.

Developer-time only: no test runs it. Without --tvm it needs no Python package (plain ctypes);
with --tvm=VENV it re-executes itself under VENV's python, which must hold apache-tvm 0.27 and
numpy (scripts/gen-tvm-kernels creates it).
"""
import ctypes
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = os.path.join(ROOT, "bench", "kernels")
REEXEC_MARK = "TIRLOWER_BENCH_KERNELS_VENV"
SAMPLE_SECONDS = 0.02

USAGE = ("usage: scripts/bench kernels [--runs=R] [--keep=DIR] [--tvm=VENV] [--only=REGEX] [--n=N] [--clock=wall|cpu]\n"
         "       scripts/bench kernels --samples [--runs=R] [--keep=DIR] [--tvm=VENV] [--only=REGEX]")

# dtype -> (code for the support library, bytes, C type, tolerance relative to the output's scale)
DTYPES = {"float32": (0, 4, "float", 2e-4), "float16": (1, 2, "_Float16", 2e-2), "int8": (2, 1, "int8_t", 0),
          "int32": (3, 4, "int32_t", 0), "int64": (4, 8, "int64_t", 0), "uint8": (5, 1, "uint8_t", 0),
          "bool": (6, 1, "bool", 0), "float64": (7, 8, "double", 1e-9)}

SUPPORT_C = r"""
#include <math.h>
#include <stdint.h>
#include <string.h>

static uint64_t mix(uint64_t x) { /* splitmix64 */
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* Pseudo-random data: floats uniform in [-1, 1), integers over their range (int8) or [-100, 100]. */
void tl_fill(void *p, int64_t count, int code, uint64_t seed) {
  for (int64_t i = 0; i < count; ++i) {
    uint64_t r = mix(seed * 0x100000001b3ull + (uint64_t)i);
    double u = (double)(r >> 11) * 0x1.0p-53 * 2.0 - 1.0;
    int64_t k = (int64_t)(r % 201) - 100;
    switch (code) {
    case 0: ((float *)p)[i] = (float)u; break;
    case 1: ((_Float16 *)p)[i] = (_Float16)u; break;
    case 2: ((int8_t *)p)[i] = (int8_t)(r & 0xff); break;
    case 3: ((int32_t *)p)[i] = (int32_t)k; break;
    case 4: ((int64_t *)p)[i] = k; break;
    case 5: ((uint8_t *)p)[i] = (uint8_t)(r & 0xff); break;
    case 6: ((uint8_t *)p)[i] = (uint8_t)(r & 1); break;
    default: ((double *)p)[i] = u; break;
    }
  }
}

static double at(const void *p, int64_t i, int code) {
  switch (code) {
  case 0: return ((const float *)p)[i];
  case 1: return ((const _Float16 *)p)[i];
  case 2: return ((const int8_t *)p)[i];
  case 3: return ((const int32_t *)p)[i];
  case 4: return (double)((const int64_t *)p)[i];
  case 5: case 6: return ((const uint8_t *)p)[i];
  default: return ((const double *)p)[i];
  }
}

/* The largest |a - ref| (infinity where one is NaN and the other not); *scale = max |ref|. */
double tl_compare(const void *a, const void *ref, int64_t count, int code, double *scale) {
  double worst = 0, big = 0;
  for (int64_t i = 0; i < count; ++i) {
    double x = at(a, i, code), y = at(ref, i, code);
    if (isnan(x) || isnan(y)) {
      if (isnan(x) != isnan(y))
        worst = INFINITY;
      continue;
    }
    double d = x == y ? 0 : fabs(x - y);
    if (d > worst)
      worst = d;
    if (fabs(y) > big && !isinf(y))
      big = fabs(y);
  }
  *scale = big;
  return worst;
}
"""

WRAPPER_C = r"""#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <time.h>
#include "HEADER"

int32_t tl_call(void **b, const int64_t *s) { return CALL; }

/* The mean seconds of `number` back-to-back calls, after one untimed call; < 0 if one failed. */
double tl_time(int64_t number, void **b, const int64_t *s) {
  struct timespec t0, t1;
  if (CALL != 0)
    return -1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int64_t i = 0; i < number; ++i)
    if (CALL != 0)
      return -1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return ((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9) / (double)number;
}
"""


def find_compiler(*names):
    for name in names:
        if shutil.which(name):
            return name
    return None


def parse_args(args):
    opts = {"runs": 7, "keep": None, "tvm": None, "only": None, "n": None, "clock": "wall"}
    for a in args:
        m = re.fullmatch(r"--(runs|keep|tvm|only|n|clock)=(.+)", a)
        if not m:
            sys.exit(USAGE)
        key, value = m.groups()
        if key == "clock" and value not in ("wall", "cpu"):
            sys.exit(USAGE)
        if key in ("runs", "n"):
            if not value.isdigit() or int(value) < 1:
                sys.exit(USAGE)
            value = int(value)
        opts[key] = value
    if opts["only"]:
        opts["only"] = re.compile(opts["only"])
    return opts


def reexec_under(venv, argv):
    """With --tvm=VENV: continue under VENV's python (TVM and numpy live there), one TVM thread."""
    venv = os.path.realpath(venv)
    py = os.path.join(venv, "bin", "python")
    if os.path.realpath(sys.prefix) == venv:
        return
    if os.environ.get(REEXEC_MARK) == venv:
        sys.exit(f"bench: re-executed under {py} but sys.prefix is {sys.prefix}")
    if not os.access(py, os.X_OK):
        sys.exit(f"bench: --tvm={venv}: no {py} (scripts/gen-tvm-kernels --venv {venv} creates it)")
    env = dict(os.environ, TVM_NUM_THREADS="1")
    env[REEXEC_MARK] = venv
    os.execve(py, [py, os.path.join(ROOT, "scripts", "bench")] + argv, env)


def run(command):
    r = subprocess.run(command, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(" ".join(command) + ": " + (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[0])


class Buffers:
    """One backend's copy of a kernel's parameters (64-byte aligned, from libc)."""
    libc = ctypes.CDLL(None)
    libc.aligned_alloc.restype = ctypes.c_void_p
    libc.aligned_alloc.argtypes = [ctypes.c_size_t, ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]

    def __init__(self, params):
        self.params = params
        self.ptrs = [self.libc.aligned_alloc(64, (p["bytes"] + 63) // 64 * 64 or 64) for p in params]
        self.array = (ctypes.c_void_p * max(1, len(params)))(*self.ptrs)

    def copy_from(self, other):
        for p, dst, src in zip(self.params, self.ptrs, other.ptrs):
            ctypes.memmove(dst, src, p["bytes"])

    def free(self):
        for p in self.ptrs:
            self.libc.free(p)


def load_kernels(opts):
    with open(os.path.join(KERNELS, "MANIFEST.json")) as f:
        manifest = json.load(f)
    bind = dict(manifest["bind"])
    if opts["n"]:
        bind = {k: opts["n"] for k in bind}
    kernels = []
    for k in manifest["kernels"]:
        if opts["only"] and not opts["only"].search(k["name"]):
            continue
        params = []
        for p in k["params"]:
            if p["dtype"] not in DTYPES:
                sys.exit(f"bench: {k['name']}: dtype {p['dtype']} is not handled")
            shape = [d if isinstance(d, int) else int(eval(d, {"__builtins__": {}}, bind)) for d in p["shape"]]
            count = math.prod(shape)
            params.append(dict(p, shape=shape, count=count, bytes=count * DTYPES[p["dtype"]][1]))
        kernels.append(dict(k, params=params, scalar_values=[bind[s] for s in k["scalars"]]))
    return manifest, bind, kernels


class TirlowerBackends:
    def __init__(self, tirlower, work):
        self.tirlower, self.work = tirlower, work
        self.compilers = {name: cc for name, cc in (("gcc C", find_compiler("gcc", "cc")),
                                                   ("clang C", find_compiler("clang-15", "clang"))) if cc}
        self.cflags = os.environ.get("BENCH_CFLAGS", "-O3 -march=native").split()
        support = os.path.join(work, "support")
        with open(support + ".c", "w") as f:
            f.write(SUPPORT_C)
        run(["cc", "-std=c11", "-O2", "-shared", "-fPIC", support + ".c", "-o", support + ".so", "-lm"])
        self.support = ctypes.CDLL(support + ".so")
        self.support.tl_fill.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int, ctypes.c_uint64]
        self.support.tl_compare.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int,
                                            ctypes.POINTER(ctypes.c_double)]
        self.support.tl_compare.restype = ctypes.c_double

    def names(self):
        return ["LLVM", *self.compilers]

    def build(self, kernel):
        """{backend: (tl_call, tl_time) or an error message}."""
        stem = os.path.join(self.work, kernel["name"])
        tir = os.path.join(KERNELS, kernel["file"])
        out = {}
        try:
            run([self.tirlower, tir, "--target=c", "-o", stem + ".h"])
            with open(stem + ".h") as f:
                symbol = re.search(r"^int32_t (\w+)\(", f.read(), re.M).group(1)
        except RuntimeError as e:
            return {b: str(e) for b in self.names()}
        nbuf, nscalar = len(kernel["params"]), len(kernel["scalar_values"])
        call = "%s(%s)" % (symbol, ", ".join([f"b[{i}]" for i in range(nbuf)] + [f"s[{i}]" for i in range(nscalar)]))
        with open(stem + "_wrap.c", "w") as f:
            f.write(WRAPPER_C.replace("HEADER", stem + ".h").replace("CALL", call))
        for backend in self.names():
            tag = backend.split()[0]
            obj = f"{stem}_{tag}.o"
            try:
                if backend == "LLVM":
                    run([self.tirlower, tir, "--target=llvm", "--emit=obj", "-O3", "--mcpu=native", "-o", obj])
                else:
                    if not os.path.exists(stem + ".c"):
                        run([self.tirlower, tir, "--target=c", "-o", stem + ".c"])
                    run([self.compilers[backend], "-std=c11", *self.cflags, "-fPIC", "-c", stem + ".c", "-o", obj])
                so = f"{stem}_{tag}.so"
                run(["cc", "-std=c11", "-O2", "-shared", "-fPIC", "-Wl,-Bsymbolic", stem + "_wrap.c", obj, "-o", so,
                     "-lm"])
                lib = ctypes.CDLL(so)
                lib.tl_call.restype, lib.tl_time.restype = ctypes.c_int32, ctypes.c_double
                lib.tl_time.argtypes = [ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p]
                lib.tl_call.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
                out[backend] = lib
            except RuntimeError as e:
                out[backend] = str(e)
        return out


class TvmBackend:
    """TVM's own build of the same printed text, run on copies of the same data."""
    FEATURES = {"avx512_fp16": "avx512fp16", "avx512_bf16": "avx512bf16", "avx512_vnni": "avx512vnni",
                "avx_vnni": "avxvnni", "amx_tile": "amx-tile", "amx_int8": "amx-int8", "amx_bf16": "amx-bf16",
                "avx512_vbmi2": "avx512vbmi2", "avx512_bitalg": "avx512bitalg", "avx512_vpopcntdq": "avx512vpopcntdq",
                "avx512ifma": "avx512ifma", "avx512vbmi": "avx512vbmi"}

    def __init__(self):
        import numpy
        import tvm
        from tvm.target import codegen
        self.np, self.tvm = numpy, tvm
        self.cpu = codegen.llvm_get_system_cpu()
        with open("/proc/cpuinfo") as f:
            flags = set(next((l.split(":", 1)[1].split() for l in f if l.startswith("flags")), []))
        named = set(codegen.llvm_get_cpu_features(tvm.target.Target({"kind": "llvm", "mcpu": self.cpu})))
        self.mattr = sorted(("+" if flag in flags else "-") + feature for flag, feature in self.FEATURES.items()
                            if (flag in flags) != (feature in named))
        target = {"kind": "llvm", "mcpu": self.cpu}
        if self.mattr:
            target["mattr"] = self.mattr
        self.target = tvm.target.Target(target)
        self.dev = tvm.cpu()

    def describe(self):
        return f"mcpu={self.cpu}" + (f" mattr={','.join(self.mattr)}" if self.mattr else "")

    def build(self, kernel):
        with open(os.path.join(KERNELS, kernel["file"])) as f:
            func = self.tvm.script.from_source(f.read())
        mod = self.tvm.IRModule({kernel["symbol"]: func})
        return self.tvm.compile(mod, target=self.target).jit()

    def tensors(self, kernel, buffers):
        out = []
        for p, ptr in zip(kernel["params"], buffers.ptrs):
            raw = (ctypes.c_char * p["bytes"]).from_address(ptr)
            out.append(self.tvm.runtime.tensor(self.np.frombuffer(raw, dtype=p["dtype"]).reshape(p["shape"]), self.dev))
        return out

    def copy_back(self, kernel, tensors, buffers):
        for p, t, ptr in zip(kernel["params"], tensors, buffers.ptrs):
            a = self.np.ascontiguousarray(t.numpy())
            ctypes.memmove(ptr, a.ctypes.data, p["bytes"])


def compare(support, kernel, got, ref):
    """'' when every parameter agrees, else what differs."""
    for p, a, b in zip(kernel["params"], got.ptrs, ref.ptrs):
        code, _, _, tol = DTYPES[p["dtype"]]
        scale = ctypes.c_double()
        err = support.tl_compare(a, b, p["count"], code, ctypes.byref(scale))
        if err > tol * max(1.0, scale.value):
            return f"{p['name']} differs by {err:.3g} (scale {scale.value:.3g})"
    return ""


def cpu_timed(sample):
    """`sample` timed by the calling thread's CPU time instead of the wall time it measures
    itself (tirlower's loop and TVM's time_evaluator both run the kernel in this thread). TVM's
    evaluator costs a fixed 0.5-1 ms of CPU per use besides its calls, so a sample is the
    difference of `2 * number` calls and `number` calls, divided by `number`."""
    def cpu(number):
        start = time.thread_time()
        return time.thread_time() - start if sample(number) >= 0 else None

    def timed(number):
        once, twice = cpu(number), cpu(2 * number)
        return -1 if once is None or twice is None else max(twice - once, 1e-12) / number
    return timed


def bench_kernel(kernel, tl, tvm, runs, clock="wall"):
    """{backend: [samples]} and {backend: error}, paired and interleaved over `runs` rounds."""
    params, scalars = kernel["params"], kernel["scalar_values"]
    scalar_array = (ctypes.c_int64 * max(1, len(scalars)))(*scalars)
    master = Buffers(params)
    for i, p in enumerate(params):
        tl.support.tl_fill(master.ptrs[i], p["count"], DTYPES[p["dtype"]][0], 1000 + i)
    errors, timers, owned = {}, {}, [master]
    libs = tl.build(kernel)
    if tvm:
        try:
            module = tvm.build(kernel)
            tensors = tvm.tensors(kernel, master)
            start = time.perf_counter()
            module[kernel["symbol"]](*tensors)
            once = time.perf_counter() - start
            ref = Buffers(params)
            owned.append(ref)
            tvm.copy_back(kernel, tensors, ref)
            timers["TVM"] = (once, lambda number, m=module, t=tensors: tvm_sample(tvm, m, t, number, kernel["symbol"]))
        except Exception as e:  # TVM's parser or build rejecting a kernel: report it, go on
            errors["TVM"] = (str(e).strip().splitlines() or [type(e).__name__])[-1][:100]
            ref = None
    else:
        ref = None
    for backend, lib in libs.items():
        if isinstance(lib, str):
            errors[backend] = lib[:100]
            continue
        bufs = Buffers(params)
        owned.append(bufs)
        bufs.copy_from(master)
        start = time.perf_counter()
        rc = lib.tl_call(bufs.array, scalar_array)
        once = time.perf_counter() - start
        if rc != 0:
            errors[backend] = f"returned {rc}"
            continue
        if ref is None:  # no TVM: tirlower's LLVM object is the reference
            ref = Buffers(params)
            owned.append(ref)
            ref.copy_from(bufs)
        else:
            diff = compare(tl.support, kernel, bufs, ref)
            if diff:
                errors[backend] = "WRONG: " + diff
                continue
        bufs.copy_from(master)
        timers[backend] = (once, lambda number, lib=lib, b=bufs: lib.tl_time(number, b.array, scalar_array))
    numbers = {b: max(1, round(SAMPLE_SECONDS / max(once, 1e-7))) for b, (once, _) in timers.items()}
    if clock == "cpu":
        # The first call's time (from Python, TVM's through its FFI) overstates a short kernel's:
        # each side's own timer says how many calls make SAMPLE_SECONDS of work.
        for b, (_, sample) in timers.items():
            mean = sample(numbers[b])
            if mean > 0:
                numbers[b] = max(1, round(SAMPLE_SECONDS / mean))
        timers = {b: (once, cpu_timed(sample)) for b, (once, sample) in timers.items()}
    order = [b for b in ["TVM", *tl.names()] if b in timers]
    samples = {b: [] for b in order}
    for r in range(runs):
        for b in order[r % len(order):] + order[:r % len(order)] if order else []:
            t = timers[b][1](numbers[b])
            if t < 0:
                errors[b] = "a timed call failed"
            samples[b].append(t)
    for bufs in owned:
        bufs.free()
    return {b: s for b, s in samples.items() if b not in errors}, errors


def tvm_sample(tvm, module, tensors, number, symbol):
    """TVM's own timer: one untimed call (as tl_time's), then `number` calls in a C++ loop."""
    timer = module.time_evaluator(symbol, tvm.dev, number=number, repeat=1)
    return timer(*tensors).mean


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main(argv, tirlower):
    args = argv[1:]
    opts = parse_args(args)
    if opts["tvm"]:
        reexec_under(opts["tvm"], argv)
    if not os.access(tirlower, os.X_OK):
        sys.exit(f"bench: {tirlower} not found; build first (ninja -C build) or set TIRLOWER")
    manifest, bind, kernels = load_kernels(opts)
    load_before = os.getloadavg()
    tvm = TvmBackend() if opts["tvm"] else None
    with tempfile.TemporaryDirectory(prefix="tirlower-bench-kernels-") as tmp:
        work = opts["keep"] or tmp
        os.makedirs(work, exist_ok=True)
        tl = TirlowerBackends(tirlower, work)
        backends = (["TVM"] if tvm else []) + tl.names()
        print(f"kernels: bench/kernels ({manifest['generator']}), symbolic extents bound to "
              + ", ".join(f"{k}={v}" for k, v in bind.items()))
        print(f"backends: {'TVM ' + tvm.describe() + ' (1 thread); ' if tvm else ''}LLVM = tirlower --target=llvm "
              f"-O3 --mcpu=native; C = tirlower --target=c, {' / '.join(tl.compilers.values())} {' '.join(tl.cflags)}")
        print(f"{runs_text(opts['runs'])}; {'CPU time of the timing thread' if opts['clock'] == 'cpu' else 'wall time'}; "
              f"load average {load_before[0]:.2f} on {os.cpu_count()} CPUs")
        head = f"{'kernel':<44}" + "".join(f" {b + ' ms':>10}" for b in backends)
        if tvm:
            head += "".join(f" {b + '/TVM':>11}" for b in tl.names())
        print(head)
        ratios = {b: [] for b in tl.names()}
        for kernel in kernels:
            samples, errors = bench_kernel(kernel, tl, tvm, opts["runs"], opts["clock"])
            line = f"{kernel['name'][:44]:<44}"
            for b in backends:
                line += f" {statistics.median(samples[b]) * 1e3:>10.3f}" if b in samples else f" {'-':>10}"
            if tvm:
                for b in tl.names():
                    if b in samples and "TVM" in samples:
                        r = statistics.median(x / y for x, y in zip(samples[b], samples["TVM"]))
                        ratios[b].append(r)
                        line += f" {r:>11.2f}"
                    else:
                        line += f" {'-':>11}"
            print(line, flush=True)
            for b, e in errors.items():
                print(f"    {b}: {e}", flush=True)
        load_after = os.getloadavg()
        if tvm:
            print("geomean of time / TVM's time over the kernels each ran correctly: "
                  + ", ".join(f"{b} {geomean(v):.2f} ({len(v)} of {len(kernels)})" for b, v in ratios.items()))
        print(f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")


def runs_text(runs):
    return (f"median of {runs} interleaved samples (each the mean of back-to-back calls lasting about "
            f"{SAMPLE_SECONDS * 1e3:.0f} ms); ratios: median of per-round ratios")
