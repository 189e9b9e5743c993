// The registry of every pass of the product, listed explicitly: static libraries drop objects
// nothing refers to, so self-registering static initializers would silently lose passes.
// Adding a pass = declaring its PassInfo in passes.h and one line below.
#include <algorithm>
#include <functional>
#include <stdexcept>

#include "transform/passes.h"

namespace tirlower {

const PassRegistry &PassRegistry::builtin() {
  static const PassRegistry registry = [] {
    PassRegistry r;
    r.add(verifyPassInfo());
    r.add(lowerCrossThreadReductionPassInfo());
    r.add(lowerInitBlockPassInfo());
    r.add(convertBlocksToOpaquePassInfo());
    r.add(lowerMatchBufferPassInfo());
    r.add(lowerOpaqueBlockPassInfo());
    r.add(hoistReductionInitPassInfo());
    r.add(compactBufferAllocationPassInfo());
    r.add(lowerThreadBindingPassInfo());
    r.add(lowerThreadAllreducePassInfo());
    r.add(threadSyncPassInfo());
    r.add(legalizeLayoutsPassInfo());
    r.add(applyLayoutTransformsPassInfo());
    r.add(verifyLayoutsPassInfo());
    r.add(flattenPassInfo());
    r.add(simplifyPassInfo());
    r.add(removeNoOpPassInfo());
    r.add(convertSSAPassInfo());
    r.add(tileCopiesPassInfo());
    r.add(partitionLoopsPassInfo());
    r.add(collapseLoopsPassInfo());
    r.add(outerLoopVectorizePassInfo());
    r.add(unrollPassInfo());
    r.add(vectorizePassInfo());
    r.add(vectorTypeRewritePassInfo());
    r.add(lowerVectorAccessPassInfo());
    if (!r.conflicts().empty())
      throw std::logic_error(r.conflicts().front());
    return r;
  }();
  return registry;
}

void PassRegistry::add(PassInfo info) {
  auto taken = [this](const std::string &name) { return find(name) != nullptr; };
  if (taken(info.name) || std::any_of(info.aliases.begin(), info.aliases.end(), taken))
    conflicts_.push_back("pass '" + info.name + "' is registered twice or shares a name");
  else
    passes_.push_back(std::move(info));
}

const char *irPropertyName(IRProperty property) {
  switch (property) {
  case IRProperty::LayoutsApplied: return "layouts applied";
  case IRProperty::Flat: return "flat buffers";
  case IRProperty::InitBlocksLowered: return "block inits lowered";
  case IRProperty::BlocksOpaque: return "opaque blocks";
  case IRProperty::MatchBuffersLowered: return "matched buffers lowered";
  case IRProperty::BlocksLowered: return "blocks lowered";
  case IRProperty::ThreadsLaunched: return "thread launches";
  }
  return "?";
}

const PassInfo *PassRegistry::find(const std::string &nameOrAlias) const {
  for (const PassInfo &info : passes_) {
    if (info.name == nameOrAlias)
      return &info;
    if (std::find(info.aliases.begin(), info.aliases.end(), nameOrAlias) != info.aliases.end())
      return &info;
  }
  return nullptr;
}

const PassInfo *PassRegistry::establishing(IRProperty property) const {
  for (const PassInfo &info : passes_)
    if (std::find(info.establishes.begin(), info.establishes.end(), property) != info.establishes.end())
      return &info;
  return nullptr;
}

std::vector<const PassInfo *> PassRegistry::pipelineEstablishing(IRProperty property) const {
  std::vector<const PassInfo *> out;
  std::vector<IRProperty> visiting; // the properties whose passes are being placed: a cycle is a bug
  std::function<void(IRProperty)> place = [&](IRProperty wanted) {
    const PassInfo *info = establishing(wanted);
    if (!info || std::find(out.begin(), out.end(), info) != out.end())
      return;
    if (std::find(visiting.begin(), visiting.end(), wanted) != visiting.end())
      throw std::logic_error(std::string("the pass contracts require '") + irPropertyName(wanted) +
                             "' to establish itself");
    visiting.push_back(wanted);
    for (IRProperty required : info->requirements)
      place(required);
    visiting.pop_back();
    out.push_back(info);
  };
  place(property);
  return out;
}

} // namespace tirlower
