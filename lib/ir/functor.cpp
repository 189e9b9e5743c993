#include "ir/functor.h"

#include <string>

namespace tirlower {

void throwUnhandledNode(const char *functor, const char *kind) {
  throw std::logic_error(std::string(functor) + " has no method for " + kind + " nodes");
}

} // namespace tirlower
