#include "transform/layout_requirements.h"

#include <algorithm>

#include "arith/int_ops.h"
#include "ir/visitor.h"
#include "ir/storage_scope.h"
#include "transform/target.h"

namespace tirlower {

namespace {

std::string trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  return std::string(text);
}

class FirstBufferNamed : public IRVisitor {
public:
  explicit FirstBufferNamed(Symbol name) : name_(name) {}
  using IRVisitor::visit;
  Buffer found;

protected:
  void visitBuffer(const Buffer &buffer) override {
    if (!found && buffer->name == name_)
      found = buffer;
  }

private:
  Symbol name_;
};

} // namespace

std::vector<LayoutRequirement> openclTextureRequirements(const PrimFuncNode &func) {
  std::vector<LayoutRequirement> result;
  for (const BufferBinding &binding : func.bufferMap) {
    const BufferNode &buffer = *binding.buffer;
    if (!hasTextureScope(buffer) || buffer.layout.empty())
      continue;
    std::optional<Layout> layout = Layout::parse(buffer.layout.view());
    std::string primal;
    for (const DimDescription &dim : layout ? layout->dims() : std::vector<DimDescription>{})
      if (!dim.isSplit())
        primal += dim.name;
    std::sort(primal.begin(), primal.end());
    if (primal != "CHNW")
      continue;
    LayoutRequirement requirement;
    requirement.buffer = buffer.name.str();
    parseRequirementSpec("NCHW4c:texture", requirement);
    requirement.origin = LayoutRequirement::Origin::Target;
    requirement.loc = buffer.loc;
    result.push_back(std::move(requirement));
  }
  return result;
}

std::vector<std::optional<int64_t>> rowMajorStrides(const std::vector<Expr> &shape) {
  std::vector<std::optional<int64_t>> strides(shape.size());
  std::optional<int64_t> stride = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    strides[k] = stride;
    const int64_t *extent = asConstInt(shape[k]);
    stride = stride && extent ? checkedMul(*stride, *extent) : std::nullopt; // unknown on overflow
  }
  return strides;
}

std::vector<std::optional<int64_t>> elementStrides(const BufferNode &buffer) {
  if (buffer.strides.empty())
    return rowMajorStrides(buffer.shape);
  std::vector<std::optional<int64_t>> strides(buffer.rank());
  for (size_t k = 0; k < buffer.rank(); ++k)
    if (const int64_t *s = asConstInt(buffer.strides[k]))
      strides[k] = *s;
  return strides;
}

const PassOption<std::string> &requireOption() {
  static const PassOption<std::string> option{[] {
    PassOptionInfo info = givenByFlag(
        textOption("require", "", "more requirements: 'B=NCHW4c;A=NCHW4c:texture' (default: every --require-layout)",
                   [](const std::string &value) -> std::string {
                     RequireOptionError error;
                     if (parseRequireOption({"require", value, {}, ""}, &error))
                       return "";
                     if (error.missingEquals)
                       return "require " + error.message;
                     return error.message + " (at character " + std::to_string(error.layoutOffset + 1) + ")";
                   }),
        "--require-layout");
    info.repeatable = true;
    return info;
  }()};
  return option;
}

const PassOption<std::string> &targetOption() {
  static const PassOption<std::string> option{[] {
    std::vector<std::string> names;
    for (const Target &target : targets())
      names.push_back(target.name);
    return givenByFlag(
        choiceOption("target", names, "", "the target whose requirements by buffer role apply (default: --target)"),
        "--target");
  }()};
  return option;
}

const Target *targetOptionOf(const PassOptions &options) {
  std::optional<std::string> name = targetOption().find(options);
  return name ? findTarget(*name) : nullptr;
}

std::vector<LayoutRequirement> requireOptionOf(const PassOptions &options) {
  std::vector<LayoutRequirement> result;
  for (const PassOptionValue &value : requireOption().all(options)) {
    std::vector<LayoutRequirement> parsed = parseRequireOption(value).value(); // checked when given
    result.insert(result.end(), parsed.begin(), parsed.end());
  }
  return result;
}

std::optional<std::vector<LayoutRequirement>> parseRequireOption(const PassOptionValue &value,
                                                                 RequireOptionError *error) {
  auto refuse = [&](std::string message, bool missingEquals, size_t offset, size_t length, size_t layoutOffset = 0) {
    if (error)
      *error = {std::move(message), missingEquals, offset, std::max<size_t>(length, 1), layoutOffset};
    return std::nullopt;
  };
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  std::vector<LayoutRequirement> result;
  std::string_view text = value.value;
  size_t base = 0; // where `text` starts in the value
  if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"') && text.back() == text.front()) {
    text = text.substr(1, text.size() - 2);
    base = 1;
  }
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = std::min(text.find(';', start), text.size());
    size_t first = start, last = end; // the entry, without surrounding blanks
    while (first < last && blank(text[first]))
      ++first;
    while (last > first && blank(text[last - 1]))
      --last;
    start = end + 1;
    if (first == last)
      continue;
    std::string_view entry = text.substr(first, last - first);
    size_t equals = entry.find('=');
    if (equals == std::string::npos || trim(entry.substr(0, equals)).empty())
      return refuse("expects BUFFER=LAYOUT entries separated by ';', got '" + std::string(entry) + "'", true,
                    base + first, entry.size());
    LayoutRequirement requirement;
    requirement.buffer = trim(entry.substr(0, equals));
    size_t specFirst = equals + 1;
    while (specFirst < entry.size() && blank(entry[specFirst]))
      ++specFirst;
    std::string spec(entry.substr(specFirst));
    size_t at = base + first + specFirst; // the layout's offset in the value
    LayoutParseError parseError;
    if (!parseRequirementSpec(spec, requirement, &parseError))
      return refuse("malformed layout requirement \"" + spec + "\" for '" + requirement.buffer +
                        "': " + parseError.message,
                    false, at + parseError.offset, parseError.length, parseError.offset);
    requirement.origin =
        value.flag.empty() ? LayoutRequirement::Origin::PassOption : LayoutRequirement::Origin::CommandLine;
    if (value.loc.valid())
      requirement.loc = {value.loc.fileId, value.loc.begin + static_cast<uint32_t>(at),
                         value.loc.begin + static_cast<uint32_t>(at + spec.size())};
    result.push_back(std::move(requirement));
  }
  return result;
}

