#include <catch2/catch.hpp>

#include "codegen/tir_printer.h"
#include "ir_builders.h"

using namespace tirlower;
using namespace tirlower::testing;

TEST_CASE("parameters print as T.Buffer only when simple", "[codegen][print]") {
  FuncBuilder fb("params");
  Buffer A = fb.bufferParam("A", {16, 64});
  // Strided, offset, scoped, separated and laid-out buffers need T.match_buffer.
  Var b = handle("b");
  Var m = var("m");
  Buffer B = withFields(buffer("B", {16, 64}, b), [](BufferNode::Fields &f) {
    f.strides = shapeOf({128, 1});
    f.elemOffset = intImm(8);
    f.scope = Symbol("global.texture");
    f.axisSeparators = {1};
    f.layout = Symbol("NC");
  });
  fb.f.params.push_back(b);
  fb.f.bufferMap.push_back({b, B});
  // A buffer whose data var is not the parameter.
  Var c = handle("c");
  Buffer C = buffer("C", {4}, handle("C_data"));
  fb.f.params.push_back(c);
  fb.f.bufferMap.push_back({c, C});
  // Two views of one parameter.
  Var d = handle("d");
  Buffer D1 = buffer("D", {8}, d), D2 = buffer("D", {2, 4}, d, DataType::int32());
  fb.f.params.push_back(d);
  fb.f.bufferMap.push_back({d, D1});
  fb.f.bufferMap.push_back({d, D2});
  // A symbolic shape over an earlier scalar parameter and a zero elem_offset still print simply.
  Var n = var("n");
  fb.f.params.push_back(n);
  Var e = handle("E");
  Buffer E = withFields(buffer("E", {}, e), [](BufferNode::Fields &f) { f.elemOffset = intImm(0); });
  BufferNode::Fields eFields = E->fields();
  eFields.shape = {n};
  E = BufferNode::make(eFields);
  fb.f.params.push_back(e);
  fb.f.bufferMap.push_back({e, E});
  fb.f.params.push_back(VarNode::makeHandle(Symbol("p"), DataType::float32(), Symbol("global")));
  fb.f.params.push_back(handle("q"));
  fb.f.params.push_back(var("x", DataType::float64()));
  (void)m;
  Stmt body = store(A, load(B, {i32(0), i32(1)}), {i32(0), i32(0)});
  const char *expected = R"(@T.prim_func
def params(A: T.Buffer((16, 64), "float32"), b: T.handle, c: T.handle, d: T.handle, n: T.int32, E: T.Buffer((n,), "float32"), p: T.handle("float32", "global"), q: T.handle, x: T.float64):
    B = T.match_buffer(b, (16, 64), "float32", strides=(128, 1), elem_offset=8, scope="global.texture", axis_separators=[1], layout="NC")
    C = T.match_buffer(c, (4,), "float32")
    D = T.match_buffer(d, (8,), "float32")
    D_1 = T.match_buffer(d, (2, 4), "int32")
    A[0, 0] = B[0, 1]
)";
  CHECK(printFunction(fb.build(body)) == expected);
}

TEST_CASE("a shape over a later scalar parameter needs T.match_buffer", "[codegen][print]") {
  FuncBuilder fb("sym");
  Var n = var("n");
  Var a = handle("A");
  BufferNode::Fields f;
  f.name = Symbol("A");
  f.data = a;
  f.dtype = DataType::float32();
  f.shape = {n, i32(4)};
  Buffer A = BufferNode::make(f);
  fb.f.params = {a, n};
  fb.f.bufferMap = {{a, A}};
  Var i = var("i");
  Stmt body = ForNode::make(i, i32(0), n, ForKind::Serial, store(A, f32(0), {i, i32(0)}));
  CHECK(printFunction(fb.build(body)) == R"(@T.prim_func
def sym(A: T.handle, n: T.int32):
    A_1 = T.match_buffer(A, (n, 4), "float32")
    for i in range(n):
        A_1[i, 0] = T.float32(0.0)
)");
}

