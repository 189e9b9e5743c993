#include "ir/function.h"
#include "ir/attrs.h"

#include <algorithm>

namespace tirlower {

namespace {
// Up to this many bindings, bufferFor scans them: faster than a search, and no index to keep.
constexpr size_t kScanLimit = 16;
} // namespace

PrimFunc PrimFuncNode::make(Fields f) {
  if (!f.body)
    throw IRTypeError("function '" + f.name.str() + "' has no body");
  auto *node = new PrimFuncNode();
  node->name = f.name;
  node->params = std::move(f.params);
  node->bufferMap = std::move(f.bufferMap);
  node->attrs = std::move(f.attrs);
  node->layoutTransforms = std::move(f.layoutTransforms);
  node->body = std::move(f.body);
  node->isPrivate = f.isPrivate;
  node->loc = f.loc;
  node->layoutRequirements = std::move(f.layoutRequirements);
  if (node->bufferMap.size() > kScanLimit) {
    auto &index = node->bindingIndex_;
    index.reserve(node->bufferMap.size());
    for (size_t k = 0; k < node->bufferMap.size(); ++k)
      index.emplace_back(node->bufferMap[k].param.get(), static_cast<uint32_t>(k));
    // Stable, so that of several bindings of one parameter the first stays first, as in the scan.
    std::stable_sort(index.begin(), index.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    index.erase(std::unique(index.begin(), index.end(), [](const auto &a, const auto &b) { return a.first == b.first; }), index.end());
  }
  return PrimFunc(node);
}

PrimFuncNode::Fields PrimFuncNode::fields() const {
  return {name, params, bufferMap, attrs, layoutTransforms, body, isPrivate, loc, layoutRequirements};
}

Buffer PrimFuncNode::bufferFor(const Var &param) const {
  if (!bindingIndex_.empty()) {
    auto found = std::lower_bound(bindingIndex_.begin(), bindingIndex_.end(), param.get(),
                                  [](const auto &entry, const VarNode *key) { return entry.first < key; });
    return found != bindingIndex_.end() && found->first == param.get() ? bufferMap[found->second].buffer : nullptr;
  }
  for (const BufferBinding &b : bufferMap)
    if (b.param == param)
      return b.buffer;
  return nullptr;
}

std::string PrimFuncNode::globalSymbol() const {
  if (const AttrValue *symbol = attrs.find(attr::kGlobalSymbol); symbol && symbol->kind() == AttrValue::Kind::String)
    return symbol->asString();
  return name.str();
}

PrimFunc Module::find(std::string_view name) const {
  for (const PrimFunc &f : functions)
    if (f->name.view() == name)
      return f;
  return nullptr;
}

} // namespace tirlower
