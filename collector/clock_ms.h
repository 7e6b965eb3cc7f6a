// Milliseconds on the two clocks the collector reads: CLOCK_MONOTONIC for
// intervals and deadlines, CLOCK_REALTIME for the times written in entries.
#ifndef AGT_COLLECTOR_CLOCK_MS_H_
#define AGT_COLLECTOR_CLOCK_MS_H_

#include <stdint.h>
#include <time.h>

namespace clock_ms {

inline int64_t Read(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}
inline int64_t Monotonic() { return Read(CLOCK_MONOTONIC); }
inline int64_t Realtime() { return Read(CLOCK_REALTIME); }

}  // namespace clock_ms

#endif  // AGT_COLLECTOR_CLOCK_MS_H_
