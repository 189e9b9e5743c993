// Prints the generated part of docs/passes.md (transform/pass_reference.h); check_passes_doc.py
// compares it with the committed page.
#include <iostream>

#include "transform/pass_reference.h"

int main() {
  std::cout << tirlower::passReferenceMarkdown(tirlower::PassRegistry::builtin(), tirlower::targets());
  return 0;
}
