// Printed names: every IR name becomes a valid, unique Python identifier, in the order the
// objects are first seen, so printed text is deterministic and reparses to distinct objects.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace tirlower {

// Replaces characters that cannot appear in a Python identifier by '_' (and prefixes '_' to a
// leading digit); an empty name becomes "v".
std::string sanitizeIdentifier(std::string_view name);
// Python keywords, plus `T` and `I`, which the printed text uses as module aliases.
bool isReservedName(std::string_view name);

class NameTable {
public:
  // A name not handed out before: the sanitized hint itself when free, else hint_1, hint_2, ...
  std::string fresh(std::string_view hint);
  bool taken(const std::string &name) const { return taken_.count(name) != 0; }

private:
  std::unordered_set<std::string> taken_;
  std::unordered_map<std::string, int> nextSuffix_;
};

} // namespace tirlower
