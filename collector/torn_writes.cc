#include "torn_writes.h"

#include <algorithm>

namespace torn_writes {

std::vector<size_t> SplitPoints(std::string_view line) {
  std::vector<size_t> points;
  for (size_t at = line.find(kEntryOpening, 1);
       at != std::string_view::npos && points.size() < kMaxSplitsTried;
       at = line.find(kEntryOpening, at + 1)) {
    points.push_back(at);
  }
  return points;
}

bool Pending::Add(std::string_view fragment, uint64_t line_number, uint64_t offset) {
  if (full()) return false;
  waiting_.push_back(Fragment{std::string(fragment), line_number, offset});
  return true;
}

void Pending::Settle(std::string_view entry_line) {
  const auto begins = [&](const Fragment& f) {
    return entry_line.substr(0, f.bytes.size()) == f.bytes;
  };
  const auto gone = std::remove_if(waiting_.begin(), waiting_.end(), begins);
  settled_ += static_cast<uint64_t>(waiting_.end() - gone);
  waiting_.erase(gone, waiting_.end());
}

}  // namespace torn_writes
