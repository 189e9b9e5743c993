// Literal spelling shared by the printer and its tests: integers, Python-style floats (the
// shortest decimal that reads back to the same value of the literal's type), quoted strings.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ir/attr_value.h"
#include "ir/data_type.h"

namespace tirlower {

void appendIntDigits(std::string &out, int64_t value);
inline void appendInt(std::string &out, int64_t value) {
  if (value >= 0 && value < 10)
    out += static_cast<char>('0' + value); // most printed integers
  else
    appendIntDigits(out, value);
}
// The spellings of a type in printed text, remembered: printed text spells the same few types
// over and over. The reference stays valid for the thread's lifetime.
struct TypeSpelling {
  std::string name;       // float32: DataType::str()
  std::string quoted;     // "float32"
  std::string annotation; // T.float32
};
const TypeSpelling &typeSpelling(DataType type);
// `value` rounded to the precision of the float type `type` (float16, bfloat16, float32 or
// float64), round-to-nearest-even, overflowing to infinity.
double roundToFloatType(double value, DataType type);
// The digits of a finite float as Python's repr writes them ("1.0", "0.1", "1e-05",
// "3.4028235e+38"), shortest for `type`: float32 values are meant to be read back with strtof,
// float64 with strtod, float16/bfloat16 with strtod followed by roundToFloatType.
std::string formatFloat(double value, DataType type);
// `T.float32(1.5)`, `T.float16("inf")`, `T.float64("nan")`.
void appendFloatLiteral(std::string &out, double value, DataType type);
// A double-quoted string with \\ \" \n \t escaped.
void appendQuoted(std::string &out, std::string_view text);
// Python literal syntax: None, True/False, ints, floats (repr), "strings", [lists], {dicts}.
void appendAttrValue(std::string &out, const AttrValue &value);

} // namespace tirlower
