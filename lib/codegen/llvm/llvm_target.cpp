// Target selection, verification and the optimisation pipelines of the LLVM emitter.
#include "codegen/llvm/llvm_target.h"

#include <fcntl.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <cstdio>
#include <cstring>
#include <mutex>
#include <sstream>
#include <utility>

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/MCSubtargetInfo.h>
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

namespace {

std::string tripleOf(const LLVMEmitOptions &options) {
  return options.targetTriple.empty() ? llvm::sys::getDefaultTargetTriple() : options.targetTriple;
}

// LLVM 15 has no public list of a target's features: a feature is known when enabling and
// disabling it give different feature bits. LLVM warns on stderr about an unknown one while
// probing; the warning is silenced, since the caller reports the problem in its own words.
bool isKnownFeature(const llvm::Target &target, const std::string &triple, const std::string &name) {
  std::fflush(stderr);
  int savedStderr = ::dup(STDERR_FILENO);
  int devNull = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (savedStderr >= 0 && devNull >= 0)
    ::dup2(devNull, STDERR_FILENO);
  std::unique_ptr<llvm::MCSubtargetInfo> enabled(target.createMCSubtargetInfo(triple, "generic", "+" + name));
  std::unique_ptr<llvm::MCSubtargetInfo> disabled(target.createMCSubtargetInfo(triple, "generic", "-" + name));
  if (savedStderr >= 0 && devNull >= 0)
    ::dup2(savedStderr, STDERR_FILENO);
  if (devNull >= 0)
    ::close(devNull);
  if (savedStderr >= 0)
    ::close(savedStderr);
  return !enabled || !disabled || enabled->getFeatureBits() != disabled->getFeatureBits();
}

// The CPUID vendor string and family of the x86 host; empty and 0 elsewhere.
std::pair<std::string, unsigned> hostVendorFamily() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx))
    return {"", 0};
  char vendor[13] = {};
  std::memcpy(vendor, &ebx, 4);
  std::memcpy(vendor + 4, &edx, 4);
  std::memcpy(vendor + 8, &ecx, 4);
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
    return {vendor, 0};
  unsigned family = (eax >> 8) & 0xf;
  if (family == 0xf)
    family += (eax >> 20) & 0xff;
  return {vendor, family};
#else
  return {"", 0};
#endif
}

} // namespace

std::string checkLLVMTarget(const LLVMEmitOptions &options) {
  initializeLLVMTargets();
  const std::string triple = tripleOf(options);
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return "unknown target triple '" + triple + "'";
  if (options.cpu.empty() && options.features.empty())
    return "";
  // The subtarget of "generic" lists every CPU and feature the target knows.
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(target->createMCSubtargetInfo(triple, "generic", ""));
  if (!subtarget)
    return "";
  if (!options.cpu.empty() && options.cpu != "native" && options.cpu != "generic" &&
      !subtarget->isCPUStringValid(options.cpu))
    return "'" + options.cpu + "' is not a CPU of " + triple + " (llc -mtriple=" + triple +
           " -mcpu=help lists them; 'native' is the host's)";
  std::stringstream features(options.features);
  for (std::string feature; std::getline(features, feature, ',');) {
    if (feature.empty())
      continue;
    if (feature[0] != '+' && feature[0] != '-')
      return "feature '" + feature + "' needs a '+' (enable) or '-' (disable) in front";
    const std::string name = feature.substr(1);
    if (!isKnownFeature(*target, triple, name))
      return "'" + name + "' is not a feature of " + triple + " (llc -mtriple=" + triple + " -mattr=help lists them)";
  }
  return "";
}

std::string tuningCpuFor(const std::string &llvmHostName, const std::string &vendor, unsigned family) {
  if (llvmHostName == "generic" && vendor == "AuthenticAMD" && family >= 0x19)
    return "znver3";
  return llvmHostName;
}

std::string llvmVersion() {
  return LLVM_VERSION_STRING;
}

TargetCpu targetCpuOf(const LLVMEmitOptions &options) {
  TargetCpu result{options.cpu.empty() ? "generic" : options.cpu, options.features};
  if (result.cpu == "native") {
    auto [vendor, family] = hostVendorFamily();
    result.cpu = tuningCpuFor(llvm::sys::getHostCPUName().str(), vendor, family);
    llvm::StringMap<bool> hostFeatures;
    std::string hostFeatureList;
    if (llvm::sys::getHostCPUFeatures(hostFeatures))
      for (const auto &feature : hostFeatures)
        hostFeatureList +=
            (hostFeatureList.empty() ? "" : ",") + std::string(feature.second ? "+" : "-") + feature.first().str();
    // The host's features first, so that --mattr can still add or remove one.
    result.features =
        hostFeatureList + (options.features.empty() || hostFeatureList.empty() ? "" : ",") + options.features;
  }
  return result;
}

std::vector<std::string> TargetCpu::featureList() const {
  std::vector<std::string> list;
  std::stringstream stream(features);
  for (std::string feature; std::getline(stream, feature, ',');)
    if (!feature.empty())
      list.push_back(feature);
  return list;
}