Buffer findBufferNamed(const PrimFuncNode &func, const std::string &name) {
  Symbol symbol(name);
  for (const BufferBinding &binding : func.bufferMap)
    if (binding.buffer->name == symbol)
      return binding.buffer;
  // A parameter's name also names its buffer (A: T.handle with A_1 = T.match_buffer(A, ...)).
  for (const BufferBinding &binding : func.bufferMap)
    if (binding.param->name == symbol)
      return binding.buffer;
  FirstBufferNamed finder(symbol);
  finder.visit(func.body);
  return finder.found;
}

std::vector<BufferRequirement> requirementsOf(const PrimFuncNode &func, const std::vector<LayoutRequirement> &options,
                                              const Target *target) {
  std::vector<BufferRequirement> result;
  auto add = [&](const LayoutRequirement &requirement) {
    Buffer buffer = findBufferNamed(func, requirement.buffer);
    if (buffer) {
      result.push_back({requirement, buffer});
      return;
    }
    if (requirement.origin == LayoutRequirement::Origin::FuncAttr)
      throw CompileError(requirement.loc, "layout requirement for '" + requirement.buffer + "', which function '" +
                                              func.name.str() + "' does not declare");
  };
  for (const LayoutRequirement &requirement : func.layoutRequirements)
    add(requirement);
  for (const LayoutRequirement &requirement : options)
    add(requirement);
  if (target)
    for (const LayoutRequirement &requirement : target->requirementsOf(func))
      add(requirement);
  return result;
}

void checkRequirementsApply(const Module &module, const std::vector<LayoutRequirement> &options,
                            const std::string &passName) {
  for (const LayoutRequirement &requirement : options) {
    bool found = false;
    for (const PrimFunc &func : module.functions)
      found = found || findBufferNamed(*func, requirement.buffer);
    if (found)
      continue;
    std::string source = requirement.origin == LayoutRequirement::Origin::CommandLine
                             ? std::string("--require-layout")
                             : passName + ": option require";
    throw CompileError(requirement.loc, source + ": no function has a buffer named '" + requirement.buffer + "'");
  }
}

std::vector<std::string> unmetRequirement(const BufferNode &buffer, const LayoutRequirement &requirement) {
  std::vector<std::string> reasons;
  const Layout &required = requirement.layout;
  std::optional<Layout> actual;
  if (!buffer.layout.empty())
    actual = Layout::parse(buffer.layout.view());
  if (!actual && !required.isAnyLayout())
    reasons.push_back("it has no layout annotation");
  std::string why = required.unsatisfiedReason(buffer.rank(), elementStrides(buffer), actual ? &*actual : nullptr);
  if (!why.empty())
    reasons.push_back(why);
  if (!requirement.texture)
    return reasons;
  if (!hasTextureScope(buffer))
    reasons.push_back("a texture is in scope \"global.texture\", not \"" + buffer.scope.str() + "\"");
  if (buffer.dtype != DataType::float32())
    reasons.push_back("a texture holds float32 elements, not " + buffer.dtype.str());
  const int64_t *innermost = buffer.rank() ? asConstInt(buffer.shape.back()) : nullptr;
  if (!innermost || *innermost != 4)
    reasons.push_back("a texture's innermost extent is 4 (one RGBA texel)");
  int row = static_cast<int>(required.numDims()) - 2;
  if (buffer.axisSeparators != std::vector<int>{row})
    reasons.push_back("a texture has one axis separator, before its last two dimensions (axis_separators=[" +
                      std::to_string(row) + "])");
  return reasons;
}

Diagnostic &noteRequirementSource(Diagnostic &diagnostic, const LayoutRequirement &requirement,
                                  const PrimFuncNode &func) {
  std::string spec = "\"" + requirement.spec() + "\"";
  switch (requirement.origin) {
  case LayoutRequirement::Origin::FuncAttr:
    return diagnostic.note(requirement.loc, spec + " required by T.func_attr of function '" + func.name.str() + "'");
  case LayoutRequirement::Origin::CommandLine:
    return diagnostic.note(requirement.loc, spec + " required by --require-layout='" + requirement.buffer + "=" +
                                                requirement.spec() + "'");
  case LayoutRequirement::Origin::PassOption:
    return diagnostic.note(requirement.loc, spec + " required by the pass option require='" + requirement.buffer + "=" +
                                              requirement.spec() + "'");
  case LayoutRequirement::Origin::Target:
    return diagnostic.note(requirement.loc,
                           spec + " required by the OpenCL target for texture parameter '" + requirement.buffer + "'");
  }
  return diagnostic;
}

} // namespace tirlower
