// The parser builds the IR the text describes: signatures, buffers, loops, lets, literal typing,
// vector accesses, layout transforms and modules.
#include <catch2/catch.hpp>

#include "test_util.h"

using namespace tirlower;
using tirlower::test::function;
using tirlower::test::parse;

namespace {
const StmtNode *first(const Stmt &s) {
  if (const auto *seq = s.as<SeqStmtNode>())
    return seq->stmts.empty() ? nullptr : seq->stmts.front().get();
  return s.get();
}
template <typename T> const T *as(const StmtNode *s) {
  return s && s->kind() == T::kNodeKind ? static_cast<const T *>(s) : nullptr;
}
template <typename T> const T *as(const Expr &e) {
  return e.as<T>();
}
} // namespace

TEST_CASE("buffer parameters: the data variable is the parameter", "[parse][parser]") {
  auto p = parse(function("A: T.Buffer((16, 64), \"float32\"), B: T.Buffer[(8,), \"int8\"], n: T.int32, "
                          "C: T.Buffer(16)",
                          "    A[0, 0] = T.float32(1)\n"));
  INFO(p->rendered());
  REQUIRE(p->module);
  const PrimFuncNode &f = p->func();
  REQUIRE(f.params.size() == 4);
  REQUIRE(f.bufferMap.size() == 3);
  const Buffer &a = f.bufferMap[0].buffer;
  CHECK(a->name.view() == "A");
  CHECK(a->data == f.params[0]);
  CHECK(f.params[0]->name.view() == "A");
  CHECK(f.params[0]->type.isHandle());
  CHECK(f.params[0]->pointeeType == DataType::float32());
  CHECK(a->rank() == 2);
  CHECK(*asConstInt(a->shape[1]) == 64);
  CHECK(f.bufferMap[1].buffer->dtype == DataType(DataType::Code::Int, 8));
  CHECK(f.params[2]->type == DataType::int32());
  CHECK(f.bufferMap[2].buffer->dtype == DataType::float32()); // dtype defaults to float32
  CHECK(f.bufferMap[2].buffer->rank() == 1);
  CHECK(p->module->fileId == p->fileId);
  CHECK_FALSE(p->module->isIRModule);
}

TEST_CASE("buffer keyword arguments", "[parse][parser]") {
  auto p = parse(function("n: T.int32, A: T.Buffer((n, 4), \"float32x4\", strides=(8, 1), elem_offset=2, "
                          "scope=\"global.texture\", axis_separators=[1], layout=\"NC\")",
                          "    A[0, 0] = T.Broadcast(T.float32(0), 4)\n"));
  INFO(p->rendered());
  REQUIRE(p->module);
  const Buffer &a = p->func().bufferMap.at(0).buffer;
  CHECK(a->shape[0].get() == p->func().params[0].get());
  CHECK(a->dtype == DataType::float32(4));
  CHECK(a->strides.size() == 2);
  CHECK(*asConstInt(a->elemOffset) == 2);
  CHECK(a->scope.view() == "global.texture");
  CHECK(a->axisSeparators == std::vector<int>{1});
  CHECK(a->layout.view() == "NC");
}

TEST_CASE("match_buffer binds a handle parameter", "[parse][parser]") {
  auto p =
      parse(function("a: T.handle, n: T.int64", "    A = T.match_buffer(a, (n, 4), \"int8\", axis_separators=[1])\n"
                                                "    A[0, 0] = T.int8(3)\n"));
  INFO(p->rendered());
  REQUIRE(p->module);
  const PrimFuncNode &f = p->func();
  REQUIRE(f.bufferMap.size() == 1);
  CHECK(f.bufferMap[0].param == f.params[0]);
  CHECK(f.bufferMap[0].buffer->data == f.params[0]);
  CHECK(f.bufferMap[0].buffer->shape[0].get() == f.params[1].get());
  CHECK(as<BufferStoreNode>(first(f.body)));
}