// A variable or buffer object bound twice (as passes that copy code produce) gets a fresh
// name at each binding, so the printed text reparses to distinct objects and prints the same.
TEST_CASE("names are unique, valid and in definition order", "[codegen][print]") {
  FuncBuilder fb("names");
  Buffer A = fb.bufferParam("A", {8});
  Var i1 = var("i"), i2 = var("i"), i3 = var("i"), kw = var("for"), odd = var("a b"), digit = var("0x"), t = var("T"),
      clash = var("A"), suffixed = var("i_1");
  Buffer A2 = buffer("A", {8});
  Stmt body = SeqStmtNode::make({
      loop(i1, 8, store(A, f32(0), {i1})),
      loop(i2, 8, loop(i3, 1, store(A, f32(0), {bin(BinaryOp::Add, i2, i3)}))),
      loop(suffixed, 1, loop(kw, 1, loop(odd, 1, loop(digit, 1, loop(t, 1, evaluate(i32(0))))))),
      LetStmtNode::make(clash, i32(1), AllocBufferNode::make(A2, store(A2, f32(0), {clash}))),
      loop(i1, 8, store(A, f32(1), {i1})),
  });
  const char *expected = R"(@T.prim_func
def names(A: T.Buffer((8,), "float32")):
    for i in range(8):
        A[i] = T.float32(0.0)
    for i_1 in range(8):
        for i_2 in range(1):
            A[i_1 + i_2] = T.float32(0.0)
    for i_1_1 in range(1):
        for for_1 in range(1):
            for a_b in range(1):
                for _0x in range(1):
                    for T_1 in range(1):
                        T.evaluate(0)
    A_1: T.int32 = 1
    A_2 = T.alloc_buffer((8,), "float32")
    A_2[A_1] = T.float32(0.0)
    for i_3 in range(8):
        A[i_3] = T.float32(1.0)
)";
  CHECK(printFunction(fb.build(body)) == expected);
}

TEST_CASE("decl_buffer data names the defining buffer or the variable", "[codegen][print]") {
  FuncBuilder fb("alias");
  Buffer A = fb.bufferParam("A", {16});
  Var p = handle("p");
  fb.f.params.push_back(p);
  Var m = handle("m");
  Buffer M = buffer("M", {16}, m);
  fb.f.params.push_back(m);
  fb.f.bufferMap.push_back({m, withFields(M, [](BufferNode::Fields &f) { f.scope = Symbol("shared"); })});
  Buffer B = buffer("B", {16});
  Buffer D = buffer("D", {16});
  Var raw = handle("R_data");
  Buffer viewA = buffer("A_flat", {4, 4}, A->data), viewB = buffer("B_view", {16}, B->data, DataType::int32()),
         viewD = buffer("D_view", {2, 8}, D->data), viewR = buffer("R", {16}, raw), viewP = buffer("P", {16}, p),
         viewM = buffer("M_view", {16}, m);
  Stmt body = store(viewA, f32(0), {i32(0), i32(0)});
  for (const Buffer &view : {viewM, viewP, viewR, viewD, viewB})
    body = DeclBufferNode::make(view, false, body);
  body = AllocateNode::make(raw, DataType::float32(), shapeOf({16}), Symbol("local"), body);
  body = DeclBufferNode::make(D, true, body);
  body = AllocBufferNode::make(B, DeclBufferNode::make(viewA, false, body));
  const char *expected = R"(@T.prim_func
def alias(A: T.Buffer((16,), "float32"), p: T.handle, m: T.handle):
    M = T.match_buffer(m, (16,), "float32", scope="shared")
    B = T.alloc_buffer((16,), "float32")
    A_flat = T.decl_buffer((4, 4), "float32", data=A.data)
    D = T.decl_buffer((16,), "float32")
    R_data = T.allocate([16], "float32", "local")
    B_view = T.decl_buffer((16,), "int32", data=B.data)
    D_view = T.decl_buffer((2, 8), "float32", data=D.data)
    R = T.decl_buffer((16,), "float32", data=R_data)
    P = T.decl_buffer((16,), "float32", data=p)
    M_view = T.decl_buffer((16,), "float32", data=m)
    A_flat[0, 0] = T.float32(0.0)
)";
  CHECK(printFunction(fb.build(body)) == expected);
}

