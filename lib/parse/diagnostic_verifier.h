// --verify-diagnostics: the input states the diagnostics it expects in comments, as in
// mlir-opt:
//   # expected-error@+1 {{buffer 'A' has 2 dimensions}}
//   # expected-warning {{...}}        (same line)     # expected-note@-2 {{...}}
// Every produced diagnostic must be expected and every expectation met; messages match when
// the expected text is a substring of the produced message.
#pragma once

#include <vector>

#include "ir/diagnostic.h"
#include "parse/source_manager.h"

namespace tirlower {

// Checks `produced` (diagnostics of the input range [begin, end) of fileId) against the
// expectations written in that range. Mismatches are reported to `out` as located errors
// ("expected error \"...\" was not produced", "unexpected error: ..."). Returns true when all
// match. Malformed expectation comments are errors too.
bool verifyDiagnostics(const SourceManager &sources, uint32_t fileId, uint32_t begin, uint32_t end,
                       const std::vector<Diagnostic> &produced, DiagnosticSink &out);

} // namespace tirlower
