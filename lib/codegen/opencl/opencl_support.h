// Spelling of OpenCL C: type names, literals, identifiers, and the few helper functions and
// program-scope declarations an emitted file defines for itself (each once, only when used).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "codegen/c_family.h"
#include "ir/data_type.h"
#include "ir/source_range.h"

namespace tirlower {

// OpenCL C vector types have 2, 3, 4, 8 or 16 lanes.
bool isOpenCLVectorWidth(int lanes);

// The OpenCL C name of a value type: "int", "float4". A bool vector is an integer mask vector
// ("int4", lanes -1 or 0), the canonical form in which the emitter keeps vector conditions.
// Throws CompileError (at `where`) for types OpenCL C cannot hold.
std::string openclTypeName(DataType type, SourceRange where);
// The element type a buffer of `type` is stored as: bool becomes uchar (bool is not allowed in
// kernel arguments or memory), vectors keep their lanes.
std::string openclStorageTypeName(DataType type, SourceRange where);

std::string openclIntLiteral(DataType type, int64_t value);
std::string openclFloatLiteral(DataType type, double value);

bool isReservedOpenCLName(const std::string &name);

class OpenCLSupport {
public:
  // `subgroupSize`: the device's sub-groups (--subgroup-size); 0: it offers no sub-group shuffles.
  explicit OpenCLSupport(int subgroupSize = 0) : subgroupSize_(subgroupSize) {}
  int subgroupSize() const { return subgroupSize_; }
  // The helper computing a warp operation with sub-group functions (docs/opencl-emitter.md,
  // "Warp shuffles"): `op` is "shuffle", "shuffle_up" or "shuffle_down" on `type` values
  // (T tl_warp_shuffle_down_float(T value, uint delta, uint width)), or "activemask" (uint
  // tl_warp_activemask(void)). Needs subgroupSize().
  std::string warpHelper(std::string_view op, DataType type, SourceRange where);
  void useSubgroups() { subgroups_ = true; } // the file enables the sub-group extensions
  bool usesSubgroups() const { return subgroups_; } // then it is OpenCL C 2.0
  // Integer floor division and modulo (scalar or vector) for signed types; float ones use floor.
  // Signed integer division helpers are defined wherever the interpreter is: MIN / -1 wraps to
  // MIN with remainder 0 (OpenCL C, like C, leaves it undefined).
  std::string floorDiv(DataType type, SourceRange where);
  std::string floorMod(DataType type, SourceRange where);
  std::string truncDiv(DataType type, SourceRange where);   // signed a / b
  std::string truncMod(DataType type, SourceRange where);   // signed a % b
  std::string integerAbs(DataType type, SourceRange where); // signed, abs(MIN) is MIN
  // float tl_texel_lane(float4 texel, int lane).
  std::string texelLane();
  // The program-scope sampler used by read_imagef.
  std::string sampler();
  void noteType(DataType type); // records extension pragmas (fp64, fp16)

  std::string preamble() const;

private:
  std::map<std::string, std::string> helpers_;
  bool fp64_ = false, fp16_ = false, sampler_ = false, subgroups_ = false;
  int subgroupSize_ = 0;
};

} // namespace tirlower