TEST_CASE("declarations take the rest of their block as body", "[parse][parser]") {
  auto p =
      parse(function("A: T.Buffer((16,), \"float32\")", "    B = T.alloc_buffer((16,), \"float32\", scope=\"shared\")\n"
                                                        "    C = T.decl_buffer((4, 4), \"float32\", data=B.data)\n"
                                                        "    D = T.decl_buffer((8,))\n"
                                                        "    E_data = T.allocate([16], \"float32x4\", \"local\")\n"
                                                        "    E = T.Buffer((16,), \"float32x4\", data=E_data)\n"
                                                        "    x: T.int32 = 4\n"
                                                        "    y = x + 1\n"
                                                        "    C[0, 0] = A[y]\n"
                                                        "    D[0] = B[x]\n"));
  INFO(p->rendered());
  REQUIRE(p->module);
  const auto *alloc = as<AllocBufferNode>(p->func().body.get());
  REQUIRE(alloc);
  CHECK(alloc->buffer->scope.view() == "shared");
  const auto *alias = as<DeclBufferNode>(alloc->body.get());
  REQUIRE(alias);
  CHECK_FALSE(alias->allocates);
  CHECK(alias->buffer->data == alloc->buffer->data);
  const auto *fresh = as<DeclBufferNode>(alias->body.get());
  REQUIRE(fresh);
  CHECK(fresh->allocates);
  CHECK(fresh->buffer->dtype == DataType::float32());
  const auto *allocate = as<AllocateNode>(fresh->body.get());
  REQUIRE(allocate);
  CHECK(allocate->dtype == DataType::float32(4));
  CHECK(allocate->scope.view() == "local");
  CHECK(allocate->bufferVar->pointeeType == DataType::float32(4));
  const auto *e = as<DeclBufferNode>(allocate->body.get());
  REQUIRE(e);
  CHECK(e->buffer->data == allocate->bufferVar);
  const auto *x = as<LetStmtNode>(e->body.get());
  REQUIRE(x);
  CHECK(x->var->type == DataType::int32());
  const auto *y = as<LetStmtNode>(x->body.get());
  REQUIRE(y);
  const auto *seq = y->body.as<SeqStmtNode>();
  REQUIRE(seq);
  CHECK(seq->stmts.size() == 2);
}

TEST_CASE("loops: kinds, bounds and grid nesting", "[parse][parser]") {
  auto p = parse(function("A: T.Buffer((16, 16), \"float32\"), n: T.int64",
                          "    for i, j in T.grid(16, 16):\n"
                          "        A[i, j] = T.float32(0)\n"
                          "    for i in range(2, 10):\n"
                          "        A[i, 0] = T.float32(0)\n"
                          "    for k in T.serial(n):\n"
                          "        T.evaluate(k)\n"
                          "    for t in T.thread_binding(0, 16, thread=\"threadIdx.x\", annotations={\"a\": 1}):\n"
                          "        A[t, 0] = T.float32(1)\n"
                          "    for v in T.vectorized(4):\n"
                          "        A[0, v] = T.float32(1)\n"
                          "    for u in T.unroll(4):\n"
                          "        A[1, u] = T.float32(1)\n"
                          "    for q in T.parallel(4):\n"
                          "        A[2, q] = T.float32(1)\n"));
  INFO(p->rendered());
  REQUIRE(p->module);
  const auto *seq = p->func().body.as<SeqStmtNode>();
  REQUIRE(seq);
  REQUIRE(seq->stmts.size() == 7);
  const auto *outer = seq->stmts[0].as<ForNode>();
  REQUIRE(outer);
  REQUIRE(outer->body.as<ForNode>());
  CHECK(outer->loopVar->name.view() == "i");
  CHECK(outer->body.as<ForNode>()->loopVar->name.view() == "j");
  const auto *ranged = seq->stmts[1].as<ForNode>();
  CHECK(*asConstInt(ranged->min) == 2);
  CHECK(*asConstInt(ranged->extent) == 8);
  const auto *serial = seq->stmts[2].as<ForNode>();
  CHECK(serial->loopVar->type == DataType::int64()); // follows the extent
  CHECK(serial->min->type == DataType::int64());
  const auto *thread = seq->stmts[3].as<ForNode>();
  CHECK(thread->forKind == ForKind::ThreadBinding);
  CHECK(thread->threadTag.view() == "threadIdx.x");
  CHECK(thread->annotations.find("a")->asInt() == 1);
  CHECK(seq->stmts[4].as<ForNode>()->forKind == ForKind::Vectorized);
  CHECK(seq->stmts[5].as<ForNode>()->forKind == ForKind::Unrolled);
  CHECK(seq->stmts[6].as<ForNode>()->forKind == ForKind::Parallel);
}

