// Small helpers the engine's files share (tail_engine*.cc): its messages
// (logs.h) and the stat time it compares. Not part of the engine's interface.
#ifndef AGT_COLLECTOR_TAIL_TAIL_ENGINE_SUPPORT_H_
#define AGT_COLLECTOR_TAIL_TAIL_ENGINE_SUPPORT_H_

#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include <string>

#include "logs.h"

namespace tail_engine {

using logs::Note;
inline void Warn(const std::string& msg) { logs::Warning(msg); }

inline int64_t MtimeNs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

// The clock st_mtim is in: a checkpoint's written_ns.
inline int64_t RealtimeNs() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace tail_engine

#endif  // AGT_COLLECTOR_TAIL_TAIL_ENGINE_SUPPORT_H_
