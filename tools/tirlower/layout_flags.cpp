#include "layout_flags.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>

#include "arith/index_map_ops.h"
#include "ir/layout.h"
#include "ir/verifier.h"
#include "parse/parser.h"
#include "transform/layout_requirements.h"

namespace tirlower {

namespace {

std::string trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return std::string(text);
}

// Splits "B=VALUE"; reports a usage error when there is no '=' or no name.
bool splitFlag(const std::string &flag, const std::string &text, std::string &buffer, std::string &value,
               DiagnosticSink &diagnostics) {
  size_t equals = text.find('=');
  if (equals == std::string::npos || trim(text.substr(0, equals)).empty()) {
    std::string value = flag == "--layout" ? "FROM->TO" : "lambda ...";
    diagnostics.error({}, flag + " expects BUFFER=" + value + ", got '" + text + "'");
    return false;
  }
  buffer = trim(text.substr(0, equals));
  value = trim(text.substr(equals + 1));
  return true;
}

// --layout='B=FROM->TO': a caret at the offending character of the value, past "B=".
bool parseLayoutsFlag(const std::string &text, SourceManager &sources, DiagnosticSink &diagnostics,
                      std::vector<LayoutFlag> &flags) {
  std::string buffer, layouts;
  if (!splitFlag("--layout", text, buffer, layouts, diagnostics))
    return false;
  uint32_t fileId = sources.addFile("<command line>", text);
  uint32_t valueBegin = static_cast<uint32_t>(text.find(layouts, text.find('=') + 1));
  SourceRange where{fileId, valueBegin, static_cast<uint32_t>(valueBegin + layouts.size())};
  size_t arrow = layouts.find("->");
  if (arrow == std::string::npos) {
    diagnostics.error(where, "--layout expects FROM->TO layout strings, such as NHWC->NCHW4c");
    return false;
  }
  std::optional<Layout> sides[2];
  for (int side = 0; side < 2 && (side == 0 || sides[0]); ++side) {
    std::string part = side == 0 ? layouts.substr(0, arrow) : layouts.substr(arrow + 2);
    std::string layout = trim(part);
    size_t begin = valueBegin + (side == 0 ? 0 : arrow + 2) + part.find(layout);
    LayoutParseError error;
    sides[side] = Layout::parse(layout, &error);
    if (!sides[side]) {
      uint32_t at = static_cast<uint32_t>(begin + std::min(error.offset, layout.size()));
      diagnostics.error({fileId, at, at + static_cast<uint32_t>(std::max<size_t>(error.length, 1))},
                        "--layout: malformed layout \"" + layout + "\": " + error.message);
    }
  }
  if (!sides[0] || !sides[1])
    return false;
  try {
    IndexMap map = indexMapFromLayouts(*sides[0], *sides[1], where);
    flags.push_back({"--layout", buffer, map, where, ""});
  } catch (const CompileError &e) {
    diagnostics.report(e.diagnostic());
    return false;
  }
  return true;
}

// The number of a pad_value: "42", "-1.5", "T.int8(0)" (the dtype is the buffer's, checked when
// the transform is added).
std::optional<double> padValueNumber(std::string text) {
  if (text.rfind("T.", 0) == 0 && text.size() > 2 && text.back() == ')') {
    size_t open = text.find('(');
    if (open == std::string::npos)
      return std::nullopt;
    text = trim(text.substr(open + 1, text.size() - open - 2));
  }
  if (text.empty())
    return std::nullopt;
  char *end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size())
    return std::nullopt;
  return value;
}

// pad_value as a constant of `type`; empty with `error` set when it does not fit.
Expr padValueOf(const std::string &text, DataType type, std::string &error) {
  double value = *padValueNumber(text);
  if (type.isFloat())
    return FloatImmNode::make(type, value);
  if (type.isInt() || type.isUInt() || type.isBool()) {
    int64_t integer = static_cast<int64_t>(value);
    if (static_cast<double>(integer) != value) {
      error = "pad_value " + text + " is not an integer, but the buffer holds " + type.str();
      return Expr();
    }
    try {
      return IntImmNode::make(type, integer);
    } catch (const IRTypeError &e) {
      error = "pad_value " + text + ": " + e.what();
      return Expr();
    }
  }
  error = "pad_value cannot be given for a buffer of " + type.str();
  return Expr();
}

} // namespace

bool parseLayoutFlags(const ToolOptions &options, SourceManager &sources, DiagnosticSink &diagnostics,
                      std::vector<LayoutFlag> &flags) {
  bool ok = true;
  for (const std::string &text : options.transformLayouts) {
    std::string buffer, lambda;
    if (!splitFlag("--transform-layout", text, buffer, lambda, diagnostics)) {
      ok = false;
      continue;
    }
    std::string padValue;
    if (size_t pad = lambda.rfind("pad_value="); pad != std::string::npos) {
      size_t comma = lambda.find_last_not_of(" ", pad == 0 ? 0 : pad - 1);
      if (comma != std::string::npos && lambda[comma] == ',') {
        padValue = trim(lambda.substr(pad + 10));
        lambda = trim(lambda.substr(0, comma));
        if (!padValueNumber(padValue)) {
          diagnostics.error({}, "--transform-layout: pad_value must be a number such as 0 or 1.5, or T.<dtype>(number), "
                                "got '" + padValue + "'");
          ok = false;
          continue;
        }
      }
    }
    // The whole flag is the "file" (a caret under the lambda, "B=" still shown); the lambda is
    // parsed in its place.
    uint32_t fileId = sources.addFile("<command line>", text);
    uint32_t begin = static_cast<uint32_t>(text.find(lambda, text.find('=') + 1));
    uint32_t end = begin + static_cast<uint32_t>(lambda.size());
    std::optional<IndexMap> map = parseIndexMap(sources, fileId, diagnostics, DataType::int32(), {begin, end});
    if (!map) {
      ok = false;
      continue;
    }
    flags.push_back({"--transform-layout", buffer, *map, {fileId, begin, end}, padValue});
  }
  for (const std::string &text : options.layouts)
    ok = parseLayoutsFlag(text, sources, diagnostics, flags) && ok;
  return ok;
}

bool applyLayoutFlags(Module &module, const std::vector<LayoutFlag> &flags, DiagnosticSink &diagnostics) {
  std::vector<bool> changed(module.functions.size());
  for (const LayoutFlag &flag : flags) {
    bool found = false;
    for (PrimFunc &function : module.functions) {
      Buffer buffer = findBufferNamed(*function, flag.buffer);
      if (!buffer)
        continue;
      PrimFuncNode::Fields fields = function->fields();
      Expr padValue;
      if (!flag.padValue.empty()) {
        std::string error;
        padValue = padValueOf(flag.padValue, buffer->dtype, error);
        if (!padValue) {
          diagnostics.error({}, flag.flag + ": " + error + " ('" + buffer->name.str() + "')");
          return false;
        }
      }
      fields.layoutTransforms.push_back({buffer, flag.map, padValue, flag.loc});
      function = PrimFuncNode::make(std::move(fields));
      changed[&function - module.functions.data()] = true;
      found = true;
    }
    if (!found) {
      diagnostics.error({}, flag.flag + ": no function has a buffer named '" + flag.buffer + "'");
      return false;
    }
  }
  bool ok = true;
  for (size_t k = 0; k < module.functions.size(); ++k)
    if (changed[k])
      for (Diagnostic &problem : verifyFunctionOnce(module.functions[k])) {
        diagnostics.report(std::move(problem));
        ok = false;
      }
  return ok;
}

} // namespace tirlower
