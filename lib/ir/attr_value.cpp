#include "ir/attr_value.h"

namespace tirlower {

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
  a.string_ = std::move(v);
  return a;
}
AttrValue AttrValue::list(std::vector<AttrValue> items) {
  AttrValue a;
  a.kind_ = Kind::List;
  a.items_ = std::move(items);
  return a;
}
AttrValue AttrValue::dict(std::vector<Entry> entries) {
  AttrValue a;
  a.kind_ = Kind::Dict;
  a.entries_ = std::move(entries);
  return a;
}

const AttrValue *AttrValue::find(const std::string &key) const {
  for (const auto &[k, v] : entries_)
    if (k == key)
      return &v;
  return nullptr;
}

void AttrValue::set(const std::string &key, AttrValue value) {
  if (kind_ == Kind::None)
    kind_ = Kind::Dict;
  for (auto &[k, v] : entries_) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  entries_.emplace_back(key, std::move(value));
}

bool AttrValue::erase(const std::string &key) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->first == key) {
      entries_.erase(it);
      return true;
    }
  }
  return false;
}

bool operator==(const AttrValue &a, const AttrValue &b) {
  if (a.kind_ != b.kind_)
    return false;
  switch (a.kind_) {
  case AttrValue::Kind::None:
    return true;
  case AttrValue::Kind::Bool:
  case AttrValue::Kind::Int:
    return a.int_ == b.int_;
  case AttrValue::Kind::Float:
    return a.float_ == b.float_;
  case AttrValue::Kind::String:
    return a.string_ == b.string_;
  case AttrValue::Kind::List:
    return a.items_ == b.items_;
  case AttrValue::Kind::Dict:
    return a.entries_ == b.entries_;
  }
  return false;
}

} // namespace tirlower
