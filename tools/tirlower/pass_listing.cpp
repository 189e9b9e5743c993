#include "pass_listing.h"

#include "pass_plugins.h"
#include "transform/pipeline.h"
#include "transform/target.h"

namespace tirlower {

namespace {

// "    requires: layouts applied, flat buffers\n", or nothing.
std::string properties(const char *label, const std::vector<IRProperty> &list) {
  std::string out;
  for (IRProperty property : list)
    out += (out.empty() ? "    " + std::string(label) + ": " : ", ") + irPropertyName(property);
  return out.empty() ? out : out + "\n";
}

} // namespace

std::string listPasses() {
  std::string out;
  for (const PassInfo &info : toolPassRegistry().passes()) {
    out += info.name;
    if (!info.aliases.empty()) {
      out += " (aliases:";
      for (const std::string &alias : info.aliases)
        out += " " + alias;
      out += ")";
    }
    out += "\n    " + info.summary + "\n";
    for (const PassOptionInfo &option : info.options)
      out += "    option " + option.name + "=" + (option.defaultValue.empty() ? "<value>" : option.defaultValue) +
             ": " + option.description + "\n";
    out += properties("requires", info.requirements) + properties("establishes", info.establishes);
  }
  out += "\ntarget pipelines (what --target=NAME runs without --pass or --pass-pipeline):\n";
  for (const Target &target : targets())
    out += target.name + " (emits " + target.emitter + ")\n    " + target.pipeline + "\n";
  return out;
}

// --print-pipeline: the passes that would run, as --pass-pipeline text.
std::string pipelineText(const PassManager &manager) {
  std::string text;
  for (const PassInstance &pass : manager.passes())
    text += (text.empty() ? "" : ",") + describePass(*pass.info, pass.options);
  return text + "\n";
}

} // namespace tirlower
