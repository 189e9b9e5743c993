// The intrinsic table: every call `T.<name>(...)` the IR knows, with its typing rule, its
// effect, whether it applies lane by lane, how the interpreter computes it and how the C,
// OpenCL and LLVM emitters spell it. Every layer asks this table (the parser for arity and
// types, the printer for the spelling, vectorize for lane-wise application, remove-no-op for
// effects, the interpreter and the emitters for the computation): a new intrinsic of an
// existing kind is one row in intrinsics.cpp plus its tests (docs/intrinsics.md).
//
// The GPU builtins are rows too: T.tvm_storage_sync (a barrier) and T.tvm_thread_allreduce (a
// reduction across threads), which stand as statements, and the warp operations TVM's
// LowerThreadAllreduce prints for CUDA (T.tvm_warp_shuffle[_up|_down], T.tvm_warp_activemask),
// which the interpreter runs as collectives of a warp and the OpenCL emitter spells as sub-group
// functions (docs/intrinsics.md, "GPU builtins").
//
// Composite intrinsics (sigmoid, rsqrt, exp10, tan, tanh, q_multiply_shift[_per_axis]) are rewritten
// once, by expandIntrinsic, into IR of simpler operations: the interpreter and every emitter
// without a direct spelling compute that same IR, so they agree bit for bit.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/expr.h"

