// What only the running daemon knows, kept for `agt-collector status`: its
// pid and start, the audit file, each sandbox's log path, the forward
// destinations and the last error or warning. STATE_DIR/run.status, JSON,
// replaced atomically (a temporary file renamed over it) at start, every
// metrics interval and on the way out; status reads it and the files it
// names, and never the daemon itself.
#ifndef AGT_COLLECTOR_RUN_STATUS_H_
#define AGT_COLLECTOR_RUN_STATUS_H_

#include <stdint.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace run_status {

constexpr char kFileName[] = "run.status";

struct Snapshot {
  int64_t pid = 0;
  int64_t started_unix = 0;
  int64_t written_unix = 0;                                  // when this snapshot was written
  bool stopped = false;                                      // written on the way out
  int exit_status = 0;                                       // when stopped
  std::string output;                                        // the audit file
  std::vector<std::pair<std::string, std::string>> sources;  // sandbox id, log path (Parse)
  std::vector<std::string> forward;                          // destination names
  int64_t last_problem_unix = 0;                             // 0: none
  std::string last_problem;                                  // "error: ..." or "warning: ..."
};

// False with *err (a bare reason) for anything not a snapshot.
bool Parse(const std::string& text, Snapshot* s, std::string* err);

// Each sandbox's id and its log's path, given to `visit` one at a time.
using SourceVisitor = std::function<void(const std::string& sandbox_id, const std::string& log)>;
using ListSources = std::function<void(const SourceVisitor& visit)>;

// Writes run.status.tmp in the state directory and renames it over
// run.status (metrics::WriteAtomically). The sources come from
// `list_sources` while the file is written, in pieces of 64 KiB (s.sources
// is not read): at 10,000 sandboxes a copy of them and the whole text would
// be about 3 MB held at once, every interval. False with *err.
bool Write(const std::string& state_dir, const Snapshot& s, const ListSources& list_sources,
           std::string* err);

}  // namespace run_status

#endif  // AGT_COLLECTOR_RUN_STATUS_H_
