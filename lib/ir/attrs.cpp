#include "ir/attrs.h"

#include <algorithm>

namespace tirlower {

namespace {

constexpr NamespacedAttrInfo kNamespaced[] = {
    {NamespacedAttr::NoAlias, "noalias"},
    {NamespacedAttr::IsEntryFunc, "is_entry_func"},
    {NamespacedAttr::IsGlobalFunc, "is_global_func"},
    {NamespacedAttr::IsHostFunc, "is_host_func"},
    {NamespacedAttr::IsScheduled, "is_scheduled"},
    {NamespacedAttr::KernelLaunchParams, "kernel_launch_params"},
};

constexpr std::string_view kTirPrefix = "tir.";
constexpr std::string_view kTirxPrefix = "tirx.";

std::string_view prefixOf(ScriptSpelling spelling) {
  return spelling == ScriptSpelling::Tirx ? kTirxPrefix : kTirPrefix;
}

// The name after "tir." or "tirx.", or empty when the key has neither namespace.
std::string_view unprefixed(std::string_view key) {
  for (std::string_view prefix : {kTirPrefix, kTirxPrefix})
    if (key.size() > prefix.size() && key.substr(0, prefix.size()) == prefix)
      return key.substr(prefix.size());
  return {};
}

} // namespace

bool isThreadLaunchKey(std::string_view key) {
  return key == attr::kThreadExtent || key == attr::kVirtualThread;
}

std::span<const NamespacedAttrInfo> namespacedAttrTable() {
  return kNamespaced;
}

const NamespacedAttrInfo *findNamespacedAttr(std::string_view key) {
  std::string_view name = unprefixed(key);
  if (name.empty())
    return nullptr;
  for (const NamespacedAttrInfo &info : kNamespaced)
    if (info.name == name)
      return &info;
  return nullptr;
}

std::string namespacedKey(NamespacedAttr id, ScriptSpelling spelling) {
  std::string key(prefixOf(spelling));
  key += kNamespaced[static_cast<size_t>(id)].name;
  return key;
}

const AttrValue *findFuncAttr(const AttrValue &attrs, NamespacedAttr id) {
  if (attrs.kind() != AttrValue::Kind::Dict)
    return nullptr;
  const AttrValue *found = nullptr;
  for (const AttrValue::Entry &entry : attrs.entries())
    if (const NamespacedAttrInfo *info = findNamespacedAttr(entry.first); info && info->id == id)
      found = &entry.second;
  return found;
}

bool attrTruthy(const AttrValue &value) {
  bool flag = value.kind() == AttrValue::Kind::Bool || value.kind() == AttrValue::Kind::Int;
  return flag && value.asInt() != 0;
}

bool noalias(const PrimFuncNode &func) {
  const AttrValue *value = findFuncAttr(func.attrs, NamespacedAttr::NoAlias);
  return value && attrTruthy(*value);
}

AttrValue respellNamespacedAttrs(const AttrValue &attrs, ScriptSpelling spelling) {
  if (attrs.kind() != AttrValue::Kind::Dict)
    return attrs;
  std::string_view prefix = prefixOf(spelling);
  bool respell = false;
  for (const AttrValue::Entry &entry : attrs.entries())
    respell |= findNamespacedAttr(entry.first) && entry.first.compare(0, prefix.size(), prefix) != 0;
  if (!respell)
    return attrs;
  std::vector<AttrValue::Entry> entries;
  entries.reserve(attrs.entries().size());
  for (const AttrValue::Entry &entry : attrs.entries()) {
    const NamespacedAttrInfo *info = findNamespacedAttr(entry.first);
    std::string key = info ? namespacedKey(info->id, spelling) : entry.first;
    // Both spellings written: one key, the later value (as findFuncAttr reads it).
    auto same = std::find_if(entries.begin(), entries.end(), [&](const AttrValue::Entry &e) { return e.first == key; });
    if (same != entries.end())
      same->second = entry.second;
    else
      entries.emplace_back(std::move(key), entry.second);
  }
  return AttrValue::dict(std::move(entries));
}

} // namespace tirlower
