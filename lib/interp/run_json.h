// The JSON form of a function's arguments and results, read by `tirlower run --inputs` and
// written by `tirlower run`. The format is stable and documented in docs/run-json.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "interp/interpreter.h"

namespace tirlower {

// Arguments for `func`: scalars and buffers named in `json` (an object with optional
// "scalars" and "buffers" members, as runResultToJson writes them) and in `arrays` (another
// such object: the .npy files of the command line, which replace what `json` gives for the
// same name) take those values; the rest are random from
// `seed` as in makeRandomArgs with `options`. A buffer's "data" may be nested lists (numpy's
// tolist()), read in row-major order, and a buffer may be given as its data alone. Throws
// CompileError (unlocated) naming the offending member on malformed JSON, a member given twice,
// unknown names and members, a parameter outside "buffers"/"scalars", wrong dtypes, shapes or
// sizes, ragged lists, and values the element type cannot hold (docs/run-json.md).
std::vector<ArgValue> makeArgsFromJson(const PrimFunc &func, std::string_view json, uint64_t seed,
                                       const RandomArgOptions &options = {}, std::string_view arrays = {});

// The outputs of a run: every buffer's storage (scalar elements, uninitialised ones as null)
// and every scalar argument. Floats are printed in the shortest form that reads back to the
// same value; NaN and infinities as the strings "nan", "inf", "-inf".
std::string runResultToJson(const PrimFunc &func, uint64_t seed, const std::vector<ArgValue> &args,
                            const RunResult &result);

// The pieces of that JSON: element `index` of `data` appended to `out` ("0.5", "null",
// "\"nan\""), a scalar argument ("4", "true"), and a buffer extent (its value when constant or a
// scalar parameter, else "\"?\"").
void appendRunElement(std::string &out, const BufferData &data, size_t index);
std::string runScalarText(const ArgValue &arg);
std::string runExtentText(const PrimFunc &func, const std::vector<ArgValue> &args, const Expr &extent);

} // namespace tirlower
