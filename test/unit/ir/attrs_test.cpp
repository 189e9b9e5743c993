// The homes of the IR's names: namespaced function attributes read in both of TVM's spellings
// and printed in one, storage scopes parsed into a rank and a tag, the GPU builtins.
#include <catch2/catch.hpp>

#include "ir/attrs.h"
#include "ir/gpu_builtins.h"
#include "ir/storage_scope.h"

using namespace tirlower;

namespace {

AttrValue attrs(std::vector<AttrValue::Entry> entries) {
  return AttrValue::dict(std::move(entries));
}

} // namespace

TEST_CASE("namespaced function attributes are read in the tir and tirx spellings", "[ir][attrs]") {
  CHECK(findNamespacedAttr("tirx.noalias")->id == NamespacedAttr::NoAlias);
  CHECK(findNamespacedAttr("tir.noalias")->id == NamespacedAttr::NoAlias);
  CHECK(findNamespacedAttr("tir.is_scheduled")->id == NamespacedAttr::IsScheduled);
  CHECK(findNamespacedAttr("noalias") == nullptr);
  CHECK(findNamespacedAttr("tirx.") == nullptr);
  CHECK(findNamespacedAttr("tirx.something_else") == nullptr);
  CHECK(namespacedKey(NamespacedAttr::NoAlias, ScriptSpelling::Tirx) == "tirx.noalias");
  CHECK(namespacedKey(NamespacedAttr::KernelLaunchParams, ScriptSpelling::Tir) == "tir.kernel_launch_params");

  AttrValue tirx = attrs({{"tirx.noalias", AttrValue::boolean(true)}});
  AttrValue tir = attrs({{"global_symbol", AttrValue::string("f")}, {"tir.noalias", AttrValue::integer(1)}});
  AttrValue off = attrs({{"tirx.noalias", AttrValue::boolean(false)}});
  REQUIRE(findFuncAttr(tirx, NamespacedAttr::NoAlias));
  CHECK(attrTruthy(*findFuncAttr(tirx, NamespacedAttr::NoAlias)));
  CHECK(attrTruthy(*findFuncAttr(tir, NamespacedAttr::NoAlias)));
  CHECK_FALSE(attrTruthy(*findFuncAttr(off, NamespacedAttr::NoAlias)));
  CHECK(findFuncAttr(tir, NamespacedAttr::IsEntryFunc) == nullptr);
  CHECK(findFuncAttr(AttrValue(), NamespacedAttr::NoAlias) == nullptr);
  CHECK_FALSE(attrTruthy(AttrValue::string("True")));
  // Both written: the later one counts.
  AttrValue both = attrs({{"tir.noalias", AttrValue::boolean(true)}, {"tirx.noalias", AttrValue::boolean(false)}});
  CHECK_FALSE(attrTruthy(*findFuncAttr(both, NamespacedAttr::NoAlias)));
}

TEST_CASE("printing respells namespaced keys into the printed spelling only", "[ir][attrs]") {
  AttrValue tir = attrs({{"global_symbol", AttrValue::string("f")}, {"tir.noalias", AttrValue::boolean(true)}});
  AttrValue same = respellNamespacedAttrs(tir, ScriptSpelling::Tir);
  CHECK(same == tir);
  AttrValue tirx = respellNamespacedAttrs(tir, ScriptSpelling::Tirx);
  REQUIRE(tirx.entries().size() == 2);
  CHECK(tirx.entries()[0].first == "global_symbol");
  CHECK(tirx.entries()[1].first == "tirx.noalias");
  CHECK(tirx.entries()[1].second == AttrValue::boolean(true));
  CHECK(tir.entries()[1].first == "tir.noalias"); // the input is not modified

  // Both spellings written become one key holding the later value, where the first stood.
  AttrValue both = attrs({{"tir.noalias", AttrValue::boolean(true)},
                          {"global_symbol", AttrValue::string("f")},
                          {"tirx.noalias", AttrValue::boolean(false)}});
  AttrValue one = respellNamespacedAttrs(both, ScriptSpelling::Tirx);
  REQUIRE(one.entries().size() == 2);
  CHECK(one.entries()[0].first == "tirx.noalias");
  CHECK(one.entries()[0].second == AttrValue::boolean(false));
}

TEST_CASE("storage scopes parse into a rank and a tag", "[ir][scope]") {
  struct Case {
    std::string_view text;
    StorageRank rank;
    std::string_view tag;
  };
  const Case cases[] = {
      {"", StorageRank::Global, ""},
      {"global", StorageRank::Global, ""},
      {"shared", StorageRank::Shared, ""},
      {"shared.dyn", StorageRank::Shared, ".dyn"},
      {"local", StorageRank::Local, ""},
      {"local.fragment", StorageRank::Local, ".fragment"},
      {"warp", StorageRank::Warp, ""},
      {"global.texture", StorageRank::Texture, ""},
      {"global.texture-weight", StorageRank::Texture, "-weight"},
      {"wmma.matrix_a", StorageRank::Other, "wmma.matrix_a"},
  };
  for (const Case &c : cases) {
    INFO(c.text);
    StorageScope scope = StorageScope::parse(c.text);
    CHECK(scope.rank == c.rank);
    CHECK(scope.tag == c.tag);
  }
  CHECK(StorageScope::parse("shared.dyn").isThreadShared());
  CHECK(StorageScope::parse("warp").isOnChip());
  CHECK_FALSE(StorageScope::parse("global").isOnChip());
  CHECK(isSharedScope("shared"));
  CHECK_FALSE(isSharedScope("shared.dyn")); // ThreadSync("shared") orders "shared" only
  CHECK(isTextureScope("global.texture-nhwc"));
  CHECK_FALSE(isTextureScope("global"));
}

TEST_CASE("a shared buffer is one whose own or data variable's scope is shared", "[ir][scope]") {
  Var plain = VarNode::make(Symbol("p"), DataType::handle());
  Var sharedData = VarNode::makeHandle(Symbol("s"), DataType::float32(), Symbol("shared"));
  auto buffer = [](Var data, std::string_view scope) {
    BufferNode::Fields f;
    f.name = Symbol("B");
    f.data = std::move(data);
    f.dtype = DataType::float32();
    f.shape = {IntImmNode::make(DataType::int32(), int64_t{4})};
    f.scope = Symbol(scope);
    return BufferNode::make(std::move(f));
  };
  CHECK(isSharedBuffer(*buffer(plain, "shared")));
  CHECK(isSharedBuffer(*buffer(sharedData, "")));
  CHECK_FALSE(isSharedBuffer(*buffer(plain, "local")));
  CHECK(hasTextureScope(*buffer(plain, "global.texture")));
}

TEST_CASE("the barrier builder makes the statement the predicates recognise", "[ir][builtins]") {
  Stmt sync = makeSharedStorageSync({});
  const CallNode *call = storageSyncOf(sync);
  REQUIRE(call);
  CHECK(storageSyncScope(*call) == "shared");
  CHECK(threadAllreduceOf(sync) == nullptr);
  CHECK(storageSyncOf(EvaluateNode::make(IntImmNode::make(DataType::int32(), int64_t{0}))) == nullptr);
}
