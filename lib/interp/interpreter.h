// The reference interpreter: executes a PrimFunc at any stage of lowering with exact C-like
// semantics (wrap-around integers, float32 computed in float, truncating casts) and reports
// every misuse of memory (out of bounds, uninitialised reads) as a located diagnostic.
// It is the semantic oracle the compiled output is compared against. See docs/interpreter.md.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/function.h"

namespace tirlower {

struct RaceLog;

// Typed byte storage behind one data pointer, with a per-byte "initialized" map. The element
// type is a scalar type (a float32x4 buffer is stored as float32 scalars); aliases with another
// dtype reinterpret the same bytes.
class BufferData {
public:
  // Zero-filled and marked uninitialised.
  BufferData(DataType elementType, size_t elementCount);

  DataType elementType() const { return elementType_; }
  size_t size() const { return count_; }
  size_t byteSize() const { return bytes_.size(); }

  uint8_t *bytes() { return bytes_.data(); }
  const uint8_t *bytes() const { return bytes_.data(); }
  // One byte per data byte: non-zero when written.
  uint8_t *initMap() { return init_.data(); }
  const uint8_t *initMap() const { return init_.data(); }

  bool isInitialized(size_t element) const;
  void markAllInitialized();

  // Element access converting through the widest C type of the element's class. The setters
  // mark the element initialised.
  double getFloat(size_t element) const;
  int64_t getInt(size_t element) const;
  uint64_t getUInt(size_t element) const;
  void setFloat(size_t element, double value);
  void setInt(size_t element, int64_t value);
  void setUInt(size_t element, uint64_t value);

  std::unique_ptr<BufferData> clone() const;

  // Shared storage of a simulated thread block records its accesses here for the race check
  // (interp/kernel.h); null for other storage. Not copied by clone().
  RaceLog *raceLog = nullptr;

private:
  DataType elementType_;
  size_t count_;
  std::vector<uint8_t> bytes_;
  std::vector<uint8_t> init_;
};

// One argument of a call: a scalar of `type`, or storage for a handle parameter.
struct ArgValue {
  DataType type = DataType::int32();
  int64_t intValue = 0; // signed and bool values (unsigned ones are in uintValue)
  uint64_t uintValue = 0;
  double floatValue = 0.0;
  std::shared_ptr<BufferData> buffer; // set for handle parameters

  static ArgValue ofInt(int64_t value, DataType type = DataType::int32());
  static ArgValue ofUInt(uint64_t value, DataType type);
  static ArgValue ofFloat(double value, DataType type = DataType::float32());
  static ArgValue ofBool(bool value);
  static ArgValue ofBuffer(std::shared_ptr<BufferData> buffer);
  bool isBuffer() const { return type.isHandle(); }
  // Buffers are copied deeply, so a second run does not see the first run's writes.
  ArgValue deepCopy() const;
};
std::vector<ArgValue> deepCopyArgs(const std::vector<ArgValue> &args);

struct RunOptions {
  // Every iteration of every loop (For and While) is one step.
  uint64_t stepLimit = 1'000'000'000;
  // How the step-limit error tells its reader to raise the limit.
  std::string stepLimitHint = "RunOptions::stepLimit";
  // Each index is checked against its dimension's extent (else only the storage bounds).
  bool checkLogicalBounds = true;
  bool checkUninitialized = true;
  uint64_t maxAllocationBytes = uint64_t(1) << 32;
  // The value of T.vscale(): scalable vectors ("float32xvscalex4") run with vscale times their
  // lanes, as on a target whose vectors hold vscale 128-bit granules (2: 256-bit Arm SVE).
  int vscale = 2;
  // The lanes of a warp: threads of a block whose ids differ only below this power of two (x fastest)
  // meet at T.tvm_warp_shuffle and T.tvm_warp_activemask (1 to 32; 32 as CUDA).
  int warpSize = 32;
};

enum class RunStatus { Ok, AssertFailed, Error };

// A form of valid IR the interpreter does not run at this stage of lowering (a cross-thread
// reduction still under thread-bound loops, before lower-thread-binding makes them launches):
// not a failure of the program. run() reports it as an Error with RunResult::unsupported set.
class InterpreterLimit : public CompileError {
public:
  using CompileError::CompileError;
};

struct RunResult {
  RunStatus status = RunStatus::Ok;
  bool unsupported = false; // the Error is an InterpreterLimit
  // The C ABI's return value (docs/abi.md): 0, or 1 when an assert failed. -1 for Error, which
  // emitted code has no return value for (the diagnostic says what happened).
  int32_t returnCode = 0;
  std::optional<Diagnostic> error; // set unless status is Ok
  uint64_t steps = 0;
  bool ok() const { return status == RunStatus::Ok; }
};

// Runs `func` on `args` (one per parameter, in order). Buffers are modified in place.
RunResult run(const PrimFunc &func, std::vector<ArgValue> &args, const RunOptions &options = {});

struct RandomArgOptions {
  // Values for scalar parameters, by name. A missing integer parameter gets a random value in
  // [1, 16]; a missing float one a random value in [-1, 1).
  std::map<std::string, ArgValue> scalars;
  int64_t intLow = -8, intHigh = 8; // signed buffer elements; unsigned ones use [0, intHigh]
  bool initialize = true;           // false: buffers are left uninitialised
  // Bytes of storage one buffer parameter may take; a larger one is a CompileError located at
  // the buffer, naming it and `maxBufferBytesHint` (how to raise the limit).
  uint64_t maxBufferBytes = uint64_t(1) << 30;
  std::string maxBufferBytesHint;
};

// Arguments for every parameter: scalars first (buffer sizes may depend on them), then one
// storage per buffer parameter sized by physicalElementCount and filled deterministically from
// `seed` (floats uniform in [-1, 1), integers in [intLow, intHigh], bools 0/1).
// Throws CompileError when a buffer's size cannot be computed.
std::vector<ArgValue> makeRandomArgs(const PrimFunc &func, uint64_t seed, const RandomArgOptions &options = {});

// Scalar elements (of buffer->dtype.element()) a storage needs to hold `buffer` in its declared
// layout: elem_offset + (max offset + 1), times the lanes of its dtype. `scalars` binds the
// variables its shape, strides and elem_offset use. Throws CompileError on an unbound variable
// or a negative extent.
size_t physicalElementCount(const Buffer &buffer, const std::vector<std::pair<Var, ArgValue>> &scalars = {});

} // namespace tirlower
