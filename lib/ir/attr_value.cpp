#include "ir/attr_value.h"

namespace tirlower {

struct AttrValue::Payload {
  std::string string;
  std::vector<AttrValue> items;
  std::vector<Entry> entries;
};

const AttrValue::Payload &AttrValue::emptyPayload() {
  static const auto *empty = new Payload();
  return *empty;
}

AttrValue::Payload &AttrValue::mutablePayload() {
  if (!payload_ || payload_.use_count() > 1)
    payload_ = std::make_shared<Payload>(payload_ ? *payload_ : Payload{});
  return const_cast<Payload &>(*payload_);
}

const std::string &AttrValue::asString() const {
  return (payload_ ? *payload_ : emptyPayload()).string;
}
const std::vector<AttrValue> &AttrValue::items() const {
  return (payload_ ? *payload_ : emptyPayload()).items;
}
const std::vector<AttrValue::Entry> &AttrValue::entries() const {
  return (payload_ ? *payload_ : emptyPayload()).entries;
}

AttrValue AttrValue::boolean(bool v) {
  AttrValue a;
  a.kind_ = Kind::Bool;
  a.int_ = v;
  return a;
}
AttrValue AttrValue::integer(int64_t v) {
  AttrValue a;
  a.kind_ = Kind::Int;
  a.int_ = v;
  return a;
}
AttrValue AttrValue::real(double v) {
  AttrValue a;
  a.kind_ = Kind::Float;
  a.float_ = v;
  return a;
}
AttrValue AttrValue::string(std::string v) {
  AttrValue a;
  a.kind_ = Kind::String;
  a.mutablePayload().string = std::move(v);
  return a;
}
AttrValue AttrValue::list(std::vector<AttrValue> items) {
  AttrValue a;
  a.kind_ = Kind::List;
  a.mutablePayload().items = std::move(items);
  return a;
}
AttrValue AttrValue::dict(std::vector<Entry> entries) {
  AttrValue a;
  a.kind_ = Kind::Dict;
  a.mutablePayload().entries = std::move(entries);
  return a;
}

AttrValue AttrValue::target(AttrValue spec) {
  AttrValue a;
  a.kind_ = Kind::Target;
  a.mutablePayload().items = {std::move(spec)};
  return a;
}

const AttrValue *AttrValue::find(std::string_view key) const {
  for (const auto &[k, v] : entries())
    if (k == key)
      return &v;
  return nullptr;
}

void AttrValue::set(std::string_view key, AttrValue value) {
  if (kind_ == Kind::None)
    kind_ = Kind::Dict;
  std::vector<Entry> &entries = mutablePayload().entries;
  for (auto &[k, v] : entries) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  entries.emplace_back(key, std::move(value));
}

bool AttrValue::erase(std::string_view key) {
  const std::vector<Entry> &current = entries();
  for (size_t k = 0; k < current.size(); ++k) {
    if (current[k].first == key) {
      std::vector<Entry> &entries = mutablePayload().entries;
      entries.erase(entries.begin() + static_cast<std::ptrdiff_t>(k));
      return true;
    }
  }
  return false;
}

bool operator==(const AttrValue &a, const AttrValue &b) {
  if (a.kind_ != b.kind_)
    return false;
  switch (a.kind_) {
  case AttrValue::Kind::None: return true;
  case AttrValue::Kind::Bool:
  case AttrValue::Kind::Int: return a.int_ == b.int_;
  case AttrValue::Kind::Float: return a.float_ == b.float_;
  case AttrValue::Kind::String: return a.asString() == b.asString();
  case AttrValue::Kind::List:
  case AttrValue::Kind::Target: return a.items() == b.items();
  case AttrValue::Kind::Dict: return a.entries() == b.entries();
  }
  return false;
}

} // namespace tirlower
