#include "transform/target.h"

#include <algorithm>

#include "transform/layout_requirements.h"

namespace tirlower {

namespace {
// Schedulable TIR to low-level TIR, as TVM's block lowering does; no change without blocks.
#define TL_LOWER_BLOCKS "lower-init-block,convert-blocks-to-opaque,lower-match-buffer,lower-opaque-block,"
} // namespace

bool Target::accepts(std::string_view flag) const {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

std::vector<LayoutRequirement> Target::requirementsOf(const PrimFuncNode &func) const {
  return layoutRequirements ? layoutRequirements(func) : std::vector<LayoutRequirement>{};
}

const std::vector<Target> &targets() {
  static const std::vector<Target> all = {
      // Blocks first, then layout transforms (they rewrite multi-dimensional accesses), then
      // flattening to the emitters' 1-d buffers, vector code, and cleanup of the index
      // arithmetic.
      // A reduction's init leaves its loops once blocks are gone (hoist-reduction-init), so that
      // the C compiler and LLVM see a loop of updates they can keep in registers and vectorise;
      // a loop is split where a condition on its variable changes (partition-loops), so that a
      // concatenation or a padding copies without a condition per element.
      {"c", "c",
       TL_LOWER_BLOCKS "hoist-reduction-init,apply-layout-transforms,compact-buffer-allocation,flatten,partition-loops,tile-copies,"
                       "collapse-loops,"
                       "outer-loop-vectorize,vectorize,simplify,remove-no-op",
       {"--openmp", "--abi"}, "c"},
      {"llvm", "llvm",
       TL_LOWER_BLOCKS "hoist-reduction-init,apply-layout-transforms,compact-buffer-allocation,flatten,partition-loops,tile-copies,"
                       "collapse-loops,"
                       "outer-loop-vectorize,vectorize,simplify,remove-no-op",
       {"-O", "--target-triple", "--mcpu", "--mattr", "--fp-contract", "--abi"}, "obj"},
      // The layout passes meet the texture role of the target (and any --require-layout).
      // Reductions across threads are rewritten while they are blocks (TVM's
      // LowerCrossThreadReduction); thread-bound loops become launches once blocks are gone; cross-thread reductions become
      // shared-memory trees once buffers are flat, and thread-sync places the barriers last,
      // when no later pass moves a shared access.
      {"opencl", "opencl",
       "lower-cross-thread-reduction," TL_LOWER_BLOCKS "compact-buffer-allocation,lower-thread-binding,legalize-layouts,apply-layout-transforms,verify-layouts,flatten,vectorize,"
                       "simplify,remove-no-op,lower-thread-allreduce,thread-sync",
       {"--subgroup-size"}, "", openclTextureRequirements},
  };
  return all;
}

const Target *findTarget(std::string_view name) {
  for (const Target &t : targets())
    if (t.name == name)
      return &t;
  return nullptr;
}

std::string targetNames() {
  std::string names;
  for (const Target &t : targets())
    names += (names.empty() ? "" : ", ") + t.name;
  return names;
}

} // namespace tirlower
