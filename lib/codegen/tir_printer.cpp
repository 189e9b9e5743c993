// Entry points of the TVMScript printer; the work is done by ScriptPrinter.
#include "codegen/tir_printer.h"

#include <algorithm>
#include <atomic>

#include "codegen/tir_script_printer.h"

namespace tirlower {

namespace {
// The end of the source text a parsed function came from: the furthest location on the path
// to its last statement (blocks themselves carry no location). 0 when nothing has one.
uint32_t sourceEnd(const PrimFuncNode &function) {
  uint32_t end = function.loc.end;
  const StmtNode *s = function.body.get();
  while (s) {
    if (s->loc.fileId == function.loc.fileId)
      end = std::max(end, s->loc.end);
    if (const auto *seq = s->kind() == StmtKind::SeqStmt ? static_cast<const SeqStmtNode *>(s) : nullptr) {
      s = seq->stmts.empty() ? nullptr : seq->stmts.back().get();
    } else if (s->kind() == StmtKind::IfThenElse) {
      const auto *node = static_cast<const IfThenElseNode *>(s);
      s = node->elseCase ? node->elseCase.get() : node->thenCase.get();
    } else {
      s = scopedBody(*s);
    }
  }
  return end;
}

// Printed text is about as long as the source it was parsed from (canonical spelling adds a
// little here and there, drops comments elsewhere), so a module reserves its source size plus
// some slack once instead of growing by doubling, which touches twice the final size in fresh
// pages. Functions without locations (built by passes or tests) count for nothing: the
// string then grows as usual past the minimum.
size_t estimatedOutputSize(const Module &module) {
  constexpr size_t kMinimum = size_t(1) << 16;
  size_t source = 0;
  for (const PrimFunc &function : module.functions) {
    if (!function->loc.valid())
      continue;
    uint32_t end = sourceEnd(*function);
    if (end > function->loc.begin)
      source += end - function->loc.begin;
  }
  return std::max(kMinimum, source + source / 8 + 16 * module.functions.size());
}
} // namespace

std::string printModule(const Module &module, std::optional<ScriptSpelling> spelling) {
  ScriptPrinter printer(/*plainNames=*/false, spelling.value_or(module.spelling), spelling.has_value());
  printer.reserve(estimatedOutputSize(module));
  printer.printModule(module);
  return printer.take();
}

namespace {

// Each function as printModule prints it after the module's first line: "\n" before the first,
// "\n\n" before the others; the first line, which names the spelling, comes last.
class TirModuleWriter : public ModuleWriter {
public:
  explicit TirModuleWriter(std::optional<ScriptSpelling> spelling) : spelling_(spelling) {}

  void write(const PrimFuncNode &func, const Module &piece, bool first, unsigned, std::string &out,
             DiagnosticSink &) override {
    ScriptSpelling spelling = spelling_.value_or(piece.spelling);
    seen_.fetch_or(spelling == ScriptSpelling::Tirx ? kTirx : kTir, std::memory_order_relaxed);
    ScriptPrinter printer(/*plainNames=*/false, spelling, spelling_.has_value());
    printer.reserve(1 << 12);
    printer.printFunction(func);
    out += first ? "\n" : "\n\n";
    out += printer.take();
  }

  std::optional<std::string> head() override {
    unsigned seen = seen_.load();
    if (!spelling_ && seen == (kTir | kTirx))
      return std::nullopt; // the module's spelling is tirx, and the tir pieces print otherwise
    Module empty;
    empty.spelling = spelling_.value_or(seen == kTirx ? ScriptSpelling::Tirx : ScriptSpelling::Tir);
    return printModule(empty); // the first line alone
  }

private:
  static constexpr unsigned kTir = 1, kTirx = 2;
  std::optional<ScriptSpelling> spelling_;
  std::atomic<unsigned> seen_{0};
};

} // namespace

std::unique_ptr<ModuleWriter> makeTirModuleWriter(std::optional<ScriptSpelling> spelling) {
  return std::make_unique<TirModuleWriter>(spelling);
}

std::string printFunction(const PrimFunc &function) {
  ScriptPrinter printer(/*plainNames=*/false);
  printer.reserve(1 << 12);
  printer.printFunction(*function);
  return printer.take();
}

std::string printStmt(const Stmt &stmt) {
  ScriptPrinter printer(/*plainNames=*/true);
  printer.printStmt(stmt);
  std::string text = printer.take();
  if (!text.empty() && text.back() == '\n')
    text.pop_back();
  return text;
}

} // namespace tirlower
