// Small helpers the engine's files share (tail_engine*.cc): its two message
// kinds and the stat time it compares. Not part of the engine's interface.
#ifndef AGT_COLLECTOR_TAIL_TAIL_ENGINE_SUPPORT_H_
#define AGT_COLLECTOR_TAIL_TAIL_ENGINE_SUPPORT_H_

#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include <string>

namespace tail_engine {

inline void Note(const std::string& msg) { fprintf(stderr, "agt-collector: %s\n", msg.c_str()); }
inline void Warn(const std::string& msg) {
  fprintf(stderr, "agt-collector: warning: %s\n", msg.c_str());
}

inline int64_t MtimeNs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

}  // namespace tail_engine

#endif  // AGT_COLLECTOR_TAIL_TAIL_ENGINE_SUPPORT_H_
