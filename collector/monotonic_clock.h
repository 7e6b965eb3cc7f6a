// The monotonic clock, for timers and rates that must not jump when the
// wall clock is set (scan and watchdog periods, rotation waits, progress).
#ifndef AGT_COLLECTOR_MONOTONIC_CLOCK_H_
#define AGT_COLLECTOR_MONOTONIC_CLOCK_H_

#include <stdint.h>
#include <time.h>

namespace monotonic_clock {

inline int64_t NowMs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

}  // namespace monotonic_clock

#endif  // AGT_COLLECTOR_MONOTONIC_CLOCK_H_
