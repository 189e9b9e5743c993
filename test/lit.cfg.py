# lit configuration of tirlower's FileCheck tests (test/lit/). Each test is a .tir file whose
# `# RUN:` lines are shell commands, as in LLVM:
#     # RUN: %tirlower %s --pass=flatten | %FileCheck %s
# Substitutions: %tirlower (the binary under test: --param tirlower=PATH, else `tirlower` on
# PATH), %FileCheck and %not (LLVM 15's FileCheck and not), %ocl_runner (below), plus lit's own
# (%s, %t, ...).
# The LLVM 15 tool directory comes first on PATH, so `FileCheck` and `not` also work unprefixed.
# Run: lit.py -sv test/lit --param tirlower=build/tools/tirlower/tirlower --param build=build/test/lit
# (docs/testing.md). Only test/lit holds lit tests: the other folders of test/ have their own
# runners.
import os
import shutil

import lit.formats

config.name = "tirlower"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".tir"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.excludes = [entry for entry in os.listdir(config.test_source_root)
                   if entry != "lit" and os.path.isdir(os.path.join(config.test_source_root, entry))]
config.excludes.append("Inputs")  # a test's input files (a .tir there is no test of its own)
# lit writes each test's %t files under the exec root: keep them out of the source tree.
build = lit_config.params.get("build")
config.test_exec_root = os.path.abspath(build) if build else os.path.join(config.test_source_root, "..", "build",
                                                                           "test", "lit")

llvm_bin = lit_config.params.get("llvm_bin", "/usr/lib/llvm-15/bin")
tirlower = lit_config.params.get("tirlower") or shutil.which("tirlower")
if not tirlower or not os.access(tirlower, os.X_OK):
    lit_config.fatal("no tirlower binary: pass --param tirlower=PATH or put tirlower on PATH")
filecheck = os.path.join(llvm_bin, "FileCheck")
if not os.access(filecheck, os.X_OK):
    lit_config.fatal("no FileCheck at " + filecheck + " (Debian: llvm-15-tools; --param llvm_bin=DIR)")

config.environment["PATH"] = os.pathsep.join([llvm_bin, config.environment.get("PATH", os.environ["PATH"])])
config.substitutions.append(("%tirlower", os.path.abspath(tirlower)))
config.substitutions.append(("%FileCheck", filecheck))
config.substitutions.append(("%not", os.path.join(llvm_bin, "not")))
# %ocl_runner (test/opencl's ocl_runner: --param ocl_runner=PATH, given when OpenCL is found) and
# the feature `opencl` that tests needing it REQUIRE.
ocl_runner = lit_config.params.get("ocl_runner")
if ocl_runner and os.access(ocl_runner, os.X_OK):
    config.available_features.add("opencl")
    config.substitutions.append(("%ocl_runner", os.path.abspath(ocl_runner)))
    for name, value in os.environ.items():  # where PoCL keeps its kernel cache, which ICD to load
        if name.startswith(("POCL_", "OCL_ICD_")):
            config.environment[name] = value
