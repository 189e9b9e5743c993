#include "codegen/source_names.h"

namespace tirlower {

std::string quotedBufferName(const BufferNode &buffer) {
  std::string_view name = buffer.name.view();
  constexpr std::string_view suffix = "_flat";
  // flatten names the alias after the buffer it flattens, over that buffer's data variable.
  if (buffer.data && name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix) {
    std::string_view source = name.substr(0, name.size() - suffix.size());
    if (buffer.data->name.view() == source)
      return "'" + std::string(source) + "' (flattened as '" + std::string(name) + "')";
  }
  return "'" + std::string(name) + "'";
}

} // namespace tirlower
