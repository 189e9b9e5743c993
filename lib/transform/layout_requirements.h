// Layout requirements as the passes see them (verify-layouts, legalize-layouts): where they
// come from, which buffer each names, and whether that buffer satisfies it.
//
// A function's requirements are, in order: its T.func_attr "layout_requirements"
// (PrimFuncNode::layoutRequirements), the passes' option require='B=NCHW4c;A=NCHW4c:texture'
// (given by the tool's --require-layout flags when the pipeline does not give it), and the
// target's requirements per buffer role
// (Target::layoutRequirements): for --target=opencl, a parameter in scope "global.texture"
// whose layout annotation names the dimensions N, C, H and W must be "NCHW4c:texture".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/function.h"
#include "transform/pass.h"

namespace tirlower {

struct Target;

struct BufferRequirement {
  LayoutRequirement requirement;
  Buffer buffer; // the buffer of that name in the function (a parameter first)
};

// What is wrong with a value of the option require: `message` ("expects BUFFER=LAYOUT entries
// separated by ';', got 'B'" after the option's or flag's name when `missingEquals`, else
// "malformed layout requirement \"NCHWc\" for 'B': split axis 'c' needs a factor (e.g. 4c)"),
// at bytes [offset, offset + length) of the value.
struct RequireOptionError {
  std::string message;
  bool missingEquals = false;
  size_t offset = 0;
  size_t length = 1;
  size_t layoutOffset = 0; // a malformed layout's error, within the layout's text
};

// Parses one value of the option require='B=NCHW4c;A=NCHW4c:texture' (entries separated by
// ';'), given in a pipeline or by --require-layout (the option's flag, repeatable). Each
// requirement is located at its layout inside the value's source (value.loc, when known), and
// comes from the flag when value.flag names one, else from the pass option. nullopt for a
// malformed value, with what is wrong in `*error` (when given).
std::optional<std::vector<LayoutRequirement>> parseRequireOption(const PassOptionValue &value,
                                                                 RequireOptionError *error = nullptr);
// The declaration of that option, shared by legalize-layouts and verify-layouts: text checked
// by parseRequireOption.
const PassOption<std::string> &requireOption();
// The requirements the checked options of such a pass give, every value of require in order
// (none when it is absent).
std::vector<LayoutRequirement> requireOptionOf(const PassOptions &options);
// The option target=NAME of those passes (default: the tool's --target): the target whose
// requirements by buffer role (Target::layoutRequirements) apply.
const PassOption<std::string> &targetOption();
// The target the checked options of such a pass name; null when target is absent.
const Target *targetOptionOf(const PassOptions &options);

// The function's buffer named `name`: a parameter buffer (or the buffer of the parameter of
// that name), else the first declaration in the body.
Buffer findBufferNamed(const PrimFuncNode &func, const std::string &name);

// Every requirement on the buffers of `func`. A T.func_attr requirement naming no buffer of
// the function is an error (CompileError at the requirement); the others apply to the
// functions that have the buffer (see checkRequirementsApply). `target` (may be null) adds
// the requirements it puts on the function's buffers.
std::vector<BufferRequirement> requirementsOf(const PrimFuncNode &func, const std::vector<LayoutRequirement> &options,
                                              const Target *target);

// The OpenCL target's requirements by role: a texture parameter whose layout annotation names
// the dimensions N, C, H and W is packed "NCHW4c:texture".
std::vector<LayoutRequirement> openclTextureRequirements(const PrimFuncNode &func);

// Throws CompileError, at the requirement, when one from the option require (or its flag) names
// a buffer no function has.
void checkRequirementsApply(const Module &module, const std::vector<LayoutRequirement> &options,
                            const std::string &passName);

// The stride of each dimension in elements, row-major over `shape`; unknown (nullopt) from the
// first non-constant extent outwards, or where the product overflows.
std::vector<std::optional<int64_t>> rowMajorStrides(const std::vector<Expr> &shape);
// The buffer's strides in elements: its explicit strides (unknown where not constant), else
// rowMajorStrides of its shape.
std::vector<std::optional<int64_t>> elementStrides(const BufferNode &buffer);

// Why `buffer` does not satisfy `requirement`, one reason per unmet property (rank, names,
// alignment, a missing layout annotation, texture storage); empty when it does.
std::vector<std::string> unmetRequirement(const BufferNode &buffer, const LayoutRequirement &requirement);

// The note that says where a requirement comes from: "required by T.func_attr here".
Diagnostic &noteRequirementSource(Diagnostic &diagnostic, const LayoutRequirement &requirement,
                                  const PrimFuncNode &func);

} // namespace tirlower
