// A per-sandbox rate and volume limit for the run mode. In each fixed window
// of `interval_seconds` (aligned to the epoch), a sandbox's first
// `max_entries` lines, up to `max_bytes` of log, are written one entry each;
// lines past either limit are only counted, and the count is written as ONE
// signed summary entry once the window has ended (quota_entry.h). So a
// flooding sandbox grows the audit file by at most
// max_entries entries + 1 summary per window, and its flood costs the
// other sandboxes a bounded share of each cycle.
//
// The held-back count is part of the source's checkpoint, written after the
// output's sync like the position: a crash neither loses it nor counts a
// line twice (the lines after the checkpoint are read, and counted, again).
#ifndef AGT_COLLECTOR_TAIL_SANDBOX_QUOTA_H_
#define AGT_COLLECTOR_TAIL_SANDBOX_QUOTA_H_

#include <stdint.h>

namespace sandbox_quota {

struct Limits {
  uint64_t max_entries = 100000;   // lines written as entries per window
  uint64_t max_bytes = 64u << 20;  // log bytes of those lines per window
  uint32_t interval_seconds = 60;  // the window
};

// What one window held back (persisted in the checkpoint).
struct Held {
  uint64_t lines = 0;
  uint64_t bytes = 0;
  int64_t since = 0;  // the window's first second (epoch); meaningful when lines > 0
  bool operator==(const Held& o) const {
    return lines == o.lines && bytes == o.bytes && since == o.since;
  }
  bool operator!=(const Held& o) const { return !(*this == o); }
};

class Quota {
 public:
  // True: write the line of `bytes` as an entry. False: it is held back
  // (counted in held()). Call SummaryDue first: a window's count is
  // summarised before the next window's lines are admitted.
  bool Admit(const Limits& limits, int64_t now, uint64_t bytes);
  // Held-back lines whose window has ended at `now`: summarise them now.
  bool SummaryDue(const Limits& limits, int64_t now) const;
  const Held& held() const { return held_; }
  void Restore(const Held& held) { held_ = held; }
  // The summary entry for held() is appended: start counting afresh.
  void Summarised() { held_ = Held(); }

 private:
  int64_t window_ = -1;  // the window the counters below are for
  uint64_t entries_ = 0;
  uint64_t bytes_ = 0;
  Held held_;
};

}  // namespace sandbox_quota

#endif  // AGT_COLLECTOR_TAIL_SANDBOX_QUOTA_H_
