#include "ir/function.h"

namespace tirlower {

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
  return PrimFunc(node);
}

PrimFuncNode::Fields PrimFuncNode::fields() const {
  return {name, params, bufferMap, attrs, layoutTransforms, body, isPrivate, loc, layoutRequirements};
}

Buffer PrimFuncNode::bufferFor(const Var &param) const {
  for (const BufferBinding &b : bufferMap)
    if (b.param == param)
      return b.buffer;
  return nullptr;
}

std::string PrimFuncNode::globalSymbol() const {
  if (const AttrValue *symbol = attrs.find("global_symbol"); symbol && symbol->kind() == AttrValue::Kind::String)
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
