#include "transform/pass_reference.h"

namespace tirlower {

namespace {

// A table cell: '|' escaped, so that option choices ("error|warn") stay in their cell.
std::string cell(const std::string &text) {
  std::string out;
  for (char c : text)
    out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string properties(const std::vector<IRProperty> &list) {
  std::string out;
  for (IRProperty property : list)
    out += (out.empty() ? "" : ", ") + std::string(irPropertyName(property));
  return out;
}

std::string options(const PassInfo &info) {
  std::string out;
  for (const PassOptionInfo &option : info.options) {
    out += out.empty() ? "" : "<br>";
    out += "`" + option.name + "` (" + passOptionTypeText(option);
    if (!option.defaultValue.empty())
      out += ", default `" + option.defaultValue + "`";
    out += "): " + option.description;
  }
  return cell(out);
}

} // namespace

std::string passReferenceMarkdown(const PassRegistry &registry, const std::vector<Target> &targets) {
  std::string out = "## Registered passes\n\n"
                    "In registry order. *Requires*: properties the pass needs from an earlier pass of the "
                    "pipeline; *establishes*: properties it leaves (see \"Pass contracts\").\n\n"
                    "| pass | aliases | summary | options | requires | establishes |\n"
                    "|---|---|---|---|---|---|\n";
  for (const PassInfo &info : registry.passes()) {
    std::string aliases;
    for (const std::string &alias : info.aliases)
      aliases += (aliases.empty() ? "" : ", ") + ("`" + alias + "`");
    out += "| `" + info.name + "` | " + aliases + " | " + cell(info.summary) + " | " + options(info) + " | " +
           properties(info.requirements) + " | " + properties(info.establishes) + " |\n";
  }
  out += "\n## Target pipelines\n\n"
         "What `--target=NAME` runs when no `--pass`/`--pass-pipeline` is given "
         "(`lib/transform/target.cpp`).\n\n"
         "| target | emitter | pipeline |\n"
         "|---|---|---|\n";
  for (const Target &target : targets) {
    std::string pipeline;
    for (char c : target.pipeline)
      pipeline += c == ',' ? std::string(", ") : std::string(1, c);
    out += "| `" + target.name + "` | " + target.emitter + " | " + cell(pipeline) + " |\n";
  }
  return out;
}

} // namespace tirlower
