// The files of `tirlower run`: --inputs (a JSON file, docs/run-json.md, and/or NAME=FILE.npy per
// buffer) and --outputs (a JSON file or '-', NAME=FILE.npy per buffer, or FILE.npy for the one
// buffer the function writes), and the readable table `--outputs-format=table` prints.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/function.h"

namespace tirlower {

// Command-line checks of the --inputs and --outputs values; a message for misuse, else empty.
std::string checkRunFileFlags(const std::vector<std::string> &inputs, const std::vector<std::string> &outputs);

// The JSON object makeArgsFromJson reads, from the --inputs values: the JSON file's object with
// each NAME=FILE.npy array as buffers.NAME. Returns an input error's message, else empty.
std::string runInputsJson(const PrimFunc &func, const std::vector<std::string> &inputs, std::string &json);

// Writes run's outputs: `json` (runResultToJson's) to the JSON target as JSON or a table, and
// the .npy targets. Returns {exit status, message}; warnings (uninitialised elements written
// as 0) are appended to `warnings`.
std::pair<int, std::string> writeRunOutputs(const PrimFunc &func, const std::vector<std::string> &outputs, bool table,
                                            const std::string &json, std::vector<std::string> &warnings);

// The run's JSON as text for a reader: per buffer its dtype, shape and data in rows, numpy
// style ("..." in the middle of axes of large buffers), then the scalars.
std::string runTable(const std::string &json);

} // namespace tirlower
