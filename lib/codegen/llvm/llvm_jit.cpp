// JitModule: the emitted module compiled in-process with ORC LLJIT for the host. The process's
// own symbols (malloc, free, libm, extern functions) resolve the module's external calls.
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/raw_ostream.h>

#include "codegen/llvm/llvm_emitter.h"
#include "codegen/llvm/llvm_target.h"

namespace tirlower {

struct JitModule::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::string text;
};

namespace {

[[noreturn]] void fail(const std::string &what, llvm::Error error) {
  throw CompileError(SourceRange{}, "LLVM JIT: " + what + ": " + llvm::toString(std::move(error)));
}

// The packed entry point's symbol; tl_ names are the emitters' own (IR names never get them).
std::string packedSymbol(const std::string &symbol) {
  return "tl_packed_" + symbol;
}

// `i32 tl_packed_F(ptr %args)`: loads each argument from the array (a buffer's pointer itself, a
// scalar through its pointer) and calls F with F's own parameter attributes (zeroext, ...).
void addPackedEntryPoint(llvm::Module &module, llvm::Function &callee) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *ptr = llvm::PointerType::get(context, 0);
  auto *type = llvm::FunctionType::get(llvm::Type::getInt32Ty(context), {ptr}, false);
  auto *entry =
      llvm::Function::Create(type, llvm::Function::ExternalLinkage, packedSymbol(callee.getName().str()), module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", entry));
  std::vector<llvm::Value *> args;
  for (llvm::Argument &param : callee.args()) {
    llvm::Value *slot = b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, entry->getArg(0), param.getArgNo()));
    llvm::Type *t = param.getType();
    if (t->isPointerTy())
      args.push_back(slot);
    else if (t->isIntegerTy(1)) // a C bool: one byte
      args.push_back(b.CreateTrunc(b.CreateLoad(b.getInt8Ty(), slot), t));
    else
      args.push_back(b.CreateLoad(t, slot));
  }
  llvm::CallInst *call = b.CreateCall(&callee, args);
  call->setAttributes(callee.getAttributes());
  b.CreateRet(call);
}

// The host's triple with the CPU and features `options` name, as an object file would get them
// (generic by default): the JIT runs the code `--emit=obj` would produce here.
llvm::orc::JITTargetMachineBuilder machineFor(const LLVMEmitOptions &options) {
  TargetCpu target = targetCpuOf(options);
  llvm::orc::JITTargetMachineBuilder machine{llvm::Triple(llvm::sys::getProcessTriple())};
  machine.setCPU(target.cpu);
  machine.addFeatures(target.featureList());
  return machine;
}

} // namespace

JitModule::JitModule(const Module &module, const LLVMEmitOptions &options, bool packedEntryPoints,
                     const std::map<std::string, void *> &symbols)
    : impl_(std::make_unique<Impl>()) {
  initializeLLVMTargets();
  LLVMEmitOptions hostOptions = options;
  hostOptions.targetTriple.clear(); // the JIT runs here
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(machineFor(options)).create();
  if (!jit)
    fail("cannot create LLJIT", jit.takeError());
  impl_->jit = std::move(*jit);
  const llvm::DataLayout &layout = impl_->jit->getDataLayout();
  auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(layout.getGlobalPrefix());
  if (!generator)
    fail("cannot search the process's symbols", generator.takeError());
  impl_->jit->getMainJITDylib().addGenerator(std::move(*generator));
  if (!symbols.empty()) {
    llvm::orc::SymbolMap defined;
    for (const auto &[name, address] : symbols)
      defined[impl_->jit->mangleAndIntern(name)] = llvm::JITEvaluatedSymbol(
          llvm::pointerToJITTargetAddress(address), llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
    if (auto error = impl_->jit->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(defined))))
      fail("cannot define the given symbols", std::move(error));
  }

  auto context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> llvmModule = buildLLVMModule(module, *context, hostOptions);
  llvmModule->setDataLayout(layout);
  if (packedEntryPoints) {
    std::vector<llvm::Function *> defined;
    for (llvm::Function &f : *llvmModule)
      if (!f.isDeclaration() && !f.hasLocalLinkage()) // the emitted functions, not their helpers
        defined.push_back(&f);
    for (llvm::Function *f : defined)
      addPackedEntryPoint(*llvmModule, *f);
    std::string problems;
    llvm::raw_string_ostream problemStream(problems);
    if (llvm::verifyModule(*llvmModule, &problemStream))
      throw CompileError(SourceRange{},
                         "internal error: LLVM JIT: packed entry points fail verification: " + problemStream.str());
  }
  llvm::raw_string_ostream stream(impl_->text);
  llvmModule->print(stream, nullptr);
  stream.flush();
  if (auto error = impl_->jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(llvmModule), std::move(context))))
    fail("cannot add the module", std::move(error));
}

JitModule::~JitModule() = default;

void *JitModule::lookup(const std::string &symbol) const {
  auto address = impl_->jit->lookup(symbol);
  if (!address)
    fail("no function '" + symbol + "'", address.takeError());
  return address->toPtr<void *>();
}

int32_t JitModule::callPacked(const std::string &symbol, void *const *args) const {
  using Entry = int32_t (*)(void *const *);
  return reinterpret_cast<Entry>(lookup(packedSymbol(symbol)))(args);
}

const std::string &JitModule::irText() const {
  return impl_->text;
}

} // namespace tirlower
