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
// "scalars" and "buffers" members, as runResultToJson writes them) take those values; the rest
// are random from `seed` as in makeRandomArgs with `options`. A buffer's "data" may be nested
// lists (numpy's tolist()), read in row-major order, and a buffer may be given as its data
// alone. Throws CompileError (unlocated) naming the offending member on malformed JSON, unknown
// names and members, wrong dtypes or sizes.
std::vector<ArgValue> makeArgsFromJson(const PrimFunc &func, std::string_view json, uint64_t seed,
                                       const RandomArgOptions &options = {});

// The outputs of a run: every buffer's storage (scalar elements, uninitialised ones as null)
// and every scalar argument. Floats are printed in the shortest form that reads back to the
// same value; NaN and infinities as the strings "nan", "inf", "-inf".
std::string runResultToJson(const PrimFunc &func, uint64_t seed, const std::vector<ArgValue> &args,
                            const RunResult &result);

} // namespace tirlower
