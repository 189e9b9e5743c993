#!/usr/bin/env python3
"""Writes the .npy inputs of the cli test `run_npy_files` byte for byte as numpy 1.x's
numpy.save writes them (format 1.0: magic, version, little-endian header length, the header
dict padded with spaces to a multiple of 64 bytes and ending in a newline, then the C-order
data), using only struct, as this machine has no numpy. The files are committed; rerun this
script to regenerate them:
    python3 test/cli/npy/make_npy.py
numpy itself would write the same bytes: np.save('a.npy', np.array([[0.5, -0.25, 0.125],
[0.75, -1, 0.3125]], dtype=np.float32)), np.save('m.npy', np.array([7, -3], dtype=np.int32)),
np.save('m_big_endian.npy', np.array([7, -3], dtype='>i4')), np.save('f64.npy',
np.array([1.5, 2.5], dtype=np.float64)), np.save('mask.npy', np.array([True, False]))."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def npy(descr, shape, fmt, values):
    shape_text = "(" + ", ".join(str(s) for s in shape) + (",)" if len(shape) == 1 else ")")
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
    pad = (64 - (10 + len(header) + 1) % 64) % 64
    header = header + " " * pad + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1") + struct.pack(
        fmt % len(values), *values)


FILES = {
    "a.npy": npy("<f4", (2, 3), "<%df", [0.5, -0.25, 0.125, 0.75, -1.0, 0.3125]),
    "m.npy": npy("<i4", (2,), "<%di", [7, -3]),
    "m_big_endian.npy": npy(">i4", (2,), ">%di", [7, -3]),
    "f64.npy": npy("<f8", (2,), "<%dd", [1.5, 2.5]),
    "mask.npy": npy("|b1", (2,), "<%d?", [True, False]),
}

if __name__ == "__main__":
    for name, data in FILES.items():
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)