std::unique_ptr<llvm::TargetMachine> createTargetMachine(const LLVMEmitOptions &options) {
  initializeLLVMTargets();
  std::string triple = tripleOf(options);
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    throw CompileError(SourceRange{}, "LLVM emitter: unknown target triple '" + triple + "': " + error);
  auto [cpu, features] = targetCpuOf(options);
  llvm::TargetOptions targetOptions; // IEEE floats: no fast-math flags, no FP contraction
  targetOptions.UseInitArray = true;  // destructors in .fini_array, as clang emits them
  std::unique_ptr<llvm::TargetMachine> machine(
      target->createTargetMachine(triple, cpu, features, targetOptions, llvm::Reloc::PIC_));
  if (!machine)
    throw CompileError(SourceRange{}, "LLVM emitter: cannot create a target machine for '" + triple + "'");
  return machine;
}

std::string kernelPipeline(int optLevel) {
  // Early, only loops of at most 16 iterations are fully unrolled (TVM's T.unroll tiles, a 3x3
  // window, a reduction over 16 head dimensions): with 64-bit indices, LLVM's loop-unroll-full
  // also unrolled the bench kernel's 32-iteration initialisation loop, and the vectorisers then
  // analysed its 32 stores one by one (28 instead of 11 M instructions of optimisation per
  // function). Longer loops are left to the loop vectoriser and the late unroller. A short inner
  // loop left rolled here keeps the loop around it from being vectorised (the loop vectoriser
  // takes innermost loops only): at 8, the attention scores' 16-term dot product (Relax's fused
  // matmul + mask over n x n) stayed a loop, its n-loop stayed scalar, 4.7x TVM's time.
  // Two flavours of simplifycfg, spelled as LLVM's own default pipeline prints them: loops kept
  // intact (before the loop passes) and the late one that may fold loops and form lookup tables.
  const std::string keepLoops = "simplifycfg<bonus-inst-threshold=1;no-forward-switch-cond;switch-range-to-icmp;"
                                "no-switch-to-lookup;keep-loops;no-hoist-common-insts;no-sink-common-insts>";
  const std::string late = "simplifycfg<bonus-inst-threshold=1;forward-switch-cond;switch-range-to-icmp;"
                           "switch-to-lookup;no-keep-loops;hoist-common-insts;sink-common-insts>";
  // The emitter writes loops rotated (function_lowering.cpp), so loop-rotate only has `while`
  // loops left to rotate, and two passes of the pipeline before that change had nothing left to
  // do: a simplifycfg after the first LICM and a LICM before IndVarSimplify (without them
  // opt-15 and llc-15 give the same assembly for every ir-sample, test/cdiff input and bench
  // kernel, generic and znver3, and the bench module's optimisation is 0.5 M instructions per
  // function cheaper).
  return "inferattrs,function(sroa,early-cse<>,instcombine," + keepLoops +
         ",loop-mssa(licm<no-allowspeculation>,loop-rotate,licm<allowspeculation>),"
         "loop-unroll<O2;no-partial;no-peeling;no-profile-peeling;no-runtime;no-upperbound;full-unroll-max=16>,"
         "sroa,early-cse<memssa>,instcombine,"
         "loop(indvars),loop-mssa(licm<allowspeculation>),"
         "loop-vectorize<no-interleave-forced-only;no-vectorize-forced-only;>," +
         late + ",slp-vectorizer,instcombine,loop-unroll<O" + std::to_string(optLevel) +
         ">,loop-mssa(licm<allowspeculation>)," + keepLoops + ")";
}

void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine, int optLevel) {
  if (optLevel < 0 || optLevel > 3)
    throw CompileError(SourceRange{},
                       "LLVM emitter: optimisation level " + std::to_string(optLevel) + " is not in 0..3");
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
  llvm::ModulePassManager pipeline;
  if (optLevel == 0) {
    // buildPerModuleDefaultPipeline asserts on O0; the O0 pipeline is its documented counterpart.
    pipeline = builder.buildO0DefaultPipeline(llvm::OptimizationLevel::O0);
  } else if (optLevel == 1) {
    pipeline = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O1);
  } else if (llvm::Error error = builder.parsePassPipeline(pipeline, kernelPipeline(optLevel))) {
    throw CompileError(SourceRange{}, "LLVM emitter internal error: the -O" + std::to_string(optLevel) +
                                          " pipeline does not parse: " + llvm::toString(std::move(error)));
  }
  pipeline.run(module, modules);
  if (optLevel > 0) // -O0 keeps the IR as emitted
    signOpsAsBits(module);
}

void signOpsAsBits(llvm::Module &module) {
  for (llvm::Function &function : module)
    for (llvm::BasicBlock &block : function)
      for (auto it = block.begin(); it != block.end();) {
        llvm::Instruction &inst = *it++;
        llvm::Type *type = inst.getType();
        if (!type->getScalarType()->isHalfTy() && !type->getScalarType()->isBFloatTy())
          continue;
        const auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
        bool negate = inst.getOpcode() == llvm::Instruction::FNeg;
        if (!negate && !(call && call->getIntrinsicID() == llvm::Intrinsic::fabs))
          continue;
        llvm::IRBuilder<> builder(&inst);
        llvm::Type *bitsType = type->getWithNewType(builder.getInt16Ty());
        llvm::Value *bits = builder.CreateBitCast(inst.getOperand(0), bitsType);
        llvm::Value *result = negate ? builder.CreateXor(bits, llvm::ConstantInt::get(bitsType, 0x8000))
                                     : builder.CreateAnd(bits, llvm::ConstantInt::get(bitsType, 0x7fff));
        llvm::Value *replacement = builder.CreateBitCast(result, type);
        replacement->takeName(&inst);
        inst.replaceAllUsesWith(replacement);
        inst.eraseFromParent();
      }
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
