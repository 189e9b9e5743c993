// JitModule: the emitted module compiled in-process with ORC LLJIT for the host. The process's
// own symbols (malloc, free, libm, extern functions) resolve the module's external calls.
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
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

} // namespace

JitModule::JitModule(const Module &module, const LLVMEmitOptions &options) : impl_(std::make_unique<Impl>()) {
  initializeLLVMTargets();
  LLVMEmitOptions hostOptions = options;
  hostOptions.targetTriple.clear(); // the JIT runs here
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    fail("cannot create LLJIT", jit.takeError());
  impl_->jit = std::move(*jit);
  const llvm::DataLayout &layout = impl_->jit->getDataLayout();
  auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(layout.getGlobalPrefix());
  if (!generator)
    fail("cannot search the process's symbols", generator.takeError());
  impl_->jit->getMainJITDylib().addGenerator(std::move(*generator));

  auto context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> llvmModule = buildLLVMModule(module, *context, hostOptions);
  llvmModule->setDataLayout(layout);
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

const std::string &JitModule::irText() const {
  return impl_->text;
}

} // namespace tirlower
