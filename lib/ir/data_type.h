// Scalar and vector element types: a code, a bit width and a lane count ("float32x4"). A
// scalable vector ("float32xvscalex4", Arm SVE's) has vscale times `lanes` lanes, vscale being a
// positive integer the target fixes at run time (T.vscale()); lanes() is then the multiplier.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tirlower {

class DataType {
public:
  enum class Code : uint8_t { Int, UInt, Float, BFloat, Bool, Handle, Void };

  constexpr DataType() = default;
  constexpr DataType(Code code, int bits, int lanes = 1, bool scalable = false)
      : code_(code), bits_(static_cast<uint8_t>(bits)), scalable_(scalable), lanes_(static_cast<uint16_t>(lanes)) {}

  static constexpr DataType int32(int lanes = 1) { return {Code::Int, 32, lanes}; }
  static constexpr DataType int64(int lanes = 1) { return {Code::Int, 64, lanes}; }
  static constexpr DataType uint32(int lanes = 1) { return {Code::UInt, 32, lanes}; }
  static constexpr DataType float32(int lanes = 1) { return {Code::Float, 32, lanes}; }
  static constexpr DataType float64(int lanes = 1) { return {Code::Float, 64, lanes}; }
  static constexpr DataType boolean(int lanes = 1) { return {Code::Bool, 1, lanes}; }
  static constexpr DataType handle() { return {Code::Handle, 64, 1}; }
  static constexpr DataType voidType() { return {Code::Void, 0, 1}; }

  // Parses "float32", "int8x16", "float32xvscalex4", "bool", "handle", "float" (= float32), "int"
  // (= int32).
  static std::optional<DataType> parse(std::string_view text);

  constexpr Code code() const { return code_; }
  constexpr int bits() const { return bits_; }
  constexpr int lanes() const { return lanes_; }
  constexpr bool isScalar() const { return lanes_ == 1 && !scalable_; }
  constexpr bool isVector() const { return lanes_ > 1 || scalable_; }
  // A scalable vector: vscale * lanes() lanes.
  constexpr bool isScalable() const { return scalable_; }
  constexpr bool isInt() const { return code_ == Code::Int; }
  constexpr bool isUInt() const { return code_ == Code::UInt; }
  constexpr bool isIntOrUInt() const { return code_ == Code::Int || code_ == Code::UInt; }
  constexpr bool isFloat() const { return code_ == Code::Float || code_ == Code::BFloat; }
  constexpr bool isBool() const { return code_ == Code::Bool; }
  constexpr bool isHandle() const { return code_ == Code::Handle; }
  constexpr bool isVoid() const { return code_ == Code::Void; }
  // Integer-like types usable as indices and loop bounds.
  constexpr bool isIndex() const { return isIntOrUInt() && isScalar(); }

  // A fixed vector (or scalar) of `lanes` lanes of this element type.
  constexpr DataType withLanes(int lanes) const { return {code_, bits_, lanes}; }
  // This element type with the lanes of `shape` (fixed or scalable).
  constexpr DataType withLanesOf(DataType shape) const { return {code_, bits_, shape.lanes_, shape.scalable_}; }
  // Whether two types have the same number of lanes (fixed, or scalable with one multiplier).
  constexpr bool sameLanes(DataType other) const { return lanes_ == other.lanes_ && scalable_ == other.scalable_; }
  constexpr DataType element() const { return withLanes(1); }
  // Bytes of one lane (bool counts as one byte in memory).
  constexpr int laneBytes() const { return code_ == Code::Bool ? 1 : (bits_ + 7) / 8; }

  std::string str() const;

  friend constexpr bool operator==(DataType a, DataType b) {
    return a.code_ == b.code_ && a.bits_ == b.bits_ && a.lanes_ == b.lanes_ && a.scalable_ == b.scalable_;
  }
  friend constexpr bool operator!=(DataType a, DataType b) { return !(a == b); }

private:
  Code code_ = Code::Void;
  uint8_t bits_ = 0;
  bool scalable_ = false;
  uint16_t lanes_ = 1;
};

// For a floating-point type: the smallest magnitude that rounds to infinity in it (2^128 -
// 2^103 for float32), so a finite literal fits the type when its magnitude is below this.
double floatOverflowThreshold(DataType floatType);

} // namespace tirlower