TEST_CASE("literal typing follows the other operand", "[parse][parser]") {
  auto p = parse(function("A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"int64\"), n: T.int64",
                          "    B[0] = n + 1\n"
                          "    A[0] = A[1] * 2\n"
                          "    A[1] = -1.5\n"
                          "    B[1] = n // 4 % 3\n"
                          "    A[2] = A[1] / T.float32(2)\n"
                          "    B[2] = 3000000000\n"
                          "    B[3] = 2 * 3 + n\n"));
  INFO(p->rendered());
  REQUIRE(p->module);
  const auto *seq = p->func().body.as<SeqStmtNode>();
  REQUIRE(seq->stmts.size() == 7);
  auto value = [&](size_t k) { return seq->stmts[k].as<BufferStoreNode>()->value; };
  const auto *add = value(0).as<BinaryNode>();
  REQUIRE(add);
  CHECK(add->b->type == DataType::int64());
  CHECK(value(1).as<BinaryNode>()->b.as<FloatImmNode>()->value == 2.0);
  CHECK(value(2).as<FloatImmNode>()->value == -1.5);
  const auto *mod = value(3).as<BinaryNode>();
  CHECK(mod->op == BinaryOp::FloorMod);
  CHECK(mod->a.as<BinaryNode>()->op == BinaryOp::FloorDiv);
  CHECK(value(4).as<BinaryNode>()->op == BinaryOp::Div);
  CHECK(value(5).as<IntImmNode>()->value == 3000000000LL);
  const auto *folded = value(6).as<BinaryNode>(); // 2 * 3 folds to the literal 6
  CHECK(*asConstInt(folded->a) == 6);
}

// The expression tree in prefix form: (op a b), (not a), names and integers as written.
std::string shape(const Expr &e) {
  if (const auto *b = e.as<BinaryNode>())
    return std::string("(") + binaryOpName(b->op) + " " + shape(b->a) + " " + shape(b->b) + ")";
  if (const auto *n = e.as<NotNode>())
    return "(not " + shape(n->a) + ")";
  if (const auto *v = e.as<VarNode>())
    return v->name.str();
  if (const auto *i = e.as<IntImmNode>())
    return std::to_string(i->value);
  return "?";
}

TEST_CASE("operator precedence and associativity follow Python", "[parse][parser]") {
  auto p = parse(function("A: T.Buffer((16,), \"int32\"), B: T.Buffer((16,), \"bool\"), a: T.int32, b: T.int32, "
                          "c: T.int32, d: T.int32, x: T.bool, y: T.bool, z: T.bool",
                          "    A[0] = a - b - c\n"
                          "    A[1] = a + b * c % d\n"
                          "    A[2] = a // b * c - d\n"
                          "    A[3] = -a * b\n"
                          "    A[4] = a - (b - c)\n"
                          "    B[0] = not a < b and x or y\n"
                          "    B[1] = x or y and not z\n"
                          "    B[2] = not not x\n"
                          "    B[3] = a + 1 < b * 2 and c != d\n"
                          "    B[4] = x and y and z\n"));
  INFO(p->rendered());
  REQUIRE(p->module);
  const auto *seq = p->func().body.as<SeqStmtNode>();
  REQUIRE(seq->stmts.size() == 10);
  auto value = [&](size_t k) { return shape(seq->stmts[k].as<BufferStoreNode>()->value); };
  CHECK(value(0) == "(sub (sub a b) c)");
  CHECK(value(1) == "(add a (floormod (mul b c) d))");
  CHECK(value(2) == "(sub (mul (floordiv a b) c) d)");
  CHECK(value(3) == "(mul (mul a -1) b)"); // unary minus is a multiplication by -1
  CHECK(value(4) == "(sub a (sub b c))");
  CHECK(value(5) == "(or (and (not (lt a b)) x) y)");
  CHECK(value(6) == "(or x (and y (not z)))");
  CHECK(value(7) == "(not (not x))");
  CHECK(value(8) == "(and (lt (add a 1) (mul b 2)) (ne c d))");
  CHECK(value(9) == "(and (and x y) z)");
}

