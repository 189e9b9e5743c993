// --emit=c: the module's C file (includes, the support code the functions use, external
// prototypes) and each function's signature and statements. Expressions are in
// c_expr_emitter.cpp, buffer accesses and storage in c_memory_access.cpp.
#include "codegen/c_emitter.h"

#include <algorithm>
#include <exception>
#include <optional>
#include <unordered_set>

#include "codegen/c_function_emitter.h"
#include "codegen/c_header.h"
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
  // The parameters' names first: the comment above the definition names them too.
  std::vector<std::string> names;
  names.reserve(func_.params.size());
  for (const Var &param : func_.params)
    names.push_back(bind(param.get(), param->name.view()));
  std::string &o = body_;
  o += '\n';
  appendCParameterComment(o, func_, symbol, names, access_);
  o += "int32_t ";
  o += symbol;
  o += '(';
  const bool restrictPointers = noalias();
  for (size_t k = 0; k < func_.params.size(); ++k) {
    const Var &param = func_.params[k];
    const std::string &name = names[k];
    if (k)
      o += ", ";
    if (Buffer buffer = func_.bufferFor(param)) {
      bool readOnly = !access_.written.count(param.get());
      dataType_[param.get()] = buffer->dtype.element();
      if (readOnly)
        o += "const ";
      o += cScalarTypeName(buffer->dtype.element());
      o += " *";
      if (restrictPointers)
        o += "restrict ";
      o += name;
      pointer_[buffer.get()] = name;
    } else if (param->type.isHandle()) {
      DataType pointee = param->pointeeType.isVoid() ? DataType::voidType() : param->pointeeType.element();
      dataType_[param.get()] = pointee;
      o += cScalarTypeName(pointee);
      o += " *";
      o += name;
    } else {
      o += cScalarTypeName(param->type);
      o += ' ';
      o += name;
    }
  }
  if (func_.params.empty())
    o += "void";
  o += ") {\n";
  for (const Var &param : func_.params)
    if (!access_.used.count(param.get())) {
      beginLine();
      out() += "(void)";
      out() += nameOf(param.get(), param->loc);
      out() += ';';
      endLine();
    }
  emitStmt(func_.body);
  line("return 0;");
  o += "}\n";
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
  // The function returns 1, freeing the heap storage live here.
  beginLine();
  out() += "if (!(";
  expr(op->condition);
  out() += ")) {";
  endLine();
  ++indent_;
  line("/* assert: " + commentText(op->message) + " */");
  freeHeap();
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

// emitC on options.threads workers, with emitC's bytes and diagnostics. The symbols first, on
// this thread in module order (each function's warnings kept with it; a duplicate ends the
// module there, as it ends one thread's). Then the functions' texts in batches, each function
// on a worker that records what its functions use in a CSupport of its own; after each batch,
// in module order, each function's warnings, then its error if it has one, as one thread reports
// them, and its text appended. The CSupports merge by name, so their order changes nothing.
// Batches keep the texts waiting to be joined small (the whole file twice over at 10^5
// functions otherwise).
std::string emitCOnThreads(const Module &module, const CEmitOptions &options, DiagnosticSink &diagnostics) {
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
  constexpr size_t kBatch = 1024;
  std::vector<CSupport> supports(options.threads);
  std::string text;
  std::vector<std::string> texts;
  std::vector<std::exception_ptr> failures;
  for (size_t begin = 0; begin < symbols.size(); begin += kBatch) {
    size_t count = std::min(kBatch, symbols.size() - begin);
    texts.assign(count, std::string());
    failures.assign(count, nullptr);
    parallelFor(count, options.threads, [&](size_t k, unsigned worker) {
      try {
        emitCFunction(*functions[begin + k], symbols[begin + k], options, supports[worker], texts[k]);
      } catch (...) {
        failures[k] = std::current_exception();
      }
    });
    for (size_t k = 0; k < count; ++k) {
      for (Diagnostic &warning : warnings[begin + k].kept)
        diagnostics.report(std::move(warning));
      if (failures[k])
        std::rethrow_exception(failures[k]);
      text += texts[k];
    }
  }
  if (duplicate) {
    for (Diagnostic &warning : warnings[symbols.size()].kept)
      diagnostics.report(std::move(warning));
    throw std::move(*duplicate);
  }
  for (size_t w = 1; w < supports.size(); ++w)
    supports[0].merge(supports[w]);
  // As emitC: the head goes into the functions' text, which is most of the file.
  text.insert(0, cFileHead(supports[0]));
  return text;
}
} // namespace

std::string emitC(const Module &module, const CEmitOptions &options, DiagnosticSink &diagnostics) {
  if (options.threads > 1 && module.functions.size() > 1)
    return emitCOnThreads(module, options, diagnostics);
  CSupport support;
  std::string functions;
  std::unordered_set<std::string> symbols;
  // Each function is written into `text`, whose memory is reused, and then appended: appending
  // every piece to the module's text directly raised the peak memory of 10^5 bench functions to C
  // by 25 MiB (967 -> 992 MiB).
  std::string text;
  for (const PrimFunc &func : module.functions) {
    text.clear();
    emitCFunction(*func, cFunctionSymbol(*func, symbols, diagnostics), options, support, text);
    functions += text;
  }
  // The head goes into the functions' text, which is most of the file: `head + functions` would
  // hold two copies of it at once (a tenth of the peak memory of 10^5 functions to C).
  functions.insert(0, cFileHead(support));
  return functions;
}

} // namespace tirlower
