// Writes a sample module's LLVM text to argv[1] for the llc test: loops, float32x4 ramps, a
// gather, floor division, heap storage, an assert and a math call, at -O0 (the most verbose IR).
#include <fstream>
#include <iostream>

#include "codegen/llvm/llvm_emitter.h"
#include "llvm_test_ir.h"

using namespace tirlower;
using namespace tirlower::llvmtest;

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: llvm_sample OUT.ll\n";
    return 2;
  }
  FuncBuilder fb("sample");
  Var n = fb.scalarParam("n");
  Buffer a = fb.bufferParam("A", bin(BinaryOp::Mul, n, i32(4))), c = fb.bufferParam("C", bin(BinaryOp::Mul, n, i32(4)));
  Var i = var("i"), j = var("j");
  Var tmpData = VarNode::makeHandle(Symbol("T"), DataType::float32(), Symbol("global"));
  Buffer tmp = flatBuffer("T", tmpData, n);
  Expr vec = ramp(bin(BinaryOp::Mul, i, i32(4)), 1, 4);
  Expr gathered = load(a, ramp(i, 3, 4));
  Stmt body =
      seq({AssertStmtNode::make(bin(BinaryOp::GT, n, i32(0)), "n > 0"),
           loop(i, bin(BinaryOp::FloorDiv, n, i32(3)), store(c, bin(BinaryOp::Add, load(a, vec), gathered), vec)),
           DeclBufferNode::make(tmp, true,
                                seq({loop(j, n, store(tmp, call(DataType::float32(), "exp", {load(a, j)}), j)),
                                     store(c, load(tmp, bin(BinaryOp::FloorMod, i32(-5), n)), i32(0))}))});
  try {
    std::ofstream(argv[1]) << emitLLVMText(moduleOf({fb.build(body)}), {});
  } catch (const CompileError &error) {
    std::cerr << "llvm_sample: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
