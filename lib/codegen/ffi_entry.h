// The TVM FFI entry of a function (--abi=tvm-ffi; docs/abi.md, "The TVM FFI entry"), described
// once for every emitter that renders it (C in c_ffi_entry.cpp, LLVM in llvm/ffi_entry.cpp):
//
//   int __tvm_ffi_<symbol>(void *self, const TVMFFIAny *args, int32_t num_args, TVMFFIAny *result)
//
// apache-tvm-ffi's safe-call signature. It takes each buffer parameter as a tensor (a DLTensor *
// or a tvm-ffi Tensor object) and each scalar as an int, float or bool; checks what the code
// relies on, as TVM's MakePackedAPI does (argument count and kinds, ndim, dtype, device, data
// alignment, every extent, strides, byte offset); binds the symbolic extents from the shapes;
// calls the function of the plain C ABI; and raises a tvm-ffi error (returning -1) for each
// failure. The description is data: the steps, the integer expressions the checks compare with,
// and every message, so the emitters cannot disagree about them.
//
// The steps, in order:
//   1. num_args must be FfiEntry::arguments (TypeError: countMessage).
//   2. Each parameter passed as an argument, in order: its kind (TypeError: kindMessage; a null
//      DLTensor* or Tensor object is a ValueError: nullMessage); for a tensor then ndim, a null
//      shape (when ndim > 0), dtype (TypeError), device and data alignment (ValueError). An
//      int scalar narrower than 64 bits must fit its type (ValueError: rangeMessage).
//   3. Each variable bound from a tensor (FfiVar::param >= 0, in order): read from its shape or
//      strides; one read from a shape must not be negative (negativeMessage); an int32 variable
//      must fit (ValueError: rangeMessage).
//   4. Each check (ValueError: FfiCheck::message), comparing what the tensor gives with the
//      expected expression (every variable is bound by now). The expressions wrap at 64 bits and
//      a zero divisor reads as 1: a hostile extent gives a failed check, never a trap.
//   5. Each tensor: where its extents or strides are known only at the call (FfiParam::spanCheck),
//      the elements they reach (its span: the largest offset + 1, 0 when an extent is 0) must be
//      computable without overflow, with no negative extent (negativeMessage) and its largest
//      offset at most maxOffset (spanMessage). Then its data must not be null unless it has no
//      elements (dataMessage).
//   6. The call; a nonzero result (an assert, a failed allocation: the function raised the
//      error itself) returns -1, else the result is None and the entry returns 0.
//
// Messages are printf formats, filled with the values named at each step.
// The span (step 5), as both emitters compute it: over the axes from the last, with
// step = |strides[k]| (or the compact stride, the product of the later extents, when strides is
// NULL), span = 1 + sum over the axes of (extent - 1) * step; -1 when an extent is negative, 0
// when one is 0, -2 when a product or sum overflows int64.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/function.h"

