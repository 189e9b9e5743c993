// Typed pass options. Each option is declared once, in its pass's PassInfo: name, type,
// default and description. The pipeline parser checks what a pipeline gives against the
// declarations (an unknown name is a located error with a did-you-mean, a value of the wrong
// type a located error naming the type); the pass manager hands the pass its options with the
// declared defaults filled in, and the pass reads them typed through the declaration itself
// (PassOption<T>: kLimit.of(options)), so that no pass parses or defaults an option of its own
// or writes an option's name twice.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/source_range.h"

namespace tirlower {

// One option value as given: `name=value` in a pipeline, or the value of a tool flag.
struct PassOptionValue {
  PassOptionValue(std::string name, std::string value, SourceRange loc = {}, std::string flag = {})
      : name(std::move(name)), value(std::move(value)), loc(loc), flag(std::move(flag)) {}

  std::string name; // the option's; among the tool's flag values (PassManager::add), the flag's
  std::string value;
  // Where the value is written (in the pipeline text, or in a flag's value registered as a
  // "<command line>" source), so that a pass can point at it; invalid when not known.
  SourceRange loc;
  // The tool flag that gave the value ("--require-layout"); empty when the pipeline did.
  std::string flag;

  bool operator==(const PassOptionValue &other) const { return name == other.name && value == other.value; }
};

// Options given as name{key=value,...} in a pipeline, in the order written.
using PassOptions = std::vector<PassOptionValue>;

enum class PassOptionType {
  Integer, // a decimal integer from PassOptionInfo::minimum to maximum
  Number,  // a decimal floating-point number
  Choice,  // one of PassOptionInfo::choices
  Text,    // any text, checked by PassOptionInfo::check when there is one
};

struct PassOptionInfo {
  std::string name;
  PassOptionType type = PassOptionType::Text;
  // The value when the pipeline gives none, as a pipeline would write it; empty: no default
  // (the option is absent unless given).
  std::string defaultValue;
  std::string description;
  std::vector<std::string> choices; // Choice
  int64_t minimum = INT64_MIN;      // Integer
  int64_t maximum = INT64_MAX;      // Integer
  // Text: what is wrong with a value ("require expects BUFFER=LAYOUT entries ..."), empty
  // when it is valid.
  std::function<std::string(const std::string &)> check;
  // The tool's flag that gives the option its value when the pipeline does not ("--target",
  // "--layout-verify"); empty: none. The tool hands the pass manager the values of the flags it
  // was given (PassManager::add), and a flag that no pass of the pipeline declares is misuse.
  std::string flag;
  // The option may be given more than once, in a pipeline or by repeating its flag; the pass
  // reads every value (PassOption::all). Other options are given at most once.
  bool repeatable = false;
};

// `option`, given by the tool's `flag` when the pipeline does not give it.
PassOptionInfo givenByFlag(PassOptionInfo option, std::string flag);

// Declarations, one a type (an empty default: absent unless given).
PassOptionInfo integerOption(std::string name, std::string defaultValue, std::string description,
                             int64_t minimum = INT64_MIN, int64_t maximum = INT64_MAX);
PassOptionInfo numberOption(std::string name, std::string defaultValue, std::string description);
PassOptionInfo choiceOption(std::string name, std::vector<std::string> choices, std::string defaultValue,
                            std::string description);
PassOptionInfo textOption(std::string name, std::string defaultValue, std::string description,
                          std::function<std::string(const std::string &)> check = {});

struct PassInfo;

// "integer >= 1", "integer from 1 to 1048576", "number", "error|warn", "text": how messages and
// references name the type.
std::string passOptionTypeText(const PassOptionInfo &option);
const PassOptionInfo *findPassOption(const PassInfo &info, std::string_view name);
// "unknown option 'limt' for pass 'unroll'; did you mean 'limit'?" (listing the valid options
// when none is close, or saying that the pass takes none).
std::string unknownPassOptionMessage(const PassInfo &info, std::string_view name);
// "option 'limit' of pass 'unroll' is given twice".
std::string passOptionGivenTwiceMessage(const PassInfo &info, std::string_view name);
// Empty when `value` is a valid value of `option`, else what is wrong: "option 'limit' of pass
// 'unroll' takes an integer >= 1, not 'x'".
std::string passOptionValueError(const PassInfo &info, const PassOptionInfo &option, const std::string &value);
// What is wrong with `given` as the options of `info`: the first unknown option, option given
// twice or bad value, in the order written; empty when all are valid. The pipeline parser
// checks the same option by option, to locate each error in the pipeline text. A repeatable
// option may be given more than once.
std::string passOptionsError(const PassInfo &info, const PassOptions &given);
// The options a pass is created with: `given`, which must be valid (passOptionsError), then
// every declared option that is not given, in declaration order, with the value of its flag
// in `flags` (a tool flag and its value each, such as {"--target", "opencl"}) when there is
// one (every value of a repeated flag for a repeatable option, the last one otherwise), else its
// default, if any. A value from a flag keeps the flag's location and names the flag.
PassOptions passOptionsWithDefaults(const PassInfo &info, const PassOptions &given, const PassOptions &flags = {});

// A declared option with its typed read, so that a pass names each option once:
//   const PassOption<int64_t> kLimit{integerOption("limit", "1024", "...", 1)};
//   info.options = {kLimit};           // the declaration (--list-passes, pipeline checks)
//   int64_t limit = kLimit.of(options); // the value the pass is created with
// T is int64_t for an Integer option, double for a Number, std::string for a Choice or Text;
// declaring it with another type is an internal error (std::logic_error).
template <class T> class PassOption {
public:
  explicit PassOption(PassOptionInfo info);
  operator const PassOptionInfo &() const { return info_; }
  const PassOptionInfo &info() const { return info_; }
  // The value among the options a pass is created with (passOptionsWithDefaults); nullopt when
  // it is absent (no default, not given).
  std::optional<T> find(const PassOptions &options) const;
  // The value of an option that always has one (a default or a value from its flag).
  T of(const PassOptions &options) const { return find(options).value(); }
  // Every value of a repeatable option, in the order given, with where each is written.
  std::vector<PassOptionValue> all(const PassOptions &options) const;

private:
  PassOptionInfo info_;
};

template <> PassOption<int64_t>::PassOption(PassOptionInfo info);
template <> PassOption<double>::PassOption(PassOptionInfo info);
template <> PassOption<std::string>::PassOption(PassOptionInfo info);
template <> std::optional<int64_t> PassOption<int64_t>::find(const PassOptions &options) const;
template <> std::optional<double> PassOption<double>::find(const PassOptions &options) const;
template <> std::optional<std::string> PassOption<std::string>::find(const PassOptions &options) const;
template <class T> std::vector<PassOptionValue> PassOption<T>::all(const PassOptions &options) const {
  std::vector<PassOptionValue> values;
  for (const PassOptionValue &given : options)
    if (given.name == info_.name)
      values.push_back(given);
  return values;
}

// Untyped reads of checked options (passOptionsWithDefaults) by name, what PassOption reads
// with: the value of `name`, or nullopt when it is absent (no default and not given).
std::optional<int64_t> passOptionInteger(const PassOptions &options, std::string_view name);
std::optional<double> passOptionNumber(const PassOptions &options, std::string_view name);
const std::string *passOptionText(const PassOptions &options, std::string_view name);

} // namespace tirlower
