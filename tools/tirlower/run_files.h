// The files of `tirlower run`: --inputs (a JSON file, docs/run-json.md, and/or NAME=FILE.npy per
// buffer) and --outputs (a JSON file or '-', NAME=FILE.npy per buffer, or FILE.npy for the one
// buffer the function writes), and the readable table `--outputs-format=table` prints.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "interp/interpreter.h"
#include "ir/function.h"

namespace tirlower {

// Command-line checks of the --inputs and --outputs values; a message for misuse, else empty.
std::string checkRunFileFlags(const std::vector<std::string> &inputs, const std::vector<std::string> &outputs);

// What makeArgsFromJson reads, from the --inputs values: `json`, the JSON file's text ("{}"
// without one), and `arrays`, an object with each NAME=FILE.npy array (its shape and data) as
// buffers.NAME (scalars.NAME for a 0-d array naming a scalar). Returns an input error's
// message, else empty.
std::string runInputsJson(const PrimFunc &func, const std::vector<std::string> &inputs, std::string &json,
                          std::string &arrays);

// Writes run's outputs: the JSON (runResultToJson's, or the table) to the JSON target, and the
// .npy targets straight from the buffers' storage. Returns {exit status, message}; warnings
// (uninitialised elements written as 0) are appended to `warnings`.
std::pair<int, std::string> writeRunOutputs(const PrimFunc &func, const std::vector<ArgValue> &args,
                                            const RunResult &result, uint64_t seed,
                                            const std::vector<std::string> &outputs, bool table,
                                            std::vector<std::string> &warnings);

// The run's outputs as text for a reader: per buffer, in parameter order as in the JSON, its
// dtype, shape and data in rows, numpy style ("..." in the middle of axes of large buffers),
// then the scalars.
std::string runTable(const PrimFunc &func, const std::vector<ArgValue> &args, const RunResult &result,
                     uint64_t seed);

} // namespace tirlower
