#include "ir/edit_distance.h"

#include <algorithm>
#include <vector>

namespace tirlower {

size_t editDistance(std::string_view a, std::string_view b, size_t limit) {
  // The lengths alone differ by more than the limit (written so that nothing overflows).
  if ((a.size() > b.size() && a.size() - b.size() > limit) || (b.size() > a.size() && b.size() - a.size() > limit))
    return limit + 1;
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return std::min(row[b.size()], limit + 1);
}

void ClosestName::consider(std::string_view candidate) {
  size_t distance = editDistance(name_, candidate, limit_);
  if (distance < bestDistance_ && distance * 2 <= std::max(name_.size(), candidate.size())) {
    bestDistance_ = distance;
    best_ = candidate;
  }
}

} // namespace tirlower
