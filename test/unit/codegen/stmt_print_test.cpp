#include <catch2/catch.hpp>

#include "codegen/tir_printer.h"
#include "ir_builders.h"

using namespace tirlower;
using namespace tirlower::testing;

namespace {
// A function that uses every statement form once.
PrimFunc everyStatement() {
  FuncBuilder fb("main");
  Buffer A = fb.bufferParam("A", {16, 64});
  Var n = fb.scalarParam("n");
  fb.f.attrs =
      AttrValue::dict({{"global_symbol", AttrValue::string("main")}, {"tir.noalias", AttrValue::boolean(true)}});

  Buffer B = withFields(buffer("B", {16}), [](BufferNode::Fields &f) {
    f.scope = Symbol("shared");
    f.axisSeparators = {1};
    f.layout = Symbol("NHWC");
  });
  Buffer C = buffer("C", {1024}, A->data);
  Buffer D = buffer("D", {8}, {}, DataType::int32());
  Var eData = handle("E_data");
  Buffer E = buffer("E", {16}, eData);
  Buffer F = buffer("F", {4}, D->data, DataType::int32());
  Var x = var("x"), i = var("i"), j = var("j"), k = var("k"), k2 = var("k"), t = var("t"), s = var("s"), r = var("r");

  std::vector<Stmt> body;
  body.push_back(loop(i, 16,
                      ForNode::make(j, i32(2), i32(8), ForKind::Parallel,
                                    store(A, bin(BinaryOp::Add, load(B, {i}), f32(1.5)), {i, j}))));
  body.push_back(loop(k, 4, store(B, load(E, {k}), {k}), ForKind::Vectorized));
  body.push_back(loop(k2, 4, store(F, load(D, {k2}), {k2}), ForKind::Unrolled));
  body.push_back(
      ForNode::make(t, i32(0), i32(16), ForKind::ThreadBinding, store(C, f32(0), {t}), Symbol("threadIdx.x")));
  body.push_back(ForNode::make(s, i32(0), i32(16), ForKind::Serial, store(C, f32(1), {s}), {},
                               AttrValue::dict({{"pragma_unroll", AttrValue::integer(1)}})));
  body.push_back(ForNode::make(r, x, n, ForKind::Serial, store(C, f32(2), {r})));
  body.push_back(IfThenElseNode::make(
      bin(BinaryOp::LT, x, i32(4)), evaluate(i32(0)),
      IfThenElseNode::make(bin(BinaryOp::LT, x, i32(8)), store(C, f32(3), {x}), store(C, f32(4), {x}))));
  body.push_back(IfThenElseNode::make(bin(BinaryOp::EQ, x, n), store(C, f32(5), {x}), {}));
  body.push_back(WhileNode::make(bin(BinaryOp::LT, load(D, {i32(0)}), i32(10)),
                                 store(D, bin(BinaryOp::Add, load(D, {i32(0)}), i32(1)), {i32(0)})));
  body.push_back(AssertStmtNode::make(bin(BinaryOp::GT, n, i32(0)), "n must be \"positive\""));
  body.push_back(AttrStmtNode::make(
      A->data, Symbol("storage_alignment"), i32(128),
      evaluate(CallNode::make(DataType::float32(), Symbol("call_extern"), {StringImmNode::make("f"), x}))));
  Stmt stmt = SeqStmtNode::make(std::move(body));
  stmt = LetStmtNode::make(x, bin(BinaryOp::Add, n, i32(1)), stmt);
  stmt = DeclBufferNode::make(F, false, stmt);
  stmt = DeclBufferNode::make(E, false, stmt);
  stmt = AllocateNode::make(eData, DataType::float32(), shapeOf({16}), Symbol("global"), stmt);
  stmt = DeclBufferNode::make(D, true, stmt);
  stmt = DeclBufferNode::make(C, false, stmt);
  stmt = AllocBufferNode::make(B, stmt);
  return fb.build(stmt);
}
} // namespace

