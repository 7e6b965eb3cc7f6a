#include "did_you_mean.h"

#include <algorithm>

namespace did_you_mean {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string_view Closest(std::string_view word, const std::vector<std::string_view>& candidates) {
  constexpr size_t kFarther = 3;  // this far or more is no typo
  std::string_view best;
  size_t best_d = kFarther;
  for (const std::string_view candidate : candidates) {
    // A near miss, or a cut-short name ("max_line" for "max_line_size").
    size_t d = EditDistance(candidate, word);
    if (word.size() >= 3 && candidate.substr(0, word.size()) == word) d = std::min<size_t>(d, 2);
    if (d < best_d) {
      best_d = d;
      best = candidate;
    }
  }
  return best;
}

}  // namespace did_you_mean
