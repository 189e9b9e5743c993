#include "ir_dumps.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "codegen/tir_printer.h"
#include "output_file.h"

namespace tirlower {

namespace {

std::string optionsText(const PassOptions &options) {
  std::string out;
  for (const PassOptionValue &option : options)
    out += (out.empty() ? "" : ", ") + option.name + "=" + option.value;
  return out;
}

} // namespace

bool IRDumps::active() const {
  return options_.printIrAfterAll || !options_.printIrAfter.empty() || !options_.printIrTreeDir.empty();
}

bool IRDumps::printsAfter(const std::string &passName) const {
  return options_.printIrAfterAll ||
         std::find(options_.printIrAfter.begin(), options_.printIrAfter.end(), passName) != options_.printIrAfter.end();
}

void IRDumps::addTreeFile(const std::string &name, const std::string &header, const std::string &text) {
  std::string &file = treeFiles_[name];
  if (!file.empty())
    file += "# -----\n";
  file += header + text;
}

void IRDumps::input(const Module &module, const std::string &inputName) {
  index_ = 0;
  haveLastText_ = false;
  if (options_.printIrTreeDir.empty())
    return;
  lastText_ = printModule(module);
  haveLastText_ = true;
  addTreeFile("00_input.tir", "# tirlower: input " + inputName + "\n", lastText_);
}

void IRDumps::afterPass(const PassInstance &pass, const Module &before, const Module &after, bool identical) {
  ++index_;
  const std::string &name = pass.info->name;
  bool print = printsAfter(name);
  if (!print && options_.printIrTreeDir.empty())
    return;
  std::string text = identical && haveLastText_ ? lastText_ : printModule(after);
  bool unchanged = identical || (haveLastText_ ? lastText_ == text : printModule(before) == text);
  lastText_ = text;
  haveLastText_ = true;

  std::string options = optionsText(pass.options);
  if (print) {
    std::cerr << "# -----// IR Dump After " << name << (options.empty() ? "" : " (" + options + ")")
              << (unchanged ? " (unchanged)" : "") << " //----- #\n"
              << text;
    std::cerr.flush();
  }
  if (!options_.printIrTreeDir.empty()) {
    char prefix[16];
    std::snprintf(prefix, sizeof prefix, "%02d_", index_);
    std::string header = "# tirlower: after pass " + name + (options.empty() ? "" : " (" + options + ")") +
                         (unchanged ? " (unchanged)" : "") + "\n";
    addTreeFile(prefix + name + ".tir", header, text);
  }
}

namespace {

// A file an earlier --print-ir-tree-dir run wrote: NN_name.tir starting with "# tirlower:".
bool isTreeFile(const std::filesystem::path &path) {
  const std::string name = path.filename().string();
  size_t digits = 0;
  while (digits < name.size() && name[digits] >= '0' && name[digits] <= '9')
    ++digits;
  if (digits < 2 || digits >= name.size() || name[digits] != '_' || path.extension() != ".tir")
    return false;
  std::ifstream file(path);
  std::string firstLine;
  std::getline(file, firstLine);
  return firstLine.rfind("# tirlower: ", 0) == 0;
}

} // namespace

std::string writeTreeFiles(const std::string &directory, const std::map<std::string, std::string> &files) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error)
    return "cannot create directory '" + directory + "': " + error.message();
  // A reused directory holds only this run's dumps: a shorter pipeline leaves no stale files.
  for (const std::filesystem::directory_entry &entry : std::filesystem::directory_iterator(directory, error))
    if (entry.is_regular_file() && !files.count(entry.path().filename().string()) && isTreeFile(entry.path()))
      std::filesystem::remove(entry.path(), error);
  for (const auto &[name, contents] : files)
    if (std::string message = writeOutput(directory + "/" + name, contents); !message.empty())
      return message;
  return "";
}

} // namespace tirlower
