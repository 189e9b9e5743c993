#!/usr/bin/env python3
"""The IR's names are written once, in their homes.

    check_ir_names.py ROOT

Attribute keys (thread_extent, the tir./tirx. function attributes, ...), storage scopes
("shared", "global.texture", ...) and the GPU builtins' names (tvm_storage_sync,
tvm_thread_allreduce, the warp intrinsics tvm_warp_shuffle[_up|_down] and tvm_warp_activemask)
live in lib/ir/attrs.h, lib/ir/storage_scope.h and lib/ir/intrinsics.h (the builtins are rows of
the intrinsic table; lib/ir/gpu_builtins.h has their predicates); everyone else uses the named
constants and predicates there. A string literal in ROOT/lib or
ROOT/tools (outside those homes) that spells one of these names is an error unless one of the
four lines above it carries an `// ir-names: <reason>` comment saying the text means something
else there (a reserved word of C, a JSON member). Exit 1 when one has no reason.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cxx_source  # noqa: E402

HOMES = {os.path.join("lib", "ir", name) for name in (
    "attrs.h", "attrs.cpp", "storage_scope.h", "storage_scope.cpp", "gpu_builtins.h", "gpu_builtins.cpp",
    "intrinsics.h", "intrinsics.cpp")}

NAMES = {
    # statement attributes
    "thread_extent", "virtual_thread", "reduce_scope",
    # function attributes
    "global_symbol", "layout_requirements", "tirlower.explicit_barriers",
    # storage scopes
    "global", "shared", "shared.dyn", "local", "warp", "global.texture",
    # GPU builtins
    "tvm_storage_sync", "tvm_thread_allreduce", "tvm_warp_shuffle", "tvm_warp_shuffle_up",
    "tvm_warp_shuffle_down", "tvm_warp_activemask",
}
# TVM's namespaced function attributes in either spelling; scopes with a tag.
PATTERNS = [re.compile(r"tirx?\.(noalias|is_entry_func|is_global_func|is_host_func|is_scheduled|"
                       r"kernel_launch_params)"),
            re.compile(r"(shared|local|warp)\.[A-Za-z_.]+"), re.compile(r"global\.texture.*")]


def literals(text):
    """(line, content) of each ordinary string literal outside comments and preprocessor lines."""
    code = cxx_source.blank(text)
    quotes = [m.start() for m in re.finditer('"', code)]
    for open_, close in zip(quotes[0::2], quotes[1::2]):
        if open_ > 0 and code[open_ - 1] == "R":  # raw strings hold generated text, not names
            continue
        yield code.count("\n", 0, open_) + 1, text[open_ + 1:close]


def managed(content):
    return content in NAMES or any(p.fullmatch(content) for p in PATTERNS)


def main():
    root = sys.argv[1]
    missing, reasoned, checked = [], 0, 0
    for top in ("lib", "tools"):
        for folder, subdirs, files in os.walk(os.path.join(root, top)):
            subdirs.sort()
            for name in sorted(files):
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, root)
                if not name.endswith((".cpp", ".h")) or rel in HOMES:
                    continue
                text = open(path, encoding="utf-8").read()
                lines = text.split("\n")
                for line, content in literals(text):
                    checked += 1
                    if not managed(content):
                        continue
                    if any("// ir-names:" in l for l in lines[max(0, line - 5):line - 1]):
                        reasoned += 1
                    else:
                        missing.append((rel, line, content))
    for rel, line, content in missing:
        print(f'{rel}:{line}: the IR name "{content}" is spelled outside its home; use the constant or '
              f"predicate of lib/ir/attrs.h, storage_scope.h or intrinsics.h (or say why with an "
              f"'// ir-names: <reason>' comment above it)", file=sys.stderr)
    print(f"{checked} string literals read; {reasoned} IR name(s) outside their homes with a reason, "
          f"{len(missing)} without")
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
