// The emitted LLVM module as text, bitcode and object: signature attributes, alignment, target
// selection, symbol naming and the errors for IR the emitter cannot express.
#include <catch2/catch.hpp>

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "codegen/llvm/llvm_emitter.h"
#include "codegen/llvm/llvm_target.h"
#include "ir/intrinsics.h"
#include "llvm_test_ir.h"

using namespace tirlower;
using namespace tirlower::llvmtest;

namespace {

// C[i] = A[i] + B[i] for i < 16.
PrimFunc addFunction(const char *name, bool noalias) {
  FuncBuilder fb(name);
  Buffer a = fb.bufferParam("A", 16), b = fb.bufferParam("B", 16), c = fb.bufferParam("C", 16);
  if (noalias)
    fb.noalias();
  Var i = var("i");
  return fb.build(loop(i, i32(16), store(c, bin(BinaryOp::Add, load(a, i), load(b, i)), i)));
}

// C[ramp(i*4 + offset, 1, 4)] = A[ramp(i*4 + offset, 1, 4)] for i < 3.
PrimFunc vectorCopy(int64_t offset) {
  FuncBuilder fb("vcopy");
  Buffer a = fb.bufferParam("A", 16), c = fb.bufferParam("C", 16);
  Var i = var("i");
  Expr start = bin(BinaryOp::Add, bin(BinaryOp::Mul, i, i32(4)), i32(offset));
  return fb.build(loop(i, i32(3), store(c, load(a, ramp(start, 1, 4)), ramp(start, 1, 4))));
}

// vectorCopy(offset) with its stores to C non-temporal (`T.attr(C, "nontemporal_store", 1)`, as
// tile-copies writes it).
PrimFunc streamedCopy(int64_t offset) {
  PrimFunc copy = vectorCopy(offset);
  PrimFuncNode::Fields f = copy->fields();
  f.body = AttrStmtNode::make(f.params[1], Symbol("nontemporal_store"), intImm(1), f.body);
  return PrimFuncNode::make(f);
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("signature: noalias, readonly, i32 result", "[llvm][emit]") {
  std::string text = emitLLVMText(moduleOf({addFunction("add", true)}), {});
  INFO(text);
  CHECK(contains(text, "define i32 @add(ptr noalias readonly %A, ptr noalias readonly %B, ptr noalias %C)"));
  CHECK(contains(text, "ret i32 0"));
  std::string plain = emitLLVMText(moduleOf({addFunction("add", false)}), {});
  CHECK(contains(plain, "define i32 @add(ptr readonly %A, ptr readonly %B, ptr %C)"));
}

TEST_CASE("host triple and data layout by default, explicit triple when given", "[llvm][emit]") {
  llvm::LLVMContext context;
  auto host = buildLLVMModule(moduleOf({addFunction("add", false)}), context, {});
  CHECK(!host->getTargetTriple().empty());
  CHECK(!host->getDataLayoutStr().empty());
  LLVMEmitOptions options;
  options.targetTriple = "aarch64-unknown-linux-gnu";
  std::string text = emitLLVMText(moduleOf({addFunction("add", false)}), options);
  CHECK(contains(text, "target triple = \"aarch64-unknown-linux-gnu\""));
  options.targetTriple = "nonsense-target";
  CHECK_THROWS_AS(emitLLVMText(moduleOf({addFunction("add", false)}), options), CompileError);
}

TEST_CASE("every -O level verifies and keeps the symbol", "[llvm][emit]") {
  for (int level = 0; level <= 3; ++level) {
    LLVMEmitOptions options;
    options.optLevel = level;
    std::string text = emitLLVMText(moduleOf({addFunction("add", true)}), options);
    INFO("O" << level);
    CHECK(contains(text, "define i32 @add("));
  }
  LLVMEmitOptions bad;
  bad.optLevel = 4;
  CHECK_THROWS_AS(emitLLVMText(moduleOf({addFunction("add", true)}), bad), CompileError);
}

TEST_CASE("-O2 and -O3 run the kernel pipeline: loops vectorised, -O1 keeps scalars", "[llvm][emit]") {
  // A 16-float add over noalias buffers: the kernel pipeline unrolls the short loop and the SLP
  // vectoriser packs it (the loop vectoriser would do the same for a longer one); LLVM's O1 does
  // not vectorise.
  for (int level = 1; level <= 3; ++level) {
    LLVMEmitOptions options;
    options.optLevel = level;
    options.targetTriple = "x86_64-unknown-linux-gnu";
    std::string text = emitLLVMText(moduleOf({addFunction("add", true)}), options);
    INFO("O" << level << "\n" << text);
    CHECK(contains(text, "define i32 @add("));
    CHECK(contains(text, "fadd <") == (level >= 2));
    if (level >= 2)
      CHECK(!contains(text, "br ")); // the 16-iteration loop is fully unrolled
  }
}

TEST_CASE("vector alignment follows the index and the known base alignment", "[llvm][emit]") {
  LLVMEmitOptions aligned;
  aligned.paramAlignment = 64;
  std::string text = emitLLVMText(moduleOf({vectorCopy(0)}), aligned);
  INFO(text);
  CHECK(contains(text, "load <4 x float>, ptr %"));
  CHECK(contains(text, "align 16"));
  CHECK(contains(text, "align 64 %A"));
  // i*4 + 2 is a multiple of 2 elements: 8 bytes.
  std::string offset2 = emitLLVMText(moduleOf({vectorCopy(2)}), aligned);
  CHECK(contains(offset2, "<4 x float>, ptr %"));
  CHECK(contains(offset2, ", align 8"));
  CHECK(!contains(offset2, ", align 16"));
  // Without a known parameter alignment only the element's is assumed.
  std::string plain = emitLLVMText(moduleOf({vectorCopy(0)}), {});
  CHECK(contains(plain, "load <4 x float>, ptr %"));
  CHECK(contains(plain, ", align 4"));
  CHECK(!contains(plain, ", align 16"));
}

TEST_CASE("non-temporal stores of unknown alignment test the base when the offset is a multiple", "[llvm][emit]") {
  // i*4 floats is a multiple of 16 bytes: only C's own alignment is tested (the same test in
  // every iteration, which LICM hoists); i*4 + 2 is not: the address itself is tested.
  std::string multiple = emitLLVMText(moduleOf({streamedCopy(0)}), {});
  INFO(multiple);
  CHECK(contains(multiple, "store.stream:"));
  CHECK(contains(multiple, "align 16, !nontemporal"));
  CHECK(contains(multiple, "ptrtoint ptr %C to i64"));
  std::string offset2 = emitLLVMText(moduleOf({streamedCopy(2)}), {});
  INFO(offset2);
  CHECK(contains(offset2, "store.stream:"));
  CHECK(contains(offset2, "align 16, !nontemporal"));
  CHECK(contains(offset2, "ptrtoint ptr %"));
  CHECK(!contains(offset2, "ptrtoint ptr %C to i64"));
  // A known 16-byte alignment needs no test at all.
  LLVMEmitOptions aligned;
  aligned.paramAlignment = 16;
  std::string known = emitLLVMText(moduleOf({streamedCopy(0)}), aligned);
  CHECK(contains(known, "align 16, !nontemporal"));
  CHECK(!contains(known, "ptrtoint"));
}

TEST_CASE("constant small allocations are 64-byte aligned allocas in the entry block", "[llvm][emit]") {
  FuncBuilder fb("scratch");
  Buffer out = fb.bufferParam("Out", 8);
  Var tmpData = VarNode::makeHandle(Symbol("T"), DataType::float32(), Symbol("global"));
  Buffer tmp = flatBuffer("T", tmpData, i32(8));
  Var i = var("i"), j = var("j");
  Stmt body = DeclBufferNode::make(
      tmp, true, seq({loop(i, i32(8), store(tmp, f32(1.0), i)), loop(j, i32(8), store(out, load(tmp, j), j))}));
  std::string text = emitLLVMText(moduleOf({fb.build(body)}), {});
  INFO(text);
  CHECK(contains(text, "entry:\n  %T = alloca float, i64 8, align 64"));
  CHECK(!contains(text, "malloc"));
}

TEST_CASE("a rank-2 buffer is rejected with a message naming it", "[llvm][emit]") {
  FuncBuilder fb("rank2");
  Var data = VarNode::makeHandle(Symbol("A"), DataType::float32(), Symbol("global"));
  BufferNode::Fields f;
  f.name = Symbol("A");
  f.data = data;
  f.dtype = DataType::float32();
  f.shape = {i32(4), i32(4)};
  Buffer a = BufferNode::make(f);
  fb.f.params.push_back(data);
  fb.f.bufferMap.push_back({data, a});
  PrimFunc func = fb.build(BufferStoreNode::make(a, f32(0), {i32(1), i32(2)}));
  try {
    emitLLVMText(moduleOf({func}), {});
    FAIL("expected a CompileError");
  } catch (const CompileError &error) {
    CHECK(std::string(error.what()) ==
          "buffer 'A' has physical rank 2; the LLVM emitter takes 1-d buffers only (run the flatten pass first)");
  }
}

TEST_CASE("symbols: global_symbol, C-clashing names and duplicates", "[llvm][emit]") {
  FuncBuilder fb("main");
  PrimFunc mainFunc = fb.build(EvaluateNode::make(i32(0)));
  CHECK(llvmSymbolName(*mainFunc) == "tir_main");
  FuncBuilder named("f");
  named.f.attrs = AttrValue::dict();
  named.f.attrs.set("global_symbol", AttrValue::string("my.kernel"));
  PrimFunc kernel = named.build(EvaluateNode::make(i32(0)));
  CHECK(llvmSymbolName(*kernel) == "my_kernel");
  std::string text = emitLLVMText(moduleOf({mainFunc, kernel}), {});
  CHECK(contains(text, "define i32 @tir_main()"));
  CHECK(contains(text, "define i32 @my_kernel()"));
  CHECK_THROWS_WITH(emitLLVMText(moduleOf({kernel, kernel}), {}), Catch::Contains("my_kernel"));
}

TEST_CASE("unknown intrinsics are errors", "[llvm][emit]") {
  FuncBuilder fb("bad");
  Buffer a = fb.bufferParam("A", 4);
  PrimFunc func = fb.build(store(a, call(DataType::float32(), "no_such_op", {f32(1)}), i32(0)));
  CHECK_THROWS_WITH(emitLLVMText(moduleOf({func}), {}), Catch::Contains("T.no_such_op"));
}

TEST_CASE("object emission produces an ELF file; bitcode has its magic", "[llvm][emit]") {
  std::string object = emitObject(moduleOf({addFunction("add", true)}), {});
  REQUIRE(object.size() > 64);
  CHECK(object.substr(0, 4) == std::string("\x7f"
                                           "ELF"));
  std::string bitcode = emitLLVMBitcode(moduleOf({addFunction("add", true)}), {});
  REQUIRE(bitcode.size() > 4);
  CHECK(bitcode.substr(0, 4) == std::string("BC\xc0\xde"));
}

TEST_CASE("every LLVM intrinsic the intrinsic table names exists in LLVM 15", "[llvm][intrinsics]") {
  llvm::LLVMContext context;
  llvm::Module module("m", context);
  size_t named = 0;
  for (const IntrinsicInfo &info : intrinsicTable()) {
    if (info.llvm.rfind("llvm.", 0) != 0)
      continue;
    INFO(info.name << " -> " << info.llvm);
    llvm::Intrinsic::ID id = llvm::Function::lookupIntrinsicID(info.llvm);
    REQUIRE(id != llvm::Intrinsic::not_intrinsic);
    CHECK(llvm::Intrinsic::isOverloaded(id)); // declared for the argument's float type
    llvm::Function *f = llvm::Intrinsic::getDeclaration(&module, id, {llvm::Type::getFloatTy(context)});
    CHECK(f->getName().str() == std::string(info.llvm) + ".f32");
    ++named;
  }
  CHECK(named >= 15);
  // The others are libm calls, expansions or the emitter's own code; libm rows name C.
  for (const IntrinsicInfo &info : intrinsicTable())
    if (info.llvm == "libm")
      CHECK(!info.c.empty());
}

TEST_CASE("--mcpu=native tunes an x86 host LLVM 15 does not know as the nearest CPU it knows") {
  // An AMD Zen 5 (family 1Ah) is "generic" to LLVM 15; Zen 3/4 (19h) that it names keep their name.
  CHECK(tuningCpuFor("generic", "AuthenticAMD", 0x1a) == "znver3");
  CHECK(tuningCpuFor("generic", "AuthenticAMD", 0x19) == "znver3");
  CHECK(tuningCpuFor("znver3", "AuthenticAMD", 0x19) == "znver3");
  CHECK(tuningCpuFor("znver2", "AuthenticAMD", 0x17) == "znver2");
  // Older AMD parts, other vendors and other architectures are left as LLVM names them.
  CHECK(tuningCpuFor("generic", "AuthenticAMD", 0x17) == "generic");
  CHECK(tuningCpuFor("generic", "GenuineIntel", 6) == "generic");
  CHECK(tuningCpuFor("sapphirerapids", "GenuineIntel", 6) == "sapphirerapids");
  CHECK(tuningCpuFor("generic", "", 0) == "generic");
}
