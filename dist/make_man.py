#!/usr/bin/env python3
"""The man page tirlower(1), gzip-compressed as Debian installs man pages: help2man renders
`tirlower --help` (so the page never disagrees with the binary) with the sections of
tirlower.h2m (SEE ALSO, the exit status, the documentation), and gzip -9n compresses it with no
name or time stamp, so the file is the same on every build.
    make_man.py HELP2MAN TIRLOWER VERSION H2M_FILE OUTPUT.1.gz"""
import gzip
import os
import subprocess
import sys
import tempfile


def main():
    help2man, tirlower, version, include, output = sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "tirlower.1")
        subprocess.run([help2man, "--no-info", "--no-discard-stderr", "--version-string=" + version,
                        "--name=lower TVMScript tensor IR to C, LLVM and OpenCL", "--include=" + include,
                        "--output=" + page, tirlower], check=True)
        with open(page, "rb") as f:
            text = f.read()
    with open(output, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw, mtime=0) as packed:
            packed.write(text)


if __name__ == "__main__":
    main()
