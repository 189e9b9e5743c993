#include "transform/pass_options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "ir/edit_distance.h"
#include "transform/pass.h"

namespace tirlower {

namespace {

std::optional<int64_t> parseInteger(std::string_view text) {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size())
    return std::nullopt;
  return value;
}

std::optional<double> parseNumber(std::string_view text) {
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

const std::string *find(const PassOptions &options, std::string_view name) {
  for (const PassOptionValue &given : options)
    if (given.name == name)
      return &given.value;
  return nullptr;
}

PassOptionInfo declared(std::string name, PassOptionType type, std::string defaultValue, std::string description) {
  PassOptionInfo option;
  option.name = std::move(name);
  option.type = type;
  option.defaultValue = std::move(defaultValue);
  option.description = std::move(description);
  return option;
}

} // namespace

PassOptionInfo integerOption(std::string name, std::string defaultValue, std::string description, int64_t minimum,
                             int64_t maximum) {
  PassOptionInfo option =
      declared(std::move(name), PassOptionType::Integer, std::move(defaultValue), std::move(description));
  option.minimum = minimum;
  option.maximum = maximum;
  return option;
}

PassOptionInfo numberOption(std::string name, std::string defaultValue, std::string description) {
  return declared(std::move(name), PassOptionType::Number, std::move(defaultValue), std::move(description));
}

PassOptionInfo choiceOption(std::string name, std::vector<std::string> choices, std::string defaultValue,
                            std::string description) {
  PassOptionInfo option =
      declared(std::move(name), PassOptionType::Choice, std::move(defaultValue), std::move(description));
  option.choices = std::move(choices);
  return option;
}

PassOptionInfo textOption(std::string name, std::string defaultValue, std::string description,
                          std::function<std::string(const std::string &)> check) {
  PassOptionInfo option =
      declared(std::move(name), PassOptionType::Text, std::move(defaultValue), std::move(description));
  option.check = std::move(check);
  return option;
}

std::string passOptionTypeText(const PassOptionInfo &option) {
  switch (option.type) {
  case PassOptionType::Integer:
    if (option.maximum != INT64_MAX)
      return "integer from " + std::to_string(option.minimum) + " to " + std::to_string(option.maximum);
    return option.minimum == INT64_MIN ? "integer" : "integer >= " + std::to_string(option.minimum);
  case PassOptionType::Number: return "number";
  case PassOptionType::Choice: {
    std::string out;
    for (const std::string &choice : option.choices)
      out += (out.empty() ? "" : "|") + choice;
    return out;
  }
  case PassOptionType::Text: break;
  }
  return "text";
}

const PassOptionInfo *findPassOption(const PassInfo &info, std::string_view name) {
  for (const PassOptionInfo &option : info.options)
    if (option.name == name)
      return &option;
  return nullptr;
}

std::string unknownPassOptionMessage(const PassInfo &info, std::string_view name) {
  std::string message = "unknown option '" + std::string(name) + "' for pass '" + info.name + "'";
  if (info.options.empty())
    return message + "; it takes no options";
  ClosestName closest(name, 3);
  for (const PassOptionInfo &option : info.options)
    closest.consider(option.name);
  if (!closest.best().empty())
    return message + "; did you mean '" + std::string(closest.best()) + "'?";
  message += "; valid options:";
  for (const PassOptionInfo &option : info.options)
    message += " " + option.name;
  return message;
}

std::string passOptionValueError(const PassInfo &info, const PassOptionInfo &option, const std::string &value) {
  std::string where = "option '" + option.name + "' of pass '" + info.name + "'";
  switch (option.type) {
  case PassOptionType::Integer: {
    std::optional<int64_t> v = parseInteger(value);
    if (!v || *v < option.minimum || *v > option.maximum)
      return where + " takes an " + passOptionTypeText(option) + ", not '" + value + "'";
    return "";
  }
  case PassOptionType::Number: return parseNumber(value) ? "" : where + " takes a number, not '" + value + "'";
  case PassOptionType::Choice:
    if (std::find(option.choices.begin(), option.choices.end(), value) != option.choices.end())
      return "";
    return where + " is " + passOptionTypeText(option) + ", not '" + value + "'";
  case PassOptionType::Text: break;
  }
  if (option.check)
    if (std::string error = option.check(value); !error.empty())
      return where + ": " + error;
  return "";
}

std::string passOptionGivenTwiceMessage(const PassInfo &info, std::string_view name) {
  return "option '" + std::string(name) + "' of pass '" + info.name + "' is given twice";
}

std::string passOptionsError(const PassInfo &info, const PassOptions &given) {
  for (size_t k = 0; k < given.size(); ++k) {
    // Not a structured binding: clang 15 (the fuzz build's compiler) cannot capture one below.
    const std::string &key = given[k].name;
    const PassOptionInfo *option = findPassOption(info, key);
    if (!option)
      return unknownPassOptionMessage(info, key);
    auto earlier = given.begin() + static_cast<std::ptrdiff_t>(k);
    if (!option->repeatable &&
        std::any_of(given.begin(), earlier, [&](const PassOptionValue &other) { return other.name == key; }))
      return passOptionGivenTwiceMessage(info, key);
    if (std::string error = passOptionValueError(info, *option, given[k].value); !error.empty())
      return error;
  }
  return "";
}

PassOptions passOptionsWithDefaults(const PassInfo &info, const PassOptions &given, const PassOptions &flags) {
  PassOptions out = given;
  for (const PassOptionInfo &option : info.options) {
    if (find(given, option.name))
      continue;
    std::vector<const PassOptionValue *> fromFlag;
    for (const PassOptionValue &flag : flags)
      if (!option.flag.empty() && flag.name == option.flag)
        fromFlag.push_back(&flag);
    if (!option.repeatable && fromFlag.size() > 1)
      fromFlag.erase(fromFlag.begin(), fromFlag.end() - 1);
    for (const PassOptionValue *flag : fromFlag)
      out.push_back({option.name, flag->value, flag->loc, option.flag});
    if (fromFlag.empty() && !option.defaultValue.empty())
      out.push_back({option.name, option.defaultValue, {}, ""});
  }
  return out;
}

PassOptionInfo givenByFlag(PassOptionInfo option, std::string flag) {
  option.flag = std::move(flag);
  return option;
}

std::optional<int64_t> passOptionInteger(const PassOptions &options, std::string_view name) {
  const std::string *value = find(options, name);
  return value ? parseInteger(*value) : std::nullopt;
}

std::optional<double> passOptionNumber(const PassOptions &options, std::string_view name) {
  const std::string *value = find(options, name);
  return value ? parseNumber(*value) : std::nullopt;
}

const std::string *passOptionText(const PassOptions &options, std::string_view name) {
  return find(options, name);
}

namespace {
PassOptionInfo typed(PassOptionInfo info, std::initializer_list<PassOptionType> types, const char *type) {
  if (std::find(types.begin(), types.end(), info.type) == types.end())
    throw std::logic_error("pass option '" + info.name + "' is read as " + type + " but declared " +
                           passOptionTypeText(info));
  return info;
}
} // namespace

template <>
PassOption<int64_t>::PassOption(PassOptionInfo info)
    : info_(typed(std::move(info), {PassOptionType::Integer}, "an integer")) {}
template <>
PassOption<double>::PassOption(PassOptionInfo info)
    : info_(typed(std::move(info), {PassOptionType::Number}, "a number")) {}
template <>
PassOption<std::string>::PassOption(PassOptionInfo info)
    : info_(typed(std::move(info), {PassOptionType::Choice, PassOptionType::Text}, "text")) {}

template <> std::optional<int64_t> PassOption<int64_t>::find(const PassOptions &options) const {
  return passOptionInteger(options, info_.name);
}
template <> std::optional<double> PassOption<double>::find(const PassOptions &options) const {
  return passOptionNumber(options, info_.name);
}
template <> std::optional<std::string> PassOption<std::string>::find(const PassOptions &options) const {
  const std::string *value = passOptionText(options, info_.name);
  return value ? std::optional<std::string>(*value) : std::nullopt;
}

} // namespace tirlower