namespace tirlower {

// The names of the GPU builtins, spelled here once (the table's rows and the passes use these).
namespace builtin {
inline constexpr std::string_view kStorageSync = "tvm_storage_sync";
inline constexpr std::string_view kThreadAllreduce = "tvm_thread_allreduce";
inline constexpr std::string_view kWarpShuffle = "tvm_warp_shuffle";
inline constexpr std::string_view kWarpShuffleUp = "tvm_warp_shuffle_up";
inline constexpr std::string_view kWarpShuffleDown = "tvm_warp_shuffle_down";
inline constexpr std::string_view kWarpActiveMask = "tvm_warp_activemask";
} // namespace builtin

enum class IntrinsicId : uint8_t {
  Exp,
  Exp2,
  Exp10,
  Log,
  Log2,
  Log10,
  Log1p,
  Sqrt,
  Rsqrt,
  Pow,
  Tanh,
  Sigmoid,
  Erf,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Atan2,
  Sinh,
  Cosh,
  Fabs,
  Abs,
  Floor,
  Ceil,
  Round,
  Nearbyint,
  Trunc,
  IsNan,
  IsInf,
  IsFinite,
  Fmod,
  Copysign,
  Likely,
  Assume,
  IfThenElse,
  CallExtern,
  CallPureExtern,
  Reinterpret,
  QMultiplyShift,
  QMultiplyShiftPerAxis,
  ShiftLeft,
  ShiftRight,
  BitwiseAnd,
  BitwiseOr,
  BitwiseXor,
  BitwiseNot,
  VScale,
  StorageSync,
  ThreadAllreduce,
  WarpShuffle,
  WarpShuffleUp,
  WarpShuffleDown,
  WarpActiveMask,
};

// Argument and result types. Operands of the binary rules have one type; "T" keeps the
// arguments' lanes, and a vector result comes from vector arguments.
enum class TypeRule : uint8_t {
  FloatUnary,     // float T -> T                       exp, sqrt, floor, ...
  FloatBinary,    // (float T, T) -> T                  pow, fmod, atan2, copysign
  FloatPredicate, // float T -> bool with T's lanes     isnan, isinf, isfinite
  Numeric,        // int, uint or float T -> T          abs
  IntegerBinary,  // (int or uint T, T) -> T            shift_left, shift_right
  BitwiseBinary,  // (int, uint or bool T, T) -> T      bitwise_and, _or, _xor
  BitwiseUnary,   // int, uint or bool T -> T           bitwise_not
  BoolUnary,      // bool T -> T                        likely, assume
  IfThenElse,     // (bool, T, T) -> T; the condition is scalar or has T's lanes
  Extern,         // ("symbol", values...) -> the call's declared type (written first)
  Reinterpret,    // value -> the declared type, with the same total number of bits
  QMultiplyShift, // (int32 x, y, q, s) -> int32 with the arguments' lanes
  // (int32 x, y, left shift, right shift, q, bool left required, bool right required) -> int32
  QMultiplyShiftPerAxis,
  VScale, // () -> int32                                vscale: the multiplier of scalable vectors
  StorageSync,     // ("scope") -> int32                  a barrier; a statement
  ThreadAllreduce, // (uint32 n, values, cond, dests, threads...) -> handle; a statement
  // (uint32 mask, T value, int lane or delta, int width, int warp size) -> T, T a scalar number
  WarpShuffle,
  WarpActiveMask, // () -> uint32                        the lanes of the warp that run this call
};

// What a call does besides computing its value (TVM's CallEffectKind, in order).
enum class CallEffect : uint8_t {
  ExprAnnotation, // likely: its value is its argument's; a hint only
  Pure,           // a function of its arguments: removable when unused
  EmbedInfo,      // assume: a fact for the compiler; the statement holding it is kept
  Opaque,         // call_extern: may read or write anything
};

// How the interpreter computes a call.
enum class IntrinsicEval : uint8_t {
  Math,    // the row's float and double functions (16-bit floats: in float, then rounded)
  Expand,  // the IR expandIntrinsic gives
  Special, // code of its own in the interpreter, chosen by the id
};

// The Python operator TVMScript spells the call with, when it has one (TVM 0.27 prints
// `a >> b`, `a & b`, `~a`), from loosest to tightest binding.
enum class OperatorLevel : uint8_t { None, BitOr, BitXor, BitAnd, Shift, Unary };

struct IntrinsicInfo {
  IntrinsicId id;
  std::string_view name; // T.<name>
  TypeRule rule;
  CallEffect effect;
  // Vectorize may widen a call with vector arguments into one vector call (every lane computed
  // by the scalar rule); otherwise the loop stays serial.
  bool lanewise;
  IntrinsicEval eval;
  float (*f32)(float);          // Math, unary
  double (*f64)(double);        // Math, unary
  float (*f32x2)(float, float); // Math, binary
  double (*f64x2)(double, double);
  bool (*predicate)(double); // FloatPredicate rows
  // C: the libm function (its float version, NAME "f", for float32 and float16, which compute
  // in float and round, as TVM's LLVM build does); type-generic macros take no suffix. Empty:
  // the expansion, or the emitter's own code for the id.
  std::string_view c;
  bool cTypeGeneric;
  // OpenCL C: the builtin (it takes vectors as they are); empty: as for C.
  std::string_view opencl;
  // LLVM: an intrinsic name ("llvm.exp", resolved by llvm::Function::lookupIntrinsicID and
  // overloaded on the argument type), "libm" (the C function, called lane by lane), or empty:
  // the expansion, or the emitter's own code for the id.
  std::string_view llvm;
  // The printer's spelling: "T.<name>(...)" unless an operator is given (" << ", "~").
  OperatorLevel level;
  std::string_view operatorText;
};

// Every row, in IntrinsicId order.
std::span<const IntrinsicInfo> intrinsicTable();
const IntrinsicInfo &intrinsicInfo(IntrinsicId id);
// The row named `name` ("exp"; TVM's "tir.exp" and "tirx.exp" too; TVM 0.27's node names of
// the bitwise operations, "LShift", "BitwiseNot", ...), or null.
const IntrinsicInfo *findIntrinsic(std::string_view name);
const IntrinsicInfo *findIntrinsic(Symbol name);

// Whether the declared type is written as the first argument: T.call_extern("float32", "f",
// ...), T.reinterpret("int32", x).
bool hasDeclaredType(const IntrinsicInfo &info);
// The number of IR arguments the rule takes: [min, max] (max SIZE_MAX: any number).
std::pair<size_t, size_t> intrinsicArity(const IntrinsicInfo &info);

// The result of a call of `info` with arguments of `args` (the declared type for Extern and
// Reinterpret), or why it is ill-typed; `argument` is the index of the argument at fault (-1:
// the call as a whole). Messages read "T.exp expects a floating-point argument, not int32";
// `spelled` names an operator instead ("<<": "'<<' expects integer operands, not float32").
struct IntrinsicTyping {
  std::optional<DataType> type;
  std::string error;
  int argument = -1;
};
IntrinsicTyping typeIntrinsicCall(const IntrinsicInfo &info, std::span<const DataType> args,
                                  std::optional<DataType> declared = std::nullopt, std::string_view spelled = {});

// The GPU builtins: rows the C and LLVM emitters refuse (they run on GPU threads).
bool isGpuBuiltin(const IntrinsicInfo &info);
// The rows that stand as statements, not expressions (T.tvm_storage_sync, T.tvm_thread_allreduce).
bool isStatementIntrinsic(const IntrinsicInfo &info);
// The warp shuffles (T.tvm_warp_shuffle, _up, _down).
bool isWarpShuffle(const IntrinsicInfo &info);

// Whether vectorize may widen this call lane by lane (the row's flag; T.reinterpret only when
// it keeps the lane width).
bool appliesLanewise(const CallNode &call);

// The composite intrinsic rewritten into IR of simpler operations (TVM's own lowering: its LLVM
// build's for tanh, tan and exp10, its default legalization for sigmoid, rsqrt and
// q_multiply_shift); null for the others. An argument used more than once and not a variable
// or constant is bound by a Let first. Throws CompileError at the call for what TVM rejects
// (q_multiply_shift with the multiplier 1 << 30 and a shift that is not a constant other than 1).
Expr expandIntrinsic(const CallNode &call);

} // namespace tirlower
