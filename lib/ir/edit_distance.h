// Levenshtein edit distance, for "did you mean" suggestions (the parser's undefined names and
// builtins, the pipeline's pass names).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tirlower {

// The number of single-character insertions, deletions and substitutions that turn `a` into
// `b`, capped at `limit + 1` (a larger distance is not computed).
size_t editDistance(std::string_view a, std::string_view b, size_t limit = SIZE_MAX - 1);

// The closest of the candidates offered to `name` that is a plausible typo of it: at most
// `limit` edits, changing at most half of the longer name; the first of equally close ones.
class ClosestName {
public:
  ClosestName(std::string_view name, size_t limit) : name_(name), limit_(limit), bestDistance_(limit + 1) {}
  void consider(std::string_view candidate);
  // Empty when no candidate was close enough.
  std::string_view best() const { return best_; }

private:
  std::string_view name_, best_;
  size_t limit_, bestDistance_;
};

} // namespace tirlower
