// Attribute values of T.func_attr and loop annotations: a small JSON-like tree with insertion
// order kept (so printing is deterministic and round-trips). Strings, lists and dicts live in a
// shared payload copied on write: a value is 40 bytes, and copying one never copies its tree
// (every loop node holds one).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tirlower {

class AttrValue {
public:
  // Target: `T.target({...})` (or of a string), a compilation target as TVM prints it in
  // T.func_attr; its one item is the specification.
  enum class Kind : uint8_t { None, Bool, Int, Float, String, List, Dict, Target };
  using Entry = std::pair<std::string, AttrValue>;

  AttrValue() = default;
  static AttrValue boolean(bool v);
  static AttrValue integer(int64_t v);
  static AttrValue real(double v);
  static AttrValue string(std::string v);
  static AttrValue list(std::vector<AttrValue> items = {});
  static AttrValue dict(std::vector<Entry> entries = {});
  static AttrValue target(AttrValue spec);

  Kind kind() const { return kind_; }
  bool isNone() const { return kind_ == Kind::None; }
  bool asBool() const { return int_ != 0; }
  int64_t asInt() const { return int_; }
  double asFloat() const { return float_; }
  const std::string &asString() const;
  const std::vector<AttrValue> &items() const; // List; Target: {spec}
  const std::vector<Entry> &entries() const;

  // Dict access: null when absent. set() replaces an existing key in place.
  const AttrValue *find(std::string_view key) const;
  void set(std::string_view key, AttrValue value);
  bool erase(std::string_view key);
  bool empty() const { return kind_ == Kind::None || (kind_ == Kind::Dict && entries().empty()); }

  friend bool operator==(const AttrValue &a, const AttrValue &b);

private:
  struct Payload;
  Payload &mutablePayload(); // unshared first
  static const Payload &emptyPayload();

  Kind kind_ = Kind::None;
  int64_t int_ = 0;
  double float_ = 0;
  std::shared_ptr<const Payload> payload_; // String, List and Dict
};

} // namespace tirlower
