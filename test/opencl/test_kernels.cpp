#include "test_kernels.h"

namespace tirlower::opencl_test {

namespace {

const DataType i32 = DataType::int32(), f32 = DataType::float32();

Expr c(int64_t v) {
  return intImm(v);
}
Expr fc(double v) {
  return FloatImmNode::make(f32, v);
}
Expr bin(BinaryOp op, Expr a, Expr b) {
  return BinaryNode::make(op, std::move(a), std::move(b));
}
Expr ramp(Expr base, int lanes) {
  return RampNode::make(std::move(base), c(1), lanes);
}
Expr load(const Buffer &b, std::vector<Expr> indices) {
  return BufferLoadNode::make(b, std::move(indices));
}
Stmt storeTo(const Buffer &b, Expr value, std::vector<Expr> indices) {
  return BufferStoreNode::make(b, std::move(value), std::move(indices));
}
Var var(const char *name) {
  return VarNode::make(Symbol(name), i32);
}

Buffer buffer(const char *name, const Var &data, DataType dtype, std::vector<Expr> shape, const char *scope = "global",
              std::vector<int> separators = {}) {
  BufferNode::Fields f;
  f.name = Symbol(name);
  f.data = data;
  f.dtype = dtype;
  f.shape = std::move(shape);
  f.scope = Symbol(scope);
  f.axisSeparators = std::move(separators);
  return BufferNode::make(std::move(f));
}

// A handle parameter, its declared buffer and the flat alias the body uses.
struct Param {
  Var data;
  Buffer declared, flat;
};
Param param(const char *name, DataType dtype, std::vector<Expr> declared, std::vector<Expr> flat,
            const char *scope = "global", std::vector<int> declaredSeparators = {},
            std::vector<int> flatSeparators = {}) {
  Var data = VarNode::makeHandle(Symbol(name), dtype, Symbol(scope));
  Buffer d = buffer(name, data, dtype, std::move(declared), scope, std::move(declaredSeparators));
  Buffer f =
      buffer((std::string(name) + "_flat").c_str(), data, dtype, std::move(flat), scope, std::move(flatSeparators));
  return {data, d, f};
}

Stmt threadLoop(const Var &v, int64_t extent, const char *tag, Stmt body) {
  return ForNode::make(v, c(0), c(extent), ForKind::ThreadBinding, std::move(body), Symbol(tag));
}
Stmt serialLoop(const Var &v, int64_t extent, Stmt body) {
  return ForNode::make(v, c(0), c(extent), ForKind::Serial, std::move(body));
}

// `scalars` come after the buffer parameters.
PrimFunc function(const char *name, const std::vector<Param> &params, Stmt body, const std::vector<Var> &scalars = {}) {
  PrimFuncNode::Fields f;
  f.name = Symbol(name);
  for (auto it = params.rbegin(); it != params.rend(); ++it)
    body = DeclBufferNode::make(it->flat, false, body);
  for (const Param &p : params) {
    f.params.push_back(p.data);
    f.bufferMap.push_back({p.data, p.declared});
  }
  f.params.insert(f.params.end(), scalars.begin(), scalars.end());
  f.attrs = AttrValue::dict({{"global_symbol", AttrValue::string(name)}, {"tir.noalias", AttrValue::boolean(true)}});
  f.body = std::move(body);
  return PrimFuncNode::make(std::move(f));
}

} // namespace

PrimFunc elementwiseAdd() {
  Param a = param("A", f32, {c(16), c(16)}, {c(256)});
  Param b = param("B", f32, {c(16), c(16)}, {c(256)});
  Param out = param("C", f32, {c(16), c(16)}, {c(256)});
  Var bx = var("bx"), tx = var("tx");
  Expr i = bx * c(64) + tx;
  Stmt body = storeTo(out.flat, load(a.flat, {i}) + load(b.flat, {i}), {i});
  return function("add", {a, b, out}, threadLoop(bx, 4, "blockIdx.x", threadLoop(tx, 64, "threadIdx.x", body)));
}

PrimFunc vectorScale() {
  Param a = param("A", f32, {c(64)}, {c(64)});
  Param b = param("B", f32, {c(64)}, {c(64)});
  Buffer b4 = buffer("B4", b.data, DataType::float32(4), {c(16)});
  Var tx = var("tx");
  Expr v = load(a.flat, {ramp(tx * c(4), 4)});
  Expr positive = bin(BinaryOp::GT, v, BroadcastNode::make(fc(0), 4));
  Expr scaled = v * BroadcastNode::make(fc(2), 4) + BroadcastNode::make(fc(1), 4);
  Stmt body = storeTo(b4, SelectNode::make(positive, scaled, BroadcastNode::make(fc(0), 4)), {tx});
  return function("scale4", {a, b}, threadLoop(tx, 16, "threadIdx.x", DeclBufferNode::make(b4, false, body)));
}

PrimFunc floorDivision() {
  Param a = param("A", i32, {c(32)}, {c(32)});
  Param b = param("B", i32, {c(32)}, {c(32)});
  Param q = param("Q", i32, {c(32)}, {c(32)});
  Param r = param("R", i32, {c(32)}, {c(32)});
  Param qv = param("QV", i32, {c(32)}, {c(32)});
  Param rv = param("RV", i32, {c(32)}, {c(32)});
  Var i = var("i"), tx = var("tx");
  Stmt scalar = serialLoop(
      i, 32,
      SeqStmtNode::make({storeTo(q.flat, bin(BinaryOp::FloorDiv, load(a.flat, {i}), load(b.flat, {i})), {i}),
                         storeTo(r.flat, bin(BinaryOp::FloorMod, load(a.flat, {i}), load(b.flat, {i})), {i})}));
  Expr lanes = ramp(tx * c(4), 4);
  Expr va = load(a.flat, {lanes}), vb = load(b.flat, {lanes});
  Stmt vector = threadLoop(tx, 8, "threadIdx.x",
                           SeqStmtNode::make({storeTo(qv.flat, bin(BinaryOp::FloorDiv, va, vb), {lanes}),
                                              storeTo(rv.flat, bin(BinaryOp::FloorMod, va, vb), {lanes})}));
  // The scalar loop runs in work-item 0 only.
  Var first = var("tx0");
  Stmt body =
      threadLoop(first, 8, "threadIdx.x", IfThenElseNode::make(bin(BinaryOp::EQ, first, c(0)), scalar, nullptr));
  return function("floor_div", {a, b, q, r, qv, rv}, SeqStmtNode::make({vector, body}));
}

PrimFunc sharedReverse() {
  Param a = param("A", f32, {c(64)}, {c(64)});
  Param b = param("B", f32, {c(64)}, {c(64)});
  Var bx = var("blockIdx.x"), tx = var("threadIdx.x");
  Var sData = VarNode::makeHandle(Symbol("S"), f32, Symbol("shared"));
  Buffer s = buffer("S", sData, f32, {c(16)}, "shared");
  Expr i = bx * c(16) + tx;
  Var value = VarNode::make(Symbol("v"), f32);
  Expr reversed = load(s, {c(15) - tx});
  Stmt body = SeqStmtNode::make(
      {storeTo(s, load(a.flat, {i}), {tx}),
       EvaluateNode::make(CallNode::make(i32, Symbol("tvm_storage_sync"), {StringImmNode::make("shared")})),
       storeTo(b.flat, LetNode::make(value, reversed, value * value + value), {i})});
  Stmt storage = AllocateNode::make(sData, f32, {c(16)}, Symbol("shared"), DeclBufferNode::make(s, false, body));
  Stmt threads = AttrStmtNode::make(bx, Symbol("thread_extent"), c(4),
                                    AttrStmtNode::make(tx, Symbol("thread_extent"), c(16), storage));
  return function("shared_reverse", {a, b}, threads);
}

PrimFunc stridedGather() {
  const DataType i64 = DataType::int64();
  Param a = param("A", f32, {c(32)}, {c(32)});
  Param b = param("B", f32, {c(32)}, {c(32)});
  Param out = param("C", i32, {c(32)}, {c(32)});
  Var i = VarNode::make(Symbol("i"), i64);
  auto c64 = [&](int64_t v) { return intImm(v, i64); };
  auto lanes = [&](Expr base, int64_t stride) { return RampNode::make(std::move(base), c64(stride), 4); };
  Expr block = i * c64(8);
  Expr tenfold = CastNode::make(DataType::int32(4), load(a.flat, {lanes(block, 1)}) * BroadcastNode::make(fc(10), 4));
  Stmt body = SeqStmtNode::make({storeTo(b.flat, load(a.flat, {lanes(block, 2)}), {lanes(block, 1)}),
                                 storeTo(b.flat, load(a.flat, {lanes(block + c64(1), 2)}), {lanes(block + c64(4), 1)}),
                                 storeTo(out.flat, tenfold, {lanes(block, 2)})});
  return function("strided_gather", {a, b, out}, ForNode::make(i, c64(0), c64(4), ForKind::Serial, body));
}

PrimFunc miscellany() {
  const DataType b1 = DataType::boolean(), f64 = DataType::float64(), u32(DataType::Code::UInt, 32);
  const DataType i8(DataType::Code::Int, 8);
  Param flags = param("flags", b1, {c(8)}, {c(8)});
  Param d = param("D", f64, {c(8)}, {c(8)});
  Param bytes = param("bytes", i8, {c(8)}, {c(8)});
  Param u = param("U", u32, {c(8)}, {c(8)});
  Param v4 = param("V4", DataType::float32(4), {c(8)}, {c(8)});
  Param f = param("F", f32, {c(32)}, {c(32)});
  Var tx = var("tx"), ty = var("tx_short"), k = VarNode::make(Symbol("k"), u32), t = var("t");
  auto b4 = [](Expr v) { return BroadcastNode::make(std::move(v), 4); };
  Expr r4 = ramp(c(0), 4);
  Expr dv = load(d.flat, {r4});
  Expr boolLanes = load(flags.flat, {r4});
  Expr charLess = bin(BinaryOp::LT, load(bytes.flat, {r4}), b4(IntImmNode::make(i8, 3)));
  Expr mask = bin(BinaryOp::And, boolLanes, NotNode::make(charLess));
  Stmt s1 = storeTo(d.flat,
                    SelectNode::make(mask, dv * b4(FloatImmNode::make(f64, 0.5)),
                                     CallNode::make(DataType::float64(4), Symbol("exp"), {dv})),
                    {r4});
  Stmt s2 = storeTo(flags.flat, CastNode::make(DataType::boolean(4), dv), {ramp(c(4), 4)});
  Stmt s3 = storeTo(u.flat, bin(BinaryOp::FloorDiv, load(u.flat, {tx}), IntImmNode::make(u32, 3)), {tx});
  Stmt s4 = storeTo(flags.flat, bin(BinaryOp::LT, load(bytes.flat, {tx}), IntImmNode::make(i8, 0)), {tx});
  Expr gathered = load(v4.flat, {RampNode::make(c(0), c(2), 2)}); // float32x8
  Buffer asInt = buffer("F_bits", f.data, i32, {c(32)});
  Stmt s5 = storeTo(asInt, CallNode::make(i32, Symbol("abs"), {load(asInt, {tx})}), {tx});
  Expr fromMask = CastNode::make(DataType::float32(4), bin(BinaryOp::GT, load(f.flat, {r4}), b4(fc(0))));
  Expr choice = CallNode::make(DataType::float32(4), Symbol("if_then_else"),
                               {bin(BinaryOp::GE, fromMask, b4(fc(0))), bin(BinaryOp::Min, fromMask, b4(fc(2))),
                                bin(BinaryOp::Max, fromMask, b4(fc(-2)))});
  Stmt s6 = storeTo(f.flat, choice, {ramp(c(8), 4)});
  Stmt s7 = storeTo(v4.flat, gathered, {RampNode::make(c(1), c(2), 2)});
  BufferNode::Fields view = buffer("F_view", f.data, f32, {c(4)})->fields();
  view.strides = {c(2)};
  view.elemOffset = c(16);
  Buffer strided = BufferNode::make(view);
  Stmt s8v = storeTo(strided, CallNode::make(DataType::float32(4), Symbol("sqrt"), {load(strided, {ramp(c(0), 4)})}),
                     {ramp(c(0), 4)});
  // Work-item 0 counts U[0] up to 3; the condition's Let is re-evaluated every iteration.
  Expr below = LetNode::make(k, IntImmNode::make(u32, 3), bin(BinaryOp::LT, load(u.flat, {c(0)}), k));
  Stmt count = storeTo(u.flat, load(u.flat, {c(0)}) + IntImmNode::make(u32, 1), {c(0)});
  Stmt loop = IfThenElseNode::make(bin(BinaryOp::EQ, ty, c(0)),
                                   LetStmtNode::make(t, c(0), WhileNode::make(below, count)), nullptr);
  Stmt first = threadLoop(tx, 8, "threadIdx.x", SeqStmtNode::make({s3, s4, s5}));
  Stmt second = threadLoop(ty, 4, "threadIdx.x", SeqStmtNode::make({s1, s2, s6, s7, s8v, loop}));
  return function("miscellany", {flags, d, bytes, u, v4, f}, SeqStmtNode::make({first, second}));
}

namespace {

Param nhwc(const char *name) {
  return param(name, f32, {c(kN), c(kH), c(kW), c(kC)}, {c(kN * kH * kW * kC)});
}
Param nchw4c(const char *name) {
  return param(name, f32, {c(kN), c(kC / 4), c(kH), c(kW), c(4)}, {c(kN * kC / 4 * kH), c(kW * 4)}, "global.texture",
               {3}, {1});
}
// The NHWC offset of channel block `c4`, lane 0, for image row `row` = (n * C/4 + c4) * H + h.
Expr nhwcOffset(const Expr &row, const Expr &w) {
  Expr h = bin(BinaryOp::FloorMod, row, c(kH));
  Expr c4 = bin(BinaryOp::FloorMod, bin(BinaryOp::FloorDiv, row, c(kH)), c(kC / 4));
  Expr n = bin(BinaryOp::FloorDiv, row, c(kH * kC / 4));
  return ((n * c(kH) + h) * c(kW) + w) * c(kC) + c4 * c(4);
}

} // namespace

PrimFunc packTexture() {
  Param x = nhwc("X"), y = nchw4c("Y");
  Var row = var("row"), w = var("w");
  Stmt body = storeTo(y.flat, load(x.flat, {ramp(nhwcOffset(row, w), 4)}), {row, ramp(w * c(4), 4)});
  return function("pack_nchw4c", {x, y},
                  threadLoop(row, kN * kC / 4 * kH, "blockIdx.x", threadLoop(w, kW, "threadIdx.x", body)));
}

PrimFunc unpackTexture() {
  Param y = nchw4c("Y"), z = nhwc("Z");
  Var row = var("row"), w = var("w"), k = var("k");
  Stmt body = storeTo(z.flat, load(y.flat, {row, w * c(4) + k}), {nhwcOffset(row, w) + k});
  return function(
      "unpack_nchw4c", {y, z},
      threadLoop(row, kN * kC / 4 * kH, "blockIdx.x", threadLoop(w, kW, "threadIdx.x", serialLoop(k, 4, body))));
}

PrimFunc rank2GlobalBuffer() {
  Param a = param("M", f32, {c(4), c(4)}, {c(4), c(4)}, "global", {}, {1});
  Var i = var("i");
  return function("rank2", {a}, serialLoop(i, 4, storeTo(a.flat, fc(1), {i, i})));
}

PrimFunc textureReadWrite() {
  Param y = nchw4c("Y");
  Var row = var("row"), w = var("w");
  Expr texel = ramp(w * c(4), 4);
  Stmt body = storeTo(y.flat, load(y.flat, {row, texel}) + BroadcastNode::make(fc(1), 4), {row, texel});
  return function("texture_rw", {y}, threadLoop(row, 8, "blockIdx.x", threadLoop(w, kW, "threadIdx.x", body)));
}

PrimFunc kernelWithAssert() {
  Param a = param("A", f32, {c(8)}, {c(8)});
  Var n = var("n"), i = var("i");
  Stmt positive = AssertStmtNode::make(bin(BinaryOp::GT, n, c(0)), "n is positive");
  Stmt inRange = AssertStmtNode::make(bin(BinaryOp::LT, i, n), "index below n");
  Stmt body = threadLoop(i, 8, "threadIdx.x", SeqStmtNode::make({inRange, storeTo(a.flat, fc(1), {i})}));
  return function("asserting", {a}, SeqStmtNode::make({positive, body}), {n});
}

PrimFunc fiveLaneVector() {
  Param a = param("A", f32, {c(10)}, {c(10)});
  return function("five_lanes", {a}, storeTo(a.flat, BroadcastNode::make(fc(1), 5), {ramp(c(0), 5)}));
}

} // namespace tirlower::opencl_test
