// Storage and argument values.
#include <algorithm>
#include <cmath>

#include "interp/interpreter.h"
#include "interp/value.h"

namespace tirlower {

BufferData::BufferData(DataType elementType, size_t elementCount)
    : elementType_(elementType.element()), count_(elementCount),
      bytes_(elementCount * static_cast<size_t>(elementType.laneBytes())), init_(bytes_.size()) {
  numKind(elementType_); // rejects void and other types without storage
}

bool BufferData::isInitialized(size_t element) const {
  const size_t width = static_cast<size_t>(elementType_.laneBytes());
  const auto first = init_.begin() + static_cast<std::ptrdiff_t>(element * width);
  return std::all_of(first, first + static_cast<std::ptrdiff_t>(width), [](uint8_t b) { return b != 0; });
}

void BufferData::markAllInitialized() {
  std::fill(init_.begin(), init_.end(), uint8_t(1));
}

namespace {
uint8_t *elementPointer(std::vector<uint8_t> &bytes, std::vector<uint8_t> &init, size_t element, DataType type) {
  const size_t width = static_cast<size_t>(type.laneBytes());
  std::fill_n(init.begin() + static_cast<std::ptrdiff_t>(element * width), width, uint8_t(1));
  return bytes.data() + element * width;
}
} // namespace

double BufferData::getFloat(size_t element) const {
  const Cell c = loadScalar(bytes_.data() + element * elementType_.laneBytes(), elementType_);
  switch (numKind(elementType_)) {
  case NumKind::Int: return static_cast<double>(c.i);
  case NumKind::UInt:
  case NumKind::Bool: return static_cast<double>(c.u);
  default: return c.f;
  }
}

int64_t BufferData::getInt(size_t element) const {
  const Cell c = loadScalar(bytes_.data() + element * elementType_.laneBytes(), elementType_);
  if (!elementType_.isFloat())
    return c.i;
  return std::fabs(c.f) < 9.2e18 ? static_cast<int64_t>(c.f) : 0; // NaN and overflow read as 0
}

uint64_t BufferData::getUInt(size_t element) const {
  return static_cast<uint64_t>(getInt(element));
}

void BufferData::setFloat(size_t element, double value) {
  Cell c;
  if (elementType_.isFloat())
    c.f = value;
  else
    c = normalizeInt(static_cast<uint64_t>(static_cast<int64_t>(value)), numKind(elementType_), elementType_.bits());
  storeScalar(elementPointer(bytes_, init_, element, elementType_), elementType_, c);
}

void BufferData::setInt(size_t element, int64_t value) {
  Cell c;
  if (elementType_.isFloat())
    c.f = static_cast<double>(value);
  else
    c = normalizeInt(static_cast<uint64_t>(value), numKind(elementType_), elementType_.bits());
  storeScalar(elementPointer(bytes_, init_, element, elementType_), elementType_, c);
}

void BufferData::setUInt(size_t element, uint64_t value) {
  if (elementType_.isFloat())
    return setFloat(element, static_cast<double>(value));
  setInt(element, static_cast<int64_t>(value));
}

std::unique_ptr<BufferData> BufferData::clone() const {
  auto copy = std::make_unique<BufferData>(*this);
  copy->raceLog = nullptr;
  return copy;
}

ArgValue ArgValue::ofInt(int64_t value, DataType type) {
  ArgValue a;
  a.type = type;
  a.intValue = value;
  a.uintValue = static_cast<uint64_t>(value);
  a.floatValue = static_cast<double>(value);
  return a;
}

ArgValue ArgValue::ofUInt(uint64_t value, DataType type) {
  ArgValue a = ofInt(static_cast<int64_t>(value), type);
  a.floatValue = static_cast<double>(value);
  return a;
}

ArgValue ArgValue::ofFloat(double value, DataType type) {
  ArgValue a;
  a.type = type;
  a.floatValue = value;
  return a;
}

ArgValue ArgValue::ofBool(bool value) {
  return ofInt(value ? 1 : 0, DataType::boolean());
}

ArgValue ArgValue::ofBuffer(std::shared_ptr<BufferData> buffer) {
  ArgValue a;
  a.type = DataType::handle();
  a.buffer = std::move(buffer);
  return a;
}

ArgValue ArgValue::deepCopy() const {
  ArgValue a = *this;
  if (buffer)
    a.buffer = std::shared_ptr<BufferData>(buffer->clone());
  return a;
}

std::vector<ArgValue> deepCopyArgs(const std::vector<ArgValue> &args) {
  std::vector<ArgValue> copies;
  copies.reserve(args.size());
  for (const ArgValue &a : args)
    copies.push_back(a.deepCopy());
  return copies;
}

} // namespace tirlower