// Transforms of parameter buffers print after the match_buffer lines; those of buffers the body
// declares print right after the declaration, so no name is used before it is bound.
TEST_CASE("layout transforms print after match_buffer lines", "[codegen][print]") {
  FuncBuilder fb("layout");
  Buffer A = fb.bufferParam("A", {1, 8, 8, 16});
  fb.f.attrs = AttrValue::dict({{"global_symbol", AttrValue::string("layout")}});
  Var b = handle("b");
  Buffer B = withFields(buffer("B", {130}, b), [](BufferNode::Fields &f) { f.layout = Symbol("N"); });
  fb.f.params.push_back(b);
  fb.f.bufferMap.push_back({b, B});
  Var n = var("n"), h = var("h"), w = var("w"), c = var("c"), i = var("i"), n2 = var("n");
  IndexMap nchw4c = IndexMapNode::make(
      {n, h, w, c}, {n, bin(BinaryOp::FloorDiv, c, i32(4)), h, w, bin(BinaryOp::FloorMod, c, i32(4))}, {3});
  IndexMap split = IndexMapNode::make({i}, {bin(BinaryOp::FloorDiv, i, i32(4)), bin(BinaryOp::FloorMod, i, i32(4))});
  Buffer Cbuf = buffer("C", {8});
  IndexMap cmap = IndexMapNode::make({n2}, {n2});
  fb.f.layoutTransforms = {{A, nchw4c, {}, {}}, {B, split, f32(0), {}}, {Cbuf, cmap, {}, {}}};
  Stmt body =
      AllocBufferNode::make(Cbuf, ForNode::make(n2, i32(0), i32(8), ForKind::Serial, store(Cbuf, f32(1), {n2})));
  const char *expected = R"(@T.prim_func
def layout(A: T.Buffer((1, 8, 8, 16), "float32"), b: T.handle):
    T.func_attr({"global_symbol": "layout"})
    B = T.match_buffer(b, (130,), "float32", layout="N")
    T.transform_layout(A, lambda n, h, w, c: [n, c // 4, h, T.AXIS_SEPARATOR, w, c % 4])
    T.transform_layout(B, lambda i: [i // 4, i % 4], pad_value=T.float32(0.0))
    C = T.alloc_buffer((8,), "float32")
    T.transform_layout(C, lambda n: [n])
    for n in range(8):
        C[n] = T.float32(1.0)
)";
  CHECK(printFunction(fb.build(body)) == expected);
}

TEST_CASE("modules of loose functions and IR modules", "[codegen][print]") {
  auto make = [](const char *name, bool isPrivate) {
    FuncBuilder fb(name);
    Buffer A = fb.bufferParam("A", {4});
    fb.f.isPrivate = isPrivate;
    return fb.build(store(A, f32(0), {i32(0)}));
  };
  Module loose = moduleOf({make("f", false), make("g", true)});
  CHECK(printModule(loose) == R"(# from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    A[0] = T.float32(0.0)


@T.prim_func(private=True)
def g(A: T.Buffer((4,), "float32")):
    A[0] = T.float32(0.0)
)");
  Module ir = moduleOf({make("f", false), make("g", true)}, true, "Mod");
  CHECK(printModule(ir) == R"(# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Mod:
    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(0.0)

    @T.prim_func(private=True)
    def g(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(0.0)
)");
  CHECK(printModule(moduleOf({})) == "# from tvm.script import tir as T\n");
  CHECK(printModule(ir) == printModule(ir));
}

TEST_CASE("handle lets print the pointee type", "[codegen][print]") {
  FuncBuilder fb("lets");
  Buffer A = fb.bufferParam("A", {4});
  Var ptr = VarNode::makeHandle(Symbol("ptr"), DataType::float32(), Symbol("shared"));
  Var v = var("v", DataType::float32(4));
  Stmt body = LetStmtNode::make(
      ptr, A->data, LetStmtNode::make(v, BroadcastNode::make(f32(1), 4), store(A, load(A, {i32(0)}), {i32(1)})));
  CHECK(printFunction(fb.build(body)) == R"(@T.prim_func
def lets(A: T.Buffer((4,), "float32")):
    ptr: T.handle("float32", "shared") = A.data
    v: T.float32x4 = T.Broadcast(T.float32(1.0), 4)
    A[1] = A[0]
)");
}

TEST_CASE("rebound buffers and their data get fresh names", "[codegen][print]") {
  FuncBuilder fb("rebind");
  Buffer A = fb.bufferParam("A", {4});
  Buffer B = buffer("B", {4});
  Buffer view = buffer("V", {2, 2}, B->data);
  Var x = var("x", DataType::float32());
  Stmt use = DeclBufferNode::make(view, false, store(view, f32(0), {i32(0), i32(0)}));
  Stmt body = SeqStmtNode::make({
      AllocBufferNode::make(B, use),
      AllocBufferNode::make(B, use),
      store(A, LetNode::make(x, f32(1), LetNode::make(x, f32(2), x)), {i32(0)}),
  });
  CHECK(printFunction(fb.build(body)) == R"(@T.prim_func
def rebind(A: T.Buffer((4,), "float32")):
    B = T.alloc_buffer((4,), "float32")
    V = T.decl_buffer((2, 2), "float32", data=B.data)
    V[0, 0] = T.float32(0.0)
    B_1 = T.alloc_buffer((4,), "float32")
    V_1 = T.decl_buffer((2, 2), "float32", data=B_1.data)
    V_1[0, 0] = T.float32(0.0)
    A[0] = T.Let(T.Let(x_1, where={x_1: T.float32(2.0)}), where={x: T.float32(1.0)})
)");
}