TEST_CASE("every statement form prints canonically", "[codegen][print]") {
  const char *expected = R"(@T.prim_func
def main(A: T.Buffer((16, 64), "float32"), n: T.int32):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    B = T.alloc_buffer((16,), "float32", scope="shared", axis_separators=[1], layout="NHWC")
    C = T.decl_buffer((1024,), "float32", data=A.data)
    D = T.decl_buffer((8,), "int32")
    E_data = T.allocate([16], "float32", "global")
    E = T.decl_buffer((16,), "float32", data=E_data)
    F = T.decl_buffer((4,), "int32", data=D.data)
    x: T.int32 = n + 1
    for i in range(16):
        for j in T.parallel(2, 10):
            A[i, j] = B[i] + T.float32(1.5)
    for k in T.vectorized(4):
        B[k] = E[k]
    for k_1 in T.unroll(4):
        F[k_1] = D[k_1]
    for t in T.thread_binding(16, thread="threadIdx.x"):
        C[t] = T.float32(0.0)
    for s in T.serial(16, annotations={"pragma_unroll": 1}):
        C[s] = T.float32(1.0)
    for r in range(x, x + n):
        C[r] = T.float32(2.0)
    if x < 4:
        T.evaluate(0)
    else:
        if x < 8:
            C[x] = T.float32(3.0)
        else:
            C[x] = T.float32(4.0)
    if x == n:
        C[x] = T.float32(5.0)
    while D[0] < 10:
        D[0] = D[0] + 1
    assert n > 0, "n must be \"positive\""
    T.attr(A.data, "storage_alignment", 128)
    T.evaluate(T.call_extern("float32", "f", x))
)";
  PrimFunc f = everyStatement();
  CHECK(printFunction(f) == expected);
  // Determinism: the same IR prints identically, and so does an identical copy built anew.
  CHECK(printFunction(f) == printFunction(f));
  CHECK(printFunction(everyStatement()) == expected);
}

TEST_CASE("loop bounds with a non-zero minimum", "[codegen][print]") {
  FuncBuilder fb("loops");
  Buffer A = fb.bufferParam("A", {64});
  Var n = fb.scalarParam("n");
  Var i = var("i"), j = var("j"), k = var("k"), v = var("v"), w = var("w");
  Stmt body = SeqStmtNode::make({
      ForNode::make(i, i32(2), i32(8), ForKind::Serial, store(A, f32(0), {i})),
      ForNode::make(j, n, bin(BinaryOp::Sub, i32(16), n), ForKind::Unrolled, store(A, f32(0), {j})),
      ForNode::make(k, i32(4), i32(4), ForKind::ThreadBinding, store(A, f32(0), {k}), Symbol("blockIdx.x")),
      ForNode::make(v, bin(BinaryOp::Mul, n, i32(2)), i32(4), ForKind::Vectorized, store(A, f32(0), {v})),
      ForNode::make(w, n, bin(BinaryOp::Sub, n, i32(1)), ForKind::Serial, store(A, f32(0), {w})),
  });
  const char *expected = R"(@T.prim_func
def loops(A: T.Buffer((64,), "float32"), n: T.int32):
    for i in range(2, 10):
        A[i] = T.float32(0.0)
    for j in T.unroll(n, 16):
        A[j] = T.float32(0.0)
    for k in T.thread_binding(4, 8, thread="blockIdx.x"):
        A[k] = T.float32(0.0)
    for v in T.vectorized(n * 2, n * 2 + 4):
        A[v] = T.float32(0.0)
    for w in range(n, n + (n - 1)):
        A[w] = T.float32(0.0)
)";
  CHECK(printFunction(fb.build(body)) == expected);
  // `range(a, b)` reads back with extent `b - a`; that prints as `b` again.
  Var r = var("r");
  Expr end = bin(BinaryOp::Add, n, i32(3));
  Stmt reparsed = ForNode::make(r, n, bin(BinaryOp::Sub, end, n), ForKind::Serial, store(A, f32(0), {r}));
  CHECK(printStmt(reparsed) == "for r in range(n, n + 3):\n    A[r] = T.float32(0.0)");
}

TEST_CASE("int64 loops fold typed bounds", "[codegen][print]") {
  FuncBuilder fb("wide");
  Buffer A = fb.bufferParam("A", {64});
  Var i = var("i", DataType::int64());
  Stmt body = ForNode::make(i, intImm(2, DataType::int64()), intImm(8, DataType::int64()), ForKind::Serial,
                            store(A, f32(0), {i}));
  CHECK(printFunction(fb.build(body)) == R"(@T.prim_func
def wide(A: T.Buffer((64,), "float32")):
    for i in range(T.int64(2), T.int64(10)):
        A[i] = T.float32(0.0)
)");
}

TEST_CASE("printStmt uses plain names and no trailing newline", "[codegen][print]") {
  Buffer A = buffer("A", {4});
  Var i = var("i");
  CHECK(printStmt(store(A, f32(1), {i})) == "A[i] = T.float32(1.0)");
  CHECK(printStmt(loop(i, 4, store(A, f32(1), {i}))) == "for i in range(4):\n    A[i] = T.float32(1.0)");
  CHECK(printStmt(SeqStmtNode::make({})) == "T.evaluate(0)");
}
