// --emit=c: the module's C file (includes, the support code the functions use, external
// prototypes) and each function's signature and statements. Expressions are in
// c_expr_emitter.cpp, buffer accesses and storage in c_memory_access.cpp.
#include "codegen/c_emitter.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <optional>
#include <unordered_set>

#include "codegen/c_ffi_entry.h"
#include "codegen/c_function_emitter.h"
#include "codegen/c_header.h"
#include "ir/vscale.h"
#include "ir/parallel.h"

namespace tirlower {

CFunctionEmitter::CFunctionEmitter(const PrimFuncNode &func, CSupport &support, const CEmitOptions &options,
                                   std::string &out)
    // T.assume emits nothing: what only it uses is unused in C.
    : CFamilyEmitter(func, AccessCensus::of(func.body, /*countAssume=*/false), out), support_(support),
      options_(options) {}

void CFunctionEmitter::fail(SourceRange where, const std::string &message) const {
  throw CompileError(where, "C emitter: " + message);
}

void CFunctionEmitter::emit(const std::string &symbol) {
  rejectScalableVectors(func_.body, "C");
  // The parameters' names first: the comment above the definition names them too.
  std::vector<std::string> names;
  names.reserve(func_.params.size());
  for (const Var &param : func_.params)
    names.push_back(bind(param.get(), param->name.view()));
  std::string &o = body_;
  o += '\n';
  appendCParameterComment(o, func_, symbol, names, access_);
  appendAll(o, "int32_t ", symbol, '(');
  const bool restrictPointers = noalias();
  std::vector<std::string> types; // the parameters' C types, for the TVM FFI entry's call
  for (size_t k = 0; k < func_.params.size(); ++k) {
    const Var &param = func_.params[k];
    const std::string &name = names[k];
    if (k)
      o += ", ";
    std::string type;
    if (Buffer buffer = func_.bufferFor(param)) {
      bool readOnly = !access_.written.count(param.get());
      dataType_[param.get()] = buffer->dtype.element();
      type = std::string(readOnly ? "const " : "") + std::string(cScalarTypeName(buffer->dtype.element())) + " *";
      appendAll(o, type, restrictPointers ? "restrict " : "", name);
      pointer_[buffer.get()] = name;
    } else if (param->type.isHandle()) {
      DataType pointee = param->pointeeType.isVoid() ? DataType::voidType() : param->pointeeType.element();
      dataType_[param.get()] = pointee;
      type = std::string(cScalarTypeName(pointee)) + " *";
      appendAll(o, type, name);
    } else {
      type = std::string(cScalarTypeName(param->type));
      appendAll(o, type, ' ', name);
    }
    types.push_back(std::move(type));
  }
  // The entry's description first: a signature it cannot take is an error before any text.
  std::optional<FfiEntry> entry;
  if (options_.tvmFfi)
    entry = describeFfiEntry(func_, symbol);
  if (func_.params.empty())
    o += "void";
  o += ") {\n";
  for (const Var &param : func_.params)
    if (!access_.used.count(param.get())) {
      beginLine();
      appendAll(out(), "(void)", nameOf(param.get(), param->loc), ';');
      endLine();
    }
  emitStmt(func_.body);
  line("return 0;");
  o += "}\n";
  if (entry)
    appendCFfiEntry(o, *entry, types, support_);
}

// ---- statements ---------------------------------------------------------------------------------

namespace {

std::string commentText(const std::string &text) {
  std::string out;
  for (size_t k = 0; k < text.size(); ++k)
    out += (text[k] == '*' && k + 1 < text.size() && text[k + 1] == '/') || text[k] == '\n' ? ' ' : text[k];
  return out;
}

} // namespace

void CFunctionEmitter::visitWhile(const WhileNode *op) {
  beginLine();
  out() += "while (";
  expr(op->condition);
  out() += ") {";
  endLine();
  block(op->body);
  line("}");
}

void CFunctionEmitter::visitAssertStmt(const AssertStmtNode *op) {
  // The function returns 1 (per-thread storage stays for the next call).
  beginLine();
  out() += "if (!(";
  expr(op->condition);
  out() += ")) {";
  endLine();
  ++indent_;
  line("/* assert: " + commentText(op->message) + " */");
  if (options_.tvmFfi) {
    beginLine();
    appendCFfiRaise(out(), "RuntimeError", op->message);
    endLine();
  }
  line("return 1;");
  --indent_;
  line("}");
}

void CFunctionEmitter::visitFor(const ForNode *op) {
  bool parallel = op->forKind == ForKind::Parallel && options_.openmp && !inParallel_;
  if (parallel)
    line("#pragma omp parallel for");
  bool saved = inParallel_;
  inParallel_ |= parallel;
  emitLoop(op);
  inParallel_ = saved;
}

// ---- the module ---------------------------------------------------------------------------------

std::string cFunctionSymbol(const PrimFuncNode &func, std::unordered_set<std::string> &symbols,
                            DiagnosticSink &diagnostics) {
  std::string symbol = cSymbolName(func);
  if (symbol != cIdentifier(func.globalSymbol()))
    diagnostics.warning(func.loc, "C symbol '" + cIdentifier(func.globalSymbol()) + "' of function '" +
                                      func.name.str() + "' is renamed '" + symbol +
                                      "'; set \"global_symbol\" in T.func_attr to choose the name");
  if (!symbols.insert(symbol).second)
    throw CompileError(func.loc, "two functions have the C symbol '" + symbol + "'");
  return symbol;
}

void emitCFunction(const PrimFuncNode &func, const std::string &symbol, const CEmitOptions &options, CSupport &support,
                   std::string &out) {
  CFunctionEmitter(func, support, options, out).emit(symbol);
}

std::string cFileHead(const CSupport &support) {
  std::string out = "// Generated by tirlower. C11 with GCC/Clang vector extensions.\n"
                    "#include <math.h>\n#include <stdbool.h>\n#include <stdint.h>\n#include <stdlib.h>\n"
                    "#include <string.h>\n\n"
                    "#ifdef __GNUC__\n"
                    "/* The vector helpers are static: their by-value vector ABI never crosses this file. */\n"
                    "#pragma GCC diagnostic ignored \"-Wpsabi\"\n"
                    "#endif\n\n";
  out += support.preamble();
  out += support.externDeclarations();
  return out;
}

namespace {
// Keeps one function's symbol warnings for the main thread to report in module order.
class KeptDiagnostics : public DiagnosticSink {
public:
  void report(Diagnostic diagnostic) override { kept.push_back(std::move(diagnostic)); }
  std::vector<Diagnostic> kept;
};

// emitCStreamed on options.threads workers, with its bytes and diagnostics. The symbols first, on
// this thread in module order (each function's warnings kept with it; a duplicate ends the
// module there, as it ends one thread's). Then each function's text on a worker that records
// what its functions use in a CSupport of its own; a text goes to the sink as soon as it and
// every function before it are done (parallelForOrdered), after its function's warnings (and in
// its place, an error: nothing after it is written), and its memory is freed. The CSupports
// merge by name, so their order changes nothing. Returns the head.
std::string emitCOnThreads(const Module &module, const CEmitOptions &options, DiagnosticSink &diagnostics,
                           const std::function<void(std::string_view)> &sink) {
  const std::vector<PrimFunc> &functions = module.functions;
  std::vector<std::string> symbols;
  std::vector<KeptDiagnostics> warnings(functions.size());
  std::unordered_set<std::string> taken;
  std::optional<CompileError> duplicate;
  for (size_t k = 0; k < functions.size() && !duplicate; ++k) {
    try {
      symbols.push_back(cFunctionSymbol(*functions[k], taken, warnings[k]));
    } catch (CompileError &e) {
      duplicate = std::move(e);
    }
  }
  const size_t count = symbols.size();
  std::vector<CSupport> supports(options.threads);
  std::vector<std::string> texts(count);
  std::vector<std::exception_ptr> failures(count);
  parallelForOrdered(
      count, options.threads,
      [&](size_t k, unsigned worker) {
        try {
          emitCFunction(*functions[k], symbols[k], options, supports[worker], texts[k]);
        } catch (...) {
          failures[k] = std::current_exception();
        }
      },
      [&](size_t k) {
        for (Diagnostic &warning : warnings[k].kept)
          diagnostics.report(std::move(warning));
        if (failures[k])
          std::rethrow_exception(failures[k]); // nothing after it is written
        sink(texts[k]);
        std::string().swap(texts[k]);
      });
  if (duplicate) {
    for (Diagnostic &warning : warnings[count].kept)
      diagnostics.report(std::move(warning));
    throw std::move(*duplicate);
  }
  for (size_t w = 1; w < supports.size(); ++w)
    supports[0].merge(supports[w]);
  return cFileHead(supports[0]);
}
} // namespace

namespace {

class CModuleWriter : public ModuleWriter {
public:
  CModuleWriter(const CEmitOptions &options, unsigned workers)
      : options_(options), supports_(std::max(workers, 1u)), symbols_(std::max(workers, 1u)) {}