TEST_CASE("slices become ramps in the last dimension", "[parse][parser]") {
  auto q = parse(function("A: T.Buffer((4, 64), \"float32\")",
                          "    for i in range(16):\n"
                          "        A[0, i * 4:i * 4 + 4] = A[1, 0:4] + A[2, T.Ramp(i, 2, 4)]\n"
                          "        A[3, 0:8:2] = A[3, 8:16:2]\n"));
  INFO(q->rendered());
  REQUIRE(q->module);
  const auto *loop = q->func().body.as<ForNode>();
  const auto *seq = loop->body.as<SeqStmtNode>();
  const auto *store = seq->stmts[0].as<BufferStoreNode>();
  const auto *ramp = store->indices[1].as<RampNode>();
  REQUIRE(ramp);
  CHECK(ramp->lanes == 4);
  CHECK(*asConstInt(ramp->stride) == 1);
  CHECK(store->value->type == DataType::float32(4));
  const auto *strided = seq->stmts[1].as<BufferStoreNode>()->indices[1].as<RampNode>();
  CHECK(strided->lanes == 4);
  CHECK(*asConstInt(strided->stride) == 2);
}

TEST_CASE("expression builtins", "[parse][parser]") {
  auto q = parse(function("A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"int32\"), n: T.int32",
                          "    A[0] = T.Cast(\"float32\", n) + T.cast(n, \"float32\")\n"
                          "    A[1] = T.Select(n > 0, A[2], T.float32(0))\n"
                          "    A[2] = T.if_then_else(n > 0, A[2], 0)\n"
                          "    B[0] = T.min(n, 4) + T.max(1, n) + T.truncdiv(n, 2) + T.truncmod(n, 2)\n"
                          "    B[1] = T.floordiv(n, 2) + T.floormod(n, 2)\n"
                          "    A[3] = T.exp(A[0]) + T.sqrt(A[1]) + T.pow(A[0], 2.0) + T.float32(\"inf\")\n"
                          "    B[2] = T.Let(x * 2, where={x: n + 1})\n"
                          "    A[4] = T.call_extern(\"float32\", \"my_fn\", A[0], 1)\n"
                          "    T.evaluate(T.likely(n < 3))\n"));
  INFO(q->rendered());
  REQUIRE(q->module);
  const auto *seq = q->func().body.as<SeqStmtNode>();
  REQUIRE(seq->stmts.size() == 9);
  auto value = [&](size_t k) { return seq->stmts[k].as<BufferStoreNode>()->value; };
  CHECK(value(0).as<BinaryNode>()->a.as<CastNode>());
  CHECK(value(1).as<SelectNode>());
  const auto *ite = value(2).as<CallNode>();
  REQUIRE(ite);
  CHECK(ite->op.view() == "if_then_else");
  CHECK(ite->type == DataType::float32());
  CHECK(ite->args[2]->type == DataType::float32());
  const auto *let = value(6).as<LetNode>();
  REQUIRE(let);
  CHECK(let->var->name.view() == "x");
  const auto *ext = value(7).as<CallNode>();
  REQUIRE(ext);
  CHECK(ext->op.view() == "call_extern");
  CHECK(ext->args[0].as<StringImmNode>()->value == "my_fn");
  CHECK(ext->args.size() == 3);
  const auto *eval = seq->stmts[8].as<EvaluateNode>();
  CHECK(eval->value.as<CallNode>()->op.view() == "likely");
}

