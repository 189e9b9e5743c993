// Target selection, verification and the optimisation pipelines of the LLVM emitter.
#include "codegen/llvm/llvm_target.h"

#include <mutex>

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

namespace tirlower {

void initializeLLVMTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
  });
}

std::unique_ptr<llvm::TargetMachine> createTargetMachine(const LLVMEmitOptions &options) {
  initializeLLVMTargets();
  std::string triple = options.targetTriple.empty() ? llvm::sys::getDefaultTargetTriple() : options.targetTriple;
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    throw CompileError(SourceRange{}, "LLVM emitter: unknown target triple '" + triple + "': " + error);
  std::string cpu = options.cpu.empty() ? "generic" : options.cpu;
  std::string features;
  if (cpu == "native") {
    cpu = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> hostFeatures;
    if (llvm::sys::getHostCPUFeatures(hostFeatures))
      for (const auto &feature : hostFeatures)
        features += (features.empty() ? "" : ",") + std::string(feature.second ? "+" : "-") + feature.first().str();
  }
  llvm::TargetOptions targetOptions; // IEEE floats: no fast-math flags, no FP contraction
  std::unique_ptr<llvm::TargetMachine> machine(
      target->createTargetMachine(triple, cpu, features, targetOptions, llvm::Reloc::PIC_));
  if (!machine)
    throw CompileError(SourceRange{}, "LLVM emitter: cannot create a target machine for '" + triple + "'");
  return machine;
}

void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine, int optLevel) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = optLevel >= 2;
  tuning.SLPVectorization = optLevel >= 2;
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  static const llvm::OptimizationLevel levels[] = {llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
                                                   llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
  if (optLevel < 0 || optLevel > 3)
    throw CompileError(SourceRange{},
                       "LLVM emitter: optimisation level " + std::to_string(optLevel) + " is not in 0..3");
  // buildPerModuleDefaultPipeline asserts on O0; the O0 pipeline is its documented counterpart.
  llvm::ModulePassManager pipeline = optLevel == 0 ? builder.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
                                                   : builder.buildPerModuleDefaultPipeline(levels[optLevel]);
  pipeline.run(module, modules);
}

void verifyOrThrow(const llvm::Module &module, const char *stage) {
  std::string message;
  llvm::raw_string_ostream stream(message);
  if (!llvm::verifyModule(module, &stream))
    return;
  stream.flush();
  throw CompileError(SourceRange{}, std::string("LLVM emitter internal error: the module ") + stage +
                                        " fails verification: " + message);
}

} // namespace tirlower
