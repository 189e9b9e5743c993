// --print-ir-after-all, --print-ir-after=NAME and --print-ir-tree-dir=DIR: printing the IR
// between passes. The pass manager only says whether a pass returned the very same nodes;
// whether the printed IR changed is decided here by comparing the printed text.
#pragma once

#include <map>
#include <string>

#include "options.h"
#include "transform/pass_manager.h"

namespace tirlower {

class IRDumps : public PassInstrumentation {
public:
  // `treeFiles` collects file name -> contents for --print-ir-tree-dir (several input chunks
  // append to the same files).
  IRDumps(const ToolOptions &options, std::map<std::string, std::string> &treeFiles)
      : options_(options), treeFiles_(treeFiles) {}

  bool active() const;
  void input(const Module &module, const std::string &inputName);
  void afterPass(const PassInstance &pass, const Module &before, const Module &after, bool identical) override;

private:
  bool printsAfter(const std::string &passName) const;
  void addTreeFile(const std::string &name, const std::string &header, const std::string &text);

  const ToolOptions &options_;
  std::map<std::string, std::string> &treeFiles_;
  std::string lastText_; // printed IR of the previous stage, when printed
  bool haveLastText_ = false;
  int index_ = 0;
};

// Writes the collected files into `directory` (created when missing), removing the dumps of an
// earlier run (NN_name.tir files that start with "# tirlower:") that this run does not write.
// Returns an error message, empty on success.
std::string writeTreeFiles(const std::string &directory, const std::map<std::string, std::string> &files);

} // namespace tirlower
