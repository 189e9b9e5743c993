"""Build TVM TIR with tirlower into a tvm_ffi.Module.

``tirlower.build(source)`` runs the ``tirlower`` compiler on TVMScript text (or a file, or a
TVM IRModule/PrimFunc, whose ``script()`` is taken) and loads the shared library it writes with
``tvm_ffi.load_module``: each function of the module is called with tensors (numpy arrays,
torch tensors, anything DLPack takes) and scalars, checked as docs/abi.md describes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import warnings
from typing import Any, Optional

__all__ = ["build", "TirlowerError", "CompileError", "UsageError", "TirlowerWarning", "find_tirlower"]


class TirlowerError(Exception):
    """tirlower failed; ``diagnostics`` holds what it printed, ``returncode`` its exit status."""

    def __init__(self, diagnostics: str, returncode: int, command: list[str]):
        super().__init__(diagnostics.strip() or f"tirlower exited with status {returncode}")
        self.diagnostics = diagnostics
        self.returncode = returncode
        self.command = command


class CompileError(TirlowerError):
    """The input was rejected (exit status 1): a located diagnostic, e.g. ``input.tir:3:5: error: ...``."""


class UsageError(TirlowerError, ValueError):
    """An option was misused (exit status 2): an unknown flag or value."""


class TirlowerWarning(UserWarning):
    """A warning tirlower printed while building."""


def find_tirlower(tirlower: Optional[str] = None) -> str:
    """The tirlower binary: ``tirlower`` if given, else ``$TIRLOWER``, else ``tirlower`` on PATH."""
    path = tirlower or os.environ.get("TIRLOWER") or shutil.which("tirlower")
    if not path:
        raise FileNotFoundError("cannot find the tirlower binary: pass tirlower=PATH, set $TIRLOWER, "
                                "or put tirlower on PATH")
    return path


def _flags(options: dict[str, Any]) -> list[str]:
    flags = []
    for key, value in options.items():
        if value is None or value is False:
            continue
        if key == "opt_level":
            flags.append(f"-O{int(value)}")
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            flags.append(flag)
        elif isinstance(value, dict):  # layout={"B": "NHWC->NCHW4c"}
            flags.extend(f"{flag}={name}={text}" for name, text in value.items())
        elif isinstance(value, (list, tuple)):
            flags.extend(f"{flag}={item}" for item in value)
        else:
            flags.append(f"{flag}={value}")
    return flags


def _source_text(source: Any) -> tuple[Optional[str], Optional[str]]:
    """(path, text): a path to read, or the text to pass on stdin."""
    if hasattr(source, "script"):
        return None, source.script()
    if isinstance(source, os.PathLike):
        return os.fspath(source), None
    if not isinstance(source, str):
        raise TypeError(f"tirlower.build takes TVMScript text, a path, or an object with script(); "
                        f"got {type(source).__name__}")
    if "\n" not in source and os.path.exists(source):
        return source, None
    return None, source


def build(source: Any, target: str = "llvm", *, output: Optional[str] = None, tirlower: Optional[str] = None,
          **options: Any):
    """Compiles ``source`` with tirlower into a shared library and returns it as a tvm_ffi.Module.

    source: TVMScript text, a path to a .tir/.py file, or a TVM IRModule or PrimFunc (its
    ``script()``). target: "llvm" (an LLVM object, linked) or "c" (C, compiled with $CC or cc).
    output: where to keep the library (default: a temporary file, removed once loaded).
    tirlower: the binary (default $TIRLOWER, else tirlower on PATH).
    Other keyword arguments become flags: ``opt_level=3`` is -O3, ``mcpu="native"`` is
    --mcpu=native, ``pass_pipeline="..."`` is --pass-pipeline=..., ``layout={"B": "NHWC->NCHW4c"}``
    is --layout=B=NHWC->NCHW4c, ``openmp=True`` is --openmp, ``cc="clang"`` is --cc=clang.

    Raises CompileError (exit status 1) or UsageError (2) with tirlower's diagnostics; warnings
    are issued as TirlowerWarning.
    """
    import tvm_ffi

    binary = find_tirlower(tirlower)
    path, text = _source_text(source)
    with tempfile.TemporaryDirectory(prefix="tirlower-") as scratch:
        library = output or os.path.join(scratch, "module.so")
        command = [binary, path or "-", f"--target={target}", "--emit=so", "-o", library] + _flags(options)
        done = subprocess.run(command, input=text, capture_output=True, text=True)
        if done.returncode != 0:
            kind = UsageError if done.returncode == 2 else CompileError
            raise kind(done.stderr, done.returncode, command)
        for line in done.stderr.splitlines():
            if ": warning: " in line or line.startswith("tirlower: warning:"):
                warnings.warn(line, TirlowerWarning, stacklevel=2)
        return tvm_ffi.load_module(library)
