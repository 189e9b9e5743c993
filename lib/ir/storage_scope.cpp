#include "ir/storage_scope.h"

namespace tirlower {

namespace {

bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

} // namespace

StorageScope StorageScope::parse(std::string_view text) {
  struct Rank {
    std::string_view name;
    StorageRank rank;
  };
  // Texture before global: "global.texture" starts with "global".
  static constexpr Rank kRanks[] = {
      {scope::kTexture, StorageRank::Texture}, {scope::kGlobal, StorageRank::Global},
      {scope::kShared, StorageRank::Shared},   {scope::kWarp, StorageRank::Warp},
      {scope::kLocal, StorageRank::Local},
  };
  if (text.empty())
    return {StorageRank::Global, {}};
  for (const Rank &r : kRanks)
    if (startsWith(text, r.name))
      return {r.rank, text.substr(r.name.size())};
  return {StorageRank::Other, text};
}

bool isSharedScope(std::string_view text) {
  return text == scope::kShared;
}

bool isSharedData(const VarNode &data) {
  return isSharedScope(data.storageScope.view());
}

bool isSharedBuffer(const BufferNode &buffer) {
  return isSharedScope(buffer.scope.view()) || isSharedData(*buffer.data);
}

bool isTextureScope(std::string_view text) {
  return StorageScope::parse(text).rank == StorageRank::Texture;
}

bool hasTextureScope(const BufferNode &buffer) {
  return isTextureScope(buffer.scope.view());
}

} // namespace tirlower
