#include "did_you_mean.h"

namespace did_you_mean {

std::size_t Distance(std::string_view a, std::string_view b) {
  if (a.size() > kMaxWordSize || b.size() > kMaxWordSize) return kMaxWordSize + 1;
  std::size_t row[kMaxWordSize + 1];
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      std::size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      std::size_t insert = row[j - 1] + 1;
      std::size_t remove = above + 1;
      std::size_t best = substitute < insert ? substitute : insert;
      row[j] = best < remove ? best : remove;
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace did_you_mean
