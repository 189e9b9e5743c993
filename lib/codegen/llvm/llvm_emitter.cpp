// Entry points of the LLVM emitter: build the module (one function per PrimFunc), verify it,
// run the requested pipeline, then print it as text, bitcode or an object file.
#include "codegen/llvm/llvm_emitter.h"

#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Support/raw_ostream.h>

#include <set>

#include <llvm/ADT/Triple.h>

#include "codegen/llvm/function_lowering.h"
#include "codegen/llvm/llvm_target.h"
#include "codegen/llvm/object_merge.h"
#include "ir/parallel.h"

namespace tirlower {

namespace {

std::unique_ptr<llvm::Module> buildForMachine(const Module &module, llvm::LLVMContext &context,
                                              const LLVMEmitOptions &options, llvm::TargetMachine &machine) {
  auto llvmModule =
      std::make_unique<llvm::Module>(module.name.empty() ? std::string("tirlower") : module.name, context);
  llvmModule->setTargetTriple(machine.getTargetTriple().str());
  llvmModule->setDataLayout(machine.createDataLayout());
  for (const PrimFunc &func : module.functions) {
    FunctionLowering lowering(*func, *llvmModule, options);
    lowering.lower(llvmSymbolName(*func));
  }
  verifyOrThrow(*llvmModule, "as built");
  optimizeModule(*llvmModule, machine, options.optLevel);
  verifyOrThrow(*llvmModule, "after optimisation");
  return llvmModule;
}

} // namespace

std::unique_ptr<llvm::Module> buildLLVMModule(const Module &module, llvm::LLVMContext &context,
                                              const LLVMEmitOptions &options) {
  std::unique_ptr<llvm::TargetMachine> machine = createTargetMachine(options);
  return buildForMachine(module, context, options, *machine);
}

std::string emitLLVMText(const Module &module, const LLVMEmitOptions &options) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule = buildLLVMModule(module, context, options);
  std::string text;
  llvm::raw_string_ostream stream(text);
  llvmModule->print(stream, nullptr);
  stream.flush();
  return text;
}

std::string emitLLVMBitcode(const Module &module, const LLVMEmitOptions &options) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule = buildLLVMModule(module, context, options);
  std::string bytes;
  llvm::raw_string_ostream stream(bytes);
  llvm::WriteBitcodeToFile(*llvmModule, stream);
  stream.flush();
  return bytes;
}

namespace {

std::string objectOf(llvm::Module &llvmModule, llvm::TargetMachine &machine) {
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream stream(bytes);
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, stream, nullptr, llvm::CGFT_ObjectFile))
    throw CompileError(SourceRange{},
                       "LLVM emitter: target '" + machine.getTargetTriple().str() + "' cannot emit object files");
  codegen.run(llvmModule);
  return std::string(bytes.begin(), bytes.end());
}

std::string wholeObject(const Module &module, const LLVMEmitOptions &options) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::TargetMachine> machine = createTargetMachine(options);
  std::unique_ptr<llvm::Module> llvmModule = buildForMachine(module, context, options, *machine);
  return objectOf(*llvmModule, *machine);
}

// Two functions with one symbol are refused at the second, as building them in one module does.
void checkDistinctSymbols(const Module &module) {
  std::set<std::string> seen;
  for (const PrimFunc &func : module.functions)
    if (!seen.insert(llvmSymbolName(*func)).second)
      throw CompileError(func->loc, "two functions have the C symbol '" + llvmSymbolName(*func) + "'");
}

} // namespace

std::string emitObject(const Module &module, const LLVMEmitOptions &options) {
  const size_t count = module.functions.size();
  const llvm::Triple triple = createTargetMachine(options)->getTargetTriple();
  if (count < 2 || !triple.isOSBinFormatELF() || !triple.isArch64Bit() || !triple.isLittleEndian())
    return wholeObject(module, options);
  checkDistinctSymbols(module);
  // Pieces of consecutive functions, as even as can be; their number depends on the module only.
  const size_t pieces = std::min(count, kObjectPieces);
  std::vector<std::string> objects(pieces);
  parallelFor(pieces, std::max(1u, options.threads), [&](size_t piece, unsigned) {
    Module part;
    part.name = module.name;
    part.functions.assign(module.functions.begin() + static_cast<std::ptrdiff_t>(piece * count / pieces),
                          module.functions.begin() + static_cast<std::ptrdiff_t>((piece + 1) * count / pieces));
    objects[piece] = wholeObject(part, options);
  });
  if (std::optional<std::string> joined = mergeElfObjects(objects))
    return *joined;
  return wholeObject(module, options); // an object the merge does not handle: compiled whole
}

} // namespace tirlower
