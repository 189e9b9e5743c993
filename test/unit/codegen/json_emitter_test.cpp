#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <set>

#include "codegen/json_emitter.h"
#include "ir_builders.h"

using namespace tirlower;
using namespace tirlower::testing;
using nlohmann::json;

namespace {
class FakeSources : public SourceInfo {
public:
  SourcePosition position(uint32_t, uint32_t offset) const override {
    return {"in.tir", offset / 10 + 1, offset % 10 + 1};
  }
};

void collectKinds(const json &node, std::set<std::string> &kinds) {
  if (node.is_object()) {
    if (auto it = node.find("kind"); it != node.end() && it->is_string())
      kinds.insert(it->get<std::string>());
    for (const auto &[key, child] : node.items())
      collectKinds(child, kinds);
  } else if (node.is_array()) {
    for (const auto &child : node)
      collectKinds(child, kinds);
  }
}

// One function that holds every expression and statement kind.
Module everyKind() {
  FuncBuilder fb("main");
  SourceRange here{1, 23, 30};
  Buffer A = fb.bufferParam("A", {16});
  Var n = fb.scalarParam("n");
  Var b = handle("b");
  Buffer B = withFields(buffer("B", {4, 4}, b), [](BufferNode::Fields &f) { f.axisSeparators = {1}; });
  fb.f.params.push_back(b);
  fb.f.bufferMap.push_back({b, B});
  fb.f.attrs = AttrValue::dict({{"global_symbol", AttrValue::string("entry")},
                                {"list", AttrValue::list({AttrValue::integer(1), AttrValue::real(INFINITY)})}});
  Var i = VarNode::make(Symbol("i"), DataType::int32(), here), x = var("x"), t = var("t"), w = var("w");
  Var data = handle("S_data");
  Buffer S = buffer("S", {16}, data);
  Buffer L = buffer("L", {8});
  Buffer V = buffer("V", {16}, A->data, DataType::int32());
  IndexMap map = IndexMapNode::make({w}, {bin(BinaryOp::FloorDiv, w, i32(4)), bin(BinaryOp::FloorMod, w, i32(4))});
  fb.f.layoutTransforms = {{A, map, f32(0), here}};
  Expr value = SelectNode::make(NotNode::make(bin(BinaryOp::LT, i, n)), f32(1.5),
                                CastNode::make(DataType::float32(), LetNode::make(t, i, bin(BinaryOp::Add, t, x))));
  Stmt inner = SeqStmtNode::make({
      BufferStoreNode::make(A, value, {i}, here),
      store(S, CallNode::make(DataType::float32(), Symbol("exp"), {load(A, {i})}), {i}),
      store(V, load(V, {RampNode::make(i32(0), i32(1), 4)}), {RampNode::make(i32(4), i32(1), 4)}),
      store(L, f32(NAN), {i32(0)}),
      store(A, BroadcastNode::make(f32(2), 4), {RampNode::make(i32(0), i32(1), 4)}),
      store(B, f32(0), {i32(0), i32(1)}),
  });
  Stmt body = SeqStmtNode::make({
      ForNode::make(i, i32(0), i32(16), ForKind::Parallel, inner, {}, AttrValue::dict({{"k", AttrValue::string("v")}}),
                    here),
      WhileNode::make(bin(BinaryOp::EQ, x, i32(0)), evaluate(StringImmNode::make("spin"))),
      IfThenElseNode::make(bin(BinaryOp::GT, x, i32(1)), evaluate(i32(0)), evaluate(i32(1))),
      AssertStmtNode::make(bin(BinaryOp::GE, n, i32(0)), "negative"),
      AttrStmtNode::make(StringImmNode::make("scope"), Symbol("pragma"), i32(1), evaluate(i32(2))),
  });
  body = AllocBufferNode::make(L, body);
  body = DeclBufferNode::make(V, false, body);
  body = DeclBufferNode::make(S, false, body);
  body = AllocateNode::make(data, DataType::float32(), shapeOf({16}), Symbol("global"), body);
  body = LetStmtNode::make(x, i32(3), body);
  Module m = moduleOf({fb.build(body)}, true, "Mod");
  return m;
}
} // namespace