namespace tirlower {

// An int64 expression of the checks: nodes in FfiEntry::exprs, operands before their users.
struct FfiExpr {
  enum class Op : uint8_t { Const, Var, Add, Sub, Mul, FloorDiv, FloorMod, Min, Max };
  Op op = Op::Const;
  int64_t value = 0; // Const: the value; Var: the index of the variable in FfiEntry::vars
  int a = -1, b = -1;
};

// DLPack's dtype codes (DLDataTypeCode).
inline constexpr uint8_t kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6;
// tvm-ffi's type indices (TVMFFITypeIndex) the entry takes.
inline constexpr int32_t kFfiNone = 0, kFfiInt = 1, kFfiBool = 2, kFfiFloat = 3, kFfiOpaquePtr = 4,
                         kFfiDLTensorPtr = 7, kFfiTensor = 70;
// Bytes of the tvm-ffi object header (TVMFFIObject) before a Tensor object's DLTensor.
inline constexpr int kFfiObjectHeaderBytes = 24;

struct FfiParam {
  // Tensor: a buffer parameter. Int, Float, Bool: a scalar argument. Pointer: a handle without a
  // buffer (an opaque pointer, None, or a tensor's data). Extent: a scalar integer parameter that
  // a buffer parameter uses as an extent or stride: bound from that tensor, not an argument.
  enum class Kind : uint8_t { Tensor, Int, Float, Bool, Pointer, Extent };
  Kind kind = Kind::Int;
  std::string name;
  DataType type;     // the scalar's type; a tensor's element type (its buffer's dtype)
  int argument = -1; // its index in args; -1 for an Extent
  int var = -1;      // Int and Extent: the variable it is
  std::string kindMessage;
  // Tensor only.
  int ndim = 0;
  uint8_t dlCode = 0, dlBits = 0;
  uint16_t dlLanes = 1;
  int alignment = 1; // bytes the data pointer must be a multiple of
  std::string ndimMessage, dtypeMessage, deviceMessage, alignmentMessage;
  std::string nullMessage, shapeMessage; // a null object, a null shape
  // Step 5: whether the span is checked, the largest offset its indices address (INT32_MAX for a
  // buffer indexed with int32, else what keeps its byte offsets within int64), and the element
  // count when every extent is a constant (its data may be null only when this is 0).
  bool spanCheck = false;
  int64_t maxOffset = 0;
  int64_t constantElements = 0;
  std::string negativeMessage, spanMessage, dataMessage;
  // Int only: the message when the value does not fit a type narrower than 64 bits.
  std::string rangeMessage;
};

struct FfiVar {
  std::string name;
  DataType type;       // int32 or int64 (the parameter's, or the extent's)
  int param = -1;      // bound from this tensor parameter (index in params); -1: a scalar argument
  int axis = 0;        // ... from shape[axis], or strides[axis] when fromStride
  bool fromStride = false;
  std::string rangeMessage; // int32 variables bound from a tensor: the value does not fit
  std::string negativeMessage; // variables bound from a shape: the extent is negative
};

struct FfiCheck {
  enum class What : uint8_t { Shape, Stride, ByteOffset };
  What what = What::Shape;
  int param = 0; // a tensor parameter
  int axis = 0;
  int expected = 0; // expression index
  // Stride checks skip an axis of extent 1 (its index is always 0, so its stride is never used).
  std::string message; // "... is %lld, expected %lld ..." (given, expected)
};

struct FfiEntry {
  std::string symbol;      // the function of the plain C ABI it calls
  std::string entrySymbol; // "__tvm_ffi_" + symbol
  std::string signature;   // "add(A: Tensor[(n, 16), float32], k: float32)", for the comment
  std::vector<FfiParam> params; // every parameter of the function, in order
  int arguments = 0;
  std::string countMessage; // "... expected %d arguments, got %d" (arguments, num_args)
  std::vector<FfiVar> vars;
  std::vector<FfiExpr> exprs;
  std::vector<FfiCheck> checks;
};

// The entry of `func`, whose plain C symbol is `symbol`. Throws CompileError (located at the
// function) for a signature the entry cannot take: a buffer of another physical rank than its
// shape's, an extent that is neither a constant, a variable bound elsewhere nor an expression of
// those, a bfloat16 scalar.
FfiEntry describeFfiEntry(const PrimFuncNode &func, const std::string &symbol);

// Steps 2-5 of the entry, in their order, for an emitter rendering it: `argument` for each
// parameter (those passed as arguments), `bind` for each variable bound from a tensor, `check`
// for each check, `extent` for each tensor parameter. The emitter renders step 1 before and
// the call (step 6) after.
class FfiStepRenderer {
public:
  virtual ~FfiStepRenderer() = default;
  virtual void argument(size_t param) = 0;
  virtual void bind(size_t var) = 0;
  virtual void check(const FfiCheck &check) = 0;
  virtual void extentOf(size_t param) = 0;
};
void renderFfiSteps(const FfiEntry &entry, FfiStepRenderer &renderer);

// The MemoryError message of a function under --abi=tvm-ffi whose heap allocation of `storage`
// fails: "f: cannot allocate the heap storage of 'buf' (out of memory)".
std::string ffiHeapMessage(const std::string &function, const std::string &storage);

// The tvm-ffi type names the messages give for an argument of the wrong kind ("int", "None",
// "ffi.Tensor"), by type index; "object" for an index not listed.
const std::vector<std::pair<int32_t, const char *>> &ffiTypeNames();
// DLPack's dtype code names ("int", "uint", "float", "bfloat", "bool"); "code" otherwise.
const std::vector<std::pair<uint8_t, const char *>> &dlCodeNames();

} // namespace tirlower