TEST_CASE("if/elif/else, while, assert, attr", "[parse][parser]") {
  auto p =
      parse(function("A: T.Buffer((16,), \"float32\"), n: T.int32", "    if n < 1:\n"
                                                                    "        A[0] = T.float32(0)\n"
                                                                    "    elif n < 2 or not n == 5:\n"
                                                                    "        A[0] = T.float32(1)\n"
                                                                    "    else:\n"
                                                                    "        A[0] = T.float32(2)\n"
                                                                    "    while A[0] < T.float32(5):\n"
                                                                    "        A[0] = A[0] + 1\n"
                                                                    "    assert n > 0, \"n must be positive\"\n"
                                                                    "    with T.attr(A, \"storage_alignment\", 128):\n"
                                                                    "        A[1] = T.float32(0)\n"
                                                                    "    T.attr(\"default\", \"pragma\", \"x\")\n"
                                                                    "    T.evaluate(0)\n"));
  INFO(p->rendered());
  REQUIRE(p->module);
  const auto *seq = p->func().body.as<SeqStmtNode>();
  REQUIRE(seq->stmts.size() == 5);
  const auto *branch = seq->stmts[0].as<IfThenElseNode>();
  REQUIRE(branch);
  REQUIRE(branch->elseCase.as<IfThenElseNode>());
  CHECK(branch->elseCase.as<IfThenElseNode>()->elseCase);
  CHECK(seq->stmts[1].as<WhileNode>());
  CHECK(seq->stmts[2].as<AssertStmtNode>()->message == "n must be positive");
  const auto *attr = seq->stmts[3].as<AttrStmtNode>();
  REQUIRE(attr);
  CHECK(attr->node.get() == p->func().params[0].get());
  CHECK(attr->key.view() == "storage_alignment");
  const auto *concise = seq->stmts[4].as<AttrStmtNode>();
  REQUIRE(concise);
  CHECK(concise->body.as<EvaluateNode>());
}

TEST_CASE("func_attr and transform_layout", "[parse][parser]") {
  auto p = parse(function("A: T.Buffer((1, 8, 8, 16), \"float32\")",
                          "    T.func_attr({\"global_symbol\": \"f\", \"tir.noalias\": True, \"l\": [1, 2.5, -3],"
                          " \"d\": {\"k\": \"v\"}})\n"
                          "    T.transform_layout(A, lambda n, h, w, c: [n, c // 4, h, T.AXIS_SEPARATOR, w, c % 4],"
                          " pad_value=0)\n"
                          "    A[0, 0, 0, 0] = T.float32(0)\n"));
  INFO(p->rendered());
  REQUIRE(p->module);
  const PrimFuncNode &f = p->func();
  CHECK(f.globalSymbol() == "f");
  CHECK(f.attrs.find("tir.noalias")->asBool());
  CHECK(f.attrs.find("l")->items().at(2).asInt() == -3);
  CHECK(f.attrs.find("d")->find("k")->asString() == "v");
  REQUIRE(f.layoutTransforms.size() == 1);
  const LayoutTransform &t = f.layoutTransforms[0];
  CHECK(t.buffer == f.bufferMap[0].buffer);
  CHECK(t.map->initialIndices.size() == 4);
  CHECK(t.map->finalIndices.size() == 5);
  CHECK(t.map->axisSeparators == std::vector<int>{3});
  CHECK(t.padValue.as<FloatImmNode>());
}

