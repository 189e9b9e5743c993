// numpy's .npy format (version 1.0 written; 1.0, 2.0 and 3.0 read) for `tirlower run`: an
// array read into the JSON form of docs/run-json.md, and a buffer of run's JSON written as an
// array. The format: the magic "\x93NUMPY", a version, a header dict
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded to 64 bytes, then the
// elements in C order.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "interp/interpreter.h"

namespace tirlower {

struct NpyArray {
  std::string dtype;          // tirlower's spelling: "float32", "int8", "bool", ...
  std::vector<int64_t> shape; // () for a 0-d array
  nlohmann::json data;        // a flat array of numbers ("nan", "inf", "-inf" for those)
};

// Parses the bytes of a .npy file. Returns an error message ("not a .npy file", "big-endian
// complex128 is not supported", ...), empty on success.
std::string readNpy(const std::string &bytes, NpyArray &array);

// The .npy bytes of a buffer's storage (an uninitialised element written as 0) as `dtype`
// with `shape`. Returns an error message for a dtype numpy has no type for (bfloat16), empty
// on success; `uninitialised` counts the uninitialised elements.
std::string writeNpy(const std::string &dtype, const std::vector<int64_t> &shape, const BufferData &data,
                     std::string &bytes, size_t &uninitialised);

} // namespace tirlower
