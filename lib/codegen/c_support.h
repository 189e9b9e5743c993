// The support code an emitted C file defines for itself: vector typedefs (GCC/Clang vector
// extensions) and small static inline helpers (floor division, unaligned vector loads, ...),
// each written once and only when used, in a deterministic order.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "ir/data_type.h"
#include "ir/source_range.h"

namespace tirlower {

// The C spelling of a scalar type ("float", "int32_t", "bool", "void *").
std::string_view cScalarTypeName(DataType type);

// What the C functions of a module need defined or declared before them: the typedefs and
// helpers they use and the external functions they call, each keyed by name. One function's
// emitter writes into one CSupport; the CSupports of several functions merge (merge()) into
// the module's, and since each is ordered by name the result does not depend on which
// function's CSupport held what.
class CSupport {
public:
  // The C spelling of a scalar type ("float", "int32_t", "bool") or of a vector type
  // ("tl_float32x4", registering its typedef).
  std::string_view typeName(DataType type);
  std::string scalarTypeName(DataType type) const { return std::string(cScalarTypeName(type)); }

  // Helper functions by kind; each returns the function's name and records its definition.
  // Signed integer helpers are defined for every operand pair the interpreter accepts: MIN / -1
  // wraps to MIN with remainder 0, abs(MIN) is MIN (C's operators are undefined there).
  const std::string &floorDiv(DataType type);
  const std::string &floorMod(DataType type);
  const std::string &truncDiv(DataType type);   // signed a / b
  const std::string &truncMod(DataType type);   // signed a % b
  const std::string &integerAbs(DataType type); // a < 0 ? -a : a, wrapping
  const std::string &minMax(bool isMax, DataType type);
  const std::string &floatFloorDiv(DataType type);     // scalar float floor(a / b)
  const std::string &floatFloorMod(DataType type);     // scalar float a - floor(a / b) * b
  const std::string &vectorLoad(DataType vectorType);  // T load(const S *p): unaligned-safe
  const std::string &vectorStore(DataType vectorType); // void store(S *p, T v)
  // void stream(S *p, T v): a non-temporal store where the compiler and CPU have one and `p`
  // is aligned to the vector's size, else the plain store. Null for vectors that are not 16 or
  // 32 bytes of numbers (the caller uses vectorStore).
  const std::string *streamStore(DataType vectorType);
  const std::string &ramp(DataType vectorType);                     // T ramp(S base, S stride)
  const std::string &broadcast(DataType vectorType);                // T broadcast(S v)
  const std::string &select(DataType vectorType);                   // T select(C cond, T a, T b), lane by lane
  const std::string &compare(const char *op, DataType operandType); // boolean vector (as int8 lanes)
  const std::string &convert(DataType from, DataType to);           // lane-wise cast
  // bfloat16 values are carried as their bit pattern (uint16_t): `double tl_bf16_to_double(
  // uint16_t)` widens one exactly, `uint16_t tl_bf16_from_double(double)` rounds to the nearest
  // even bfloat16 (overflow to infinity, NaN to the quiet NaN of its sign), as the interpreter.
  const std::string &bfloat16ToDouble();
  const std::string &bfloat16FromDouble();
  // Lane-by-lane application of a scalar function of one or two arguments of `argType` (by
  // default the result type) giving `type`.
  const std::string &lanewise(const std::string &scalarFunction, DataType type, int arity,
                              std::optional<DataType> argType = std::nullopt);
  // T reinterpret(S v): the bits of v as T (the same number of bits; padding lanes of a C
  // vector repeat the last lane). Throws CompileError at `where` for sizes C cannot copy.
  const std::string &reinterpret(DataType from, DataType to, SourceRange where);

  // A block of definitions the functions use, named `name` (sorted with the helpers), when it
  // is not there yet (the TVM FFI entry's ABI structs and helpers).
  void addHelper(const std::string &name, const std::string &text) { helpers_.emplace(name, text); }

  // void *tl_workspace(tl_workspace_t *w, size_t bytes): per-thread storage kept between calls
  // (docs/abi.md, "Memory"): w's block when it holds `bytes`, else a bigger one (the old one
  // freed); null when malloc fails.
  const std::string &workspace();

  // An external function's prototype ("float f(float);"), declared `extern` after the helpers.
  void declareExtern(const std::string &prototype) { externs_.insert(prototype); }

  // Adds what `other` holds.
  void merge(const CSupport &other);
  // The typedefs and helper definitions, in a stable order.
  std::string preamble() const;
  // The `extern` declarations, in a stable order.
  std::string externDeclarations() const;

private:
  // The helper `name`, its definition made by `definition()` the first time.
  template <typename F> const std::string &define(const std::string &name, F &&definition);
  std::map<std::string, std::string> typedefs_; // keyed by name: stable order
  std::map<std::string, std::string> helpers_;
  std::set<std::string> externs_;
  std::unordered_map<uint32_t, std::string> vectorNames_; // by vectorKey(): the typedef's name
};

// Lanes of the C vector type of an N-lane TIR vector: N rounded up to a power of two (GCC and
// Clang take no other vector sizes). The padding lanes repeat the last lane: loads, ramps,
// broadcasts and gathers fill them so, and every helper computes all lanes, so padding lanes
// compute what the last lane computes and never trap where it does not; stores write N lanes.
int cVectorLanes(int lanes);

// The C literal of a floating-point value of `type` ("1.5f", "INFINITY", "(-NAN)").
std::string cFloatLiteral(double value, DataType type);
void appendCFloatLiteral(std::string &out, double value, DataType type);

} // namespace tirlower