  void write(const PrimFuncNode &func, const Module &, bool, unsigned worker, std::string &out,
             DiagnosticSink &diagnostics) override {
    // A duplicate within this worker's functions throws here; head() checks across workers.
    emitCFunction(func, cFunctionSymbol(func, symbols_[worker], diagnostics), options_, supports_[worker], out);
  }

  std::optional<std::string> head() override {
    // A symbol is unique within each worker's set: check across them, smallest sets first.
    size_t total = 0;
    for (const std::unordered_set<std::string> &set : symbols_)
      total += set.size();
    std::unordered_set<std::string> all;
    all.reserve(total);
    for (std::unordered_set<std::string> &set : symbols_) {
      for (const std::string &symbol : set)
        if (!all.insert(symbol).second)
          return std::nullopt;
      std::unordered_set<std::string>().swap(set);
    }
    for (size_t w = 1; w < supports_.size(); ++w)
      supports_[0].merge(supports_[w]);
    return cFileHead(supports_[0]);
  }

private:
  CEmitOptions options_;
  std::vector<CSupport> supports_;
  std::vector<std::unordered_set<std::string>> symbols_;
};

} // namespace

std::unique_ptr<ModuleWriter> makeCModuleWriter(const CEmitOptions &options, unsigned workers) {
  return std::make_unique<CModuleWriter>(options, workers);
}

std::string emitCStreamed(const Module &module, const CEmitOptions &options, DiagnosticSink &diagnostics,
                          const std::function<void(std::string_view)> &sink) {
  if (options.threads > 1 && module.functions.size() > 1)
    return emitCOnThreads(module, options, diagnostics, sink);
  CSupport support;
  std::unordered_set<std::string> symbols;
  // Each function is written into `text`, whose memory is reused.
  std::string text;
  for (const PrimFunc &func : module.functions) {
    text.clear();
    emitCFunction(*func, cFunctionSymbol(*func, symbols, diagnostics), options, support, text);
    sink(text);
  }
  return cFileHead(support);
}

std::string emitC(const Module &module, const CEmitOptions &options, DiagnosticSink &diagnostics) {
  std::string functions;
  std::string head = emitCStreamed(module, options, diagnostics, [&](std::string_view text) { functions += text; });
  // The head goes into the functions' text, which is most of the file: `head + functions` would
  // hold two copies of it at once.
  functions.insert(0, head);
  return functions;
}

} // namespace tirlower
