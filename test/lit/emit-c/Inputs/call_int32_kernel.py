"""Calls FUNC of a shared library built with --abi=c on int32 buffers and prints the last one.
    call_int32_kernel.py LIB.so FUNC IN0-VALUES OUT-LENGTH   (values comma-separated)"""
import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])
values = [int(v) for v in sys.argv[3].split(",")]
a = (ctypes.c_int32 * len(values))(*values)
out = (ctypes.c_int32 * int(sys.argv[4]))()
rc = getattr(lib, sys.argv[2])(a, out)
print("rc", rc, "out", " ".join(str(v) for v in out))
