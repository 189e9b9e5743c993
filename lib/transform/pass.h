// Passes and their registry. A pass maps a Module to a Module and knows nothing of printing,
// timing or verification: the pass manager and the tool own those cross-cutting concerns.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/function.h"
#include "transform/pass_options.h"

namespace tirlower {

// Properties of the IR that passes establish and later passes require (PassInfo).
enum class IRProperty {
  LayoutsApplied,      // no layout_transform_map entries left
  Flat,                // every buffer access has physical rank 1 (or 2 for textures)
  InitBlocksLowered,   // no block has a T.init() (lower-init-block)
  BlocksOpaque,        // no block has iteration variables (convert-blocks-to-opaque)
  MatchBuffersLowered, // no block matches a buffer region (lower-match-buffer)
  BlocksLowered,       // no blocks (lower-opaque-block)
  ThreadsLaunched,     // thread-bound loops are thread launches (lower-thread-binding)
};
// "layouts applied", "flat", ...: how messages name a property.
const char *irPropertyName(IRProperty property);

// What every pass is given besides the module: where to report, and whether to report
// remarks. Anything a particular pass reads (a limit, a target's requirements, whether unmet
// requirements are warnings) is one of its declared options (PassInfo::options), which a tool
// flag may give (PassOptionInfo::flag).
struct PassContext {
  DiagnosticSink &diagnostics;
  bool remarks = false; // report per-decision remarks (--remarks)
  // The same context reporting to `sink` (the pass manager's per-pass and per-worker sinks).
  PassContext withDiagnostics(DiagnosticSink &sink) const { return {sink, remarks}; }
};

class Pass {
public:
  virtual ~Pass() = default;
  // Returns the rewritten module. Reports input errors by throwing CompileError or by
  // reporting to ctx.diagnostics and returning std::nullopt. The module is the pass's own:
  // when nothing else holds the input (the pass manager moves it in unless instrumentation
  // needs it afterwards), a function replaced by its rewrite is freed at once and its memory
  // reused for the next function's rewrite.
  virtual std::optional<Module> run(Module module, PassContext &ctx) = 0;
  // The pass on one function, for function-local passes (a FunctionPass): the pass manager
  // calls it on worker threads (--threads=N), concurrently for different functions, so it may
  // only read and write state of that function (or state behind a lock whose use cannot change
  // any result). Returns the rewritten function, or nullopt after reporting an error. Others
  // never call it: the default is an internal error (std::logic_error).
  virtual std::optional<PrimFunc> runOnFunction(PrimFunc func, PassContext &ctx);
};

// A function-local pass: it rewrites each function on its own, from that function alone, and
// reports the same diagnostics for it whatever the other functions are. run applies
// runOnFunction to each function in order and stops at the first that fails, which is what the
// pass manager reproduces when it runs the functions on workers: a pass is function-local by
// being a FunctionPass, and the pass manager runs consecutive ones per function on its workers
// (--threads); any other pass waits for every function and runs on the whole module.
class FunctionPass : public Pass {
public:
  std::optional<Module> run(Module module, PassContext &ctx) final;
  std::optional<PrimFunc> runOnFunction(PrimFunc func, PassContext &ctx) override = 0;
};

struct PassInfo {
  std::string name;
  std::vector<std::string> aliases;
  std::string summary; // one line, shown by --list-passes
  std::vector<PassOptionInfo> options; // declared once: name, type, default, description
  std::vector<IRProperty> establishes;
  // Properties the pass needs from the passes before it. The pass manager rejects a pipeline
  // that runs the pass before a pass establishing one of them (PassManager::orderError); input
  // that already has the property needs no such pass.
  std::vector<IRProperty> requirements;
  // The pass may reassociate floating-point arithmetic ((a + b) + c -> a + (b + c)), so its
  // float results can differ in the last bits: --verify-semantics then compares floats with
  // reassociationTolerance (interp/semantic_check.h) instead of bit for bit, for this pass and
  // every later one.
  bool reassociates = false;
  // Builds the pass from its options as passOptionsWithDefaults gives them: valid for
  // `options`, with the defaults filled in (PassManager::add does this).
  std::function<std::unique_ptr<Pass>(const PassOptions &)> create;
};

class PassRegistry {
public:
  // The registry with every pass of the product (see registry.cpp for the list).
  static const PassRegistry &builtin();
  // Adds the pass, unless its name or an alias is already taken: then the registry keeps the
  // pass registered first and adds the refusal to conflicts() (a plugin's misuse, which the
  // tool reports; in builtin(), an internal error).
  void add(PassInfo info);
  // "pass 'x' is registered twice or shares a name", one for each pass add() refused.
  const std::vector<std::string> &conflicts() const { return conflicts_; }
  const PassInfo *find(const std::string &nameOrAlias) const;
  // The first registered pass establishing `property`, or null.
  const PassInfo *establishing(IRProperty property) const;
  // The passes that establish `property` from IR that has none of the properties: the passes
  // establishing what it requires first (recursively, in the order each pass lists its
  // requirements), then the pass establishing it; a pipeline in this order keeps every contract.
  std::vector<const PassInfo *> pipelineEstablishing(IRProperty property) const;
  const std::vector<PassInfo> &passes() const { return passes_; }

private:
  std::vector<PassInfo> passes_;
  std::vector<std::string> conflicts_;
};

} // namespace tirlower
