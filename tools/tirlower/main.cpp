// tirlower: lowers TVMScript tensor IR through a pipeline of passes.
//   tirlower [options] INPUT      (see --help, docs/cli.md)
// Exit codes: 0 success, 1 input errors, 2 command-line misuse.
#include <exception>
#include <iostream>

#include "driver.h"
#include "options.h"

int main(int argc, char **argv) {
  std::ios::sync_with_stdio(false);
  tirlower::ToolOptions options;
  if (std::optional<int> code = tirlower::parseCommandLine(argc, argv, options))
    return *code;
  try {
    return tirlower::runTool(options);
  } catch (const std::exception &e) {
    tirlower::printToolError(std::string("internal error: ") + e.what());
    return 1;
  }
}
