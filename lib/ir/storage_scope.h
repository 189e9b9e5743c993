// Storage scopes, parsed once (TVM's runtime::StorageScope): the text a buffer's scope= or a
// pointer's storage scope carries ("global", "shared", "shared.dyn", "local", "warp",
// "global.texture", "global.texture-weight", ...) is a rank — where the memory lives and who
// shares it — and a tag that refines it. Passes, the interpreter and the emitters ask these
// predicates; no other file spells a scope.
#pragma once

#include <cstdint>
#include <string_view>

#include "ir/buffer.h"

namespace tirlower {

namespace scope {
inline constexpr std::string_view kGlobal = "global";
inline constexpr std::string_view kShared = "shared";
inline constexpr std::string_view kLocal = "local";
inline constexpr std::string_view kWarp = "warp";
inline constexpr std::string_view kTexture = "global.texture";
} // namespace scope

enum class StorageRank : uint8_t {
  Global,  // device memory every thread sees ("global", and the empty scope)
  Shared,  // one per thread block ("shared", "shared.dyn")
  Warp,    // one per warp ("warp")
  Local,   // one per thread ("local", "local.*")
  Texture, // an OpenCL image ("global.texture", "global.texture-weight", ...)
  Other,   // a scope of another name: kept, printed, never shared between threads here
};

struct StorageScope {
  StorageRank rank = StorageRank::Global;
  std::string_view tag; // what follows the rank's name: ".dyn", "-weight"; empty for most

  static StorageScope parse(std::string_view text);
  // Per-thread-group storage that barriers order: shared and warp memory.
  bool isThreadShared() const { return rank == StorageRank::Shared || rank == StorageRank::Warp; }
  // Memory not visible to every thread of a launch: shared, warp or local.
  bool isOnChip() const { return isThreadShared() || rank == StorageRank::Local; }
};

// The largest allocation of a constant size that the C and LLVM emitters place on the stack (an
// array, an alloca); a larger or symbolic one goes to the heap. compact-buffer-allocation moves no
// allocation past this size.
inline constexpr int64_t kMaxStackAllocationBytes = 256 * 1024;

// Exactly "shared" (not "shared.dyn"): the memory ThreadSync("shared") orders; set on the buffer
// or on its data variable.
bool isSharedScope(std::string_view text);
bool isSharedData(const VarNode &data);
bool isSharedBuffer(const BufferNode &buffer);
// An OpenCL image: the buffer's scope is "global.texture" or a tagged texture scope.
bool isTextureScope(std::string_view text);
bool hasTextureScope(const BufferNode &buffer);

} // namespace tirlower