TEST_CASE("JSON document structure", "[codegen][json]") {
  std::string text = emitJson(everyKind(), nullptr);
  REQUIRE(text.back() == '\n');
  json doc = json::parse(text);
  CHECK(doc["format"] == "tirlower-ir");
  CHECK(doc["version"] == 1);
  CHECK(doc["module"]["name"] == "Mod");
  CHECK(doc["module"]["is_ir_module"] == true);
  const json &f = doc["module"]["functions"][0];
  CHECK(f["name"] == "main");
  CHECK(f["global_symbol"] == "entry");
  CHECK(f["private"] == false);
  CHECK(f.find("loc") == f.end());

  REQUIRE(f["params"].size() == 3);
  CHECK(f["params"][0] == json{{"name", "A"}, {"dtype", "handle"}, {"buffer", 0}});
  CHECK(f["params"][1] == json{{"name", "n"}, {"dtype", "int32"}, {"buffer", nullptr}});
  CHECK(f["params"][2]["buffer"] == 1);

  const json &buffers = f["buffers"];
  REQUIRE(buffers.size() == 5);
  CHECK(buffers[0]["decl"] == "param");
  CHECK(buffers[0]["data"] == "A");
  CHECK(buffers[0]["shape"][0] == json{{"kind", "int"}, {"dtype", "int32"}, {"value", 16}});
  CHECK(buffers[0]["elem_offset"].is_null());
  CHECK(buffers[0]["layout"].is_null());
  CHECK(buffers[0]["scope"] == "global");
  CHECK(buffers[1]["decl"] == "match_buffer");
  CHECK(buffers[1]["param"] == "b");
  CHECK(buffers[1]["axis_separators"] == json::array({1}));
  CHECK(buffers[2]["name"] == "S");
  CHECK(buffers[2]["decl"] == "decl_buffer");
  CHECK(buffers[2]["data"] == "S_data");
  CHECK(buffers[3]["data"] == "A");
  CHECK(buffers[4]["decl"] == "alloc_buffer");
  for (size_t k = 0; k < buffers.size(); ++k)
    CHECK(buffers[k]["id"] == k);

  CHECK(f["attrs"]["list"] == json::array({1, "inf"}));
  const json &lt = f["layout_transforms"][0];
  CHECK(lt["buffer"] == 0);
  CHECK(lt["initial_indices"][0]["name"] == "w");
  CHECK(lt["final_indices"][1]["op"] == "floormod");
  CHECK(lt["pad_value"]["kind"] == "float");

  const json &let = f["body"];
  CHECK(let["kind"] == "let_stmt");
  CHECK(let["var"] == json{{"kind", "var"}, {"name", "x"}, {"dtype", "int32"}});
  const json &loop = let["body"]["body"]["body"]["body"]["body"]["stmts"][0];
  CHECK(loop["kind"] == "for");
  CHECK(loop["for_kind"] == "parallel");
  CHECK(loop["thread_tag"].is_null());
  CHECK(loop["annotations"] == json{{"k", "v"}});
  CHECK(loop["body"]["stmts"][3]["value"]["value"] == "nan");

  std::set<std::string> kinds;
  collectKinds(doc, kinds);
  std::set<std::string> expected = {"var",          "int",          "float",       "string",       "binary",
                                    "not",          "select",       "cast",        "ramp",         "broadcast",
                                    "let",          "call",         "buffer_load", "buffer_store", "for",
                                    "while",        "if_then_else", "let_stmt",    "allocate",     "decl_buffer",
                                    "alloc_buffer", "attr",         "assert",      "evaluate",     "seq"};
  CHECK(kinds == expected);
}

TEST_CASE("JSON carries locations when sources are given", "[codegen][json]") {
  FakeSources sources;
  std::string text = emitJson(everyKind(), &sources);
  json doc = json::parse(text);
  const json &f = doc["module"]["functions"][0];
  CHECK(f["layout_transforms"][0]["loc"] == "in.tir:3:4");
  const json &loop = f["body"]["body"]["body"]["body"]["body"]["body"]["stmts"][0];
  CHECK(loop["loc"] == "in.tir:3:4");
  CHECK(loop["loop_var"]["loc"] == "in.tir:3:4");
  CHECK(loop["body"]["stmts"][0]["loc"] == "in.tir:3:4");
  CHECK(loop["body"]["stmts"][1].find("loc") == loop["body"]["stmts"][1].end());
  // Key order is stable: kind first, then loc.
  auto ordered = nlohmann::ordered_json::parse(text);
  const auto &firstFunction = ordered["module"]["functions"][0];
  std::vector<std::string> keys;
  for (const auto &[key, value] : firstFunction.items())
    keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"name", "global_symbol", "private", "params", "buffers", "attrs",
                                         "layout_transforms", "body"});
  CHECK(firstFunction["body"].begin().key() == "kind");
  CHECK(text == emitJson(everyKind(), &sources));
}
