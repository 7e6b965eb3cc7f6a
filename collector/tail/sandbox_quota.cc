#include "tail/sandbox_quota.h"

namespace sandbox_quota {
namespace {

int64_t WindowOf(const Limits& limits, int64_t now) {
  const int64_t len = limits.interval_seconds > 0 ? limits.interval_seconds : 1;
  return now - ((now % len) + len) % len;
}

}  // namespace

bool Quota::Admit(const Limits& limits, int64_t now, uint64_t bytes) {
  const int64_t window = WindowOf(limits, now);
  if (window != window_) {
    window_ = window;
    entries_ = 0;
    bytes_ = 0;
  }
  if (entries_ < limits.max_entries && bytes_ + bytes <= limits.max_bytes) {
    ++entries_;
    bytes_ += bytes;
    return true;
  }
  if (held_.lines == 0) held_.since = window;
  ++held_.lines;
  held_.bytes += bytes;
  return false;
}

bool Quota::SummaryDue(const Limits& limits, int64_t now) const {
  return held_.lines > 0 && WindowOf(limits, now) != held_.since;
}

}  // namespace sandbox_quota
