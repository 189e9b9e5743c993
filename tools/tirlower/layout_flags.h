// --transform-layout='B=lambda i, j: [j, i]' and --layout='B=NHWC->NCHW4c': layout transforms
// (--transform-layout='B=lambda i: [i // 4, i % 4], pad_value=0' gives the padding's value)
// given on the command line. Each appends a LayoutTransform for buffer B to every function
// that has a buffer of that name (a parameter, by its buffer's or its handle's name,
// alloc_buffer or decl_buffer: findBufferNamed), after those the input states;
// apply-layout-transforms then applies them. (--require-layout is not one of these: it gives
// the option require of legalize-layouts and verify-layouts, see passOptionFlags.)
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"
#include "options.h"
#include "parse/source_manager.h"

namespace tirlower {

struct LayoutFlag {
  std::string flag;   // "--layout" or "--transform-layout"
  std::string buffer; // the buffer name
  IndexMap map;
  SourceRange loc; // the flag's text, kept in the SourceManager as "<command line>"
  // --transform-layout's `, pad_value=V`: a number, or T.<dtype>(number); converted to the
  // buffer's element type when the transform is added. Empty when not given.
  std::string padValue;
};

// Parses every layout flag. Reports errors to `diagnostics` or stderr; returns false on any.
bool parseLayoutFlags(const ToolOptions &options, SourceManager &sources, DiagnosticSink &diagnostics,
                      std::vector<LayoutFlag> &flags);

// Appends the flags' transforms to `module`, each function it changes verified again (so a map
// of the wrong rank is an error located at the flag even when no pass runs). Reports the first
// flag whose buffer no function has, or whose transform is not well formed; returns false then.
bool applyLayoutFlags(Module &module, const std::vector<LayoutFlag> &flags, DiagnosticSink &diagnostics);

} // namespace tirlower