TEST_CASE("modules and private functions", "[parse][parser]") {
  auto p = parse("from tvm.script import ir as I\nfrom tvm.script import tir as T\n\n"
                 "@I.ir_module\nclass Module:\n"
                 "    @T.prim_func(private=True)\n"
                 "    def helper(A: T.Buffer((4,), \"float32\")):\n"
                 "        A[0] = T.float32(0)\n\n"
                 "    @T.prim_func\n"
                 "    def main(A: T.Buffer((4,), \"float32\")) -> None:\n"
                 "        \"\"\"docstring\"\"\"\n"
                 "        A[0] = T.float32(1)\n");
  INFO(p->rendered());
  REQUIRE(p->module);
  CHECK(p->module->isIRModule);
  CHECK(p->module->name == "Module");
  REQUIRE(p->module->functions.size() == 2);
  CHECK(p->module->functions[0]->isPrivate);
  CHECK_FALSE(p->module->functions[1]->isPrivate);
  CHECK(p->module->find("main"));
}

TEST_CASE("a range of the file is parsed alone", "[parse][parser]") {
  std::string chunk1 = function("A: T.Buffer((4,), \"float32\")", "    A[0] = T.float32(0)\n");
  std::string text = chunk1 + "// -----\n" + "@T.prim_func\ndef g(B: T.Buffer((4,), \"float32\")):\n    B[0] = x\n";
  SourceManager sources;
  uint32_t id = sources.addFile("in.tir", text);
  DiagnosticCollector d;
  auto first = parseModule(sources, id, d, {0, static_cast<uint32_t>(chunk1.size())});
  REQUIRE(first);
  CHECK(first->functions.size() == 1);
  auto second = parseModule(sources, id, d, {static_cast<uint32_t>(chunk1.size() + 9), UINT32_MAX});
  CHECK_FALSE(second);
  REQUIRE(d.diagnostics.size() == 1);
  CHECK(sources.position(id, d.diagnostics[0].range.begin).line == 9);
}

TEST_CASE("standalone index maps", "[parse][parser]") {
  SourceManager sources;
  uint32_t id = sources.addFile("<command line>", "lambda i, j: [j // 4, T.AXIS_SEPARATOR, i, j % 4]");
  DiagnosticCollector d;
  auto map = parseIndexMap(sources, id, d, DataType::int64());
  REQUIRE(map);
  CHECK((*map)->initialIndices.size() == 2);
  CHECK((*map)->initialIndices[0]->type == DataType::int64());
  CHECK((*map)->finalIndices.size() == 3);
  CHECK((*map)->axisSeparators == std::vector<int>{1});

  uint32_t bad = sources.addFile("<command line>", "lambda i: [k]");
  CHECK_FALSE(parseIndexMap(sources, bad, d));
  CHECK(d.diagnostics.back().message == "use of undefined name 'k'");
}

TEST_CASE("a module of many lexer chunks reads every token once, errors recovered across chunk ends",
          "[parse][parser]") {
  // About 40 tokens per function, 600 functions: the token stream's chunks (4096 tokens) end at
  // every position of a function, inside the failed statements and the recovery that skips them.
  std::string text = "from tvm.script import tir as T\n";
  const int count = 600;
  for (int k = 0; k < count; ++k)
    text += "\n\n@T.prim_func\ndef f_" + std::to_string(k) +
            "(A: T.Buffer((4,), \"float32\")):\n"
            "    A[0] = missing_" +
            std::to_string(k) +
            " + A[1] * T.float32(2)\n"
            "    A[1] = T.float32(1)\n";
  auto p = parse(text);
  CHECK_FALSE(p->module);
  REQUIRE(p->diagnostics.diagnostics.size() == static_cast<size_t>(count));
  for (int k = 0; k < count; ++k) {
    const Diagnostic &d = p->diagnostics.diagnostics[static_cast<size_t>(k)];
    CAPTURE(k);
    CHECK(d.message == "use of undefined name 'missing_" + std::to_string(k) + "'");
    CHECK(p->sources.position(p->fileId, d.range.begin).line == static_cast<uint32_t>(6 + 6 * k));
  }
}
