// run's exits with status 74 (an I/O error on its own files: a full disk,
// EIO from fdatasync), counted across restarts in the state directory. The
// packaged unit restarts run every 30 s while the disk stays full; the
// count, exported at the next start (agt_collector_io_error_exits_total),
// shows how often that happened. The file is made at full width at start,
// so counting an exit rewrites its bytes in place: no new block is needed
// on the disk that is full.
#ifndef AGT_COLLECTOR_IO_ERROR_EXITS_H_
#define AGT_COLLECTOR_IO_ERROR_EXITS_H_

#include <stdint.h>

#include <string>

#include "unique_fd.h"

namespace io_error_exits {

constexpr char kFileName[] = "io-error.exits";

// Reads the count in the state directory (0 when there is none); false
// with *err when the file is there but unreadable or not a count.
bool Read(int state_dir_fd, uint64_t* count, std::string* err);

class Counter {
 public:
  // Opens STATE_DIR/io-error.exits, creating it (count 0) when missing.
  bool Open(int state_dir_fd, std::string* err);
  bool open() const { return fd_.ok(); }
  // The exits counted before this start.
  uint64_t count() const { return count_; }
  // Counts one more exit, in place, synced.
  bool Add(std::string* err);

 private:
  unique_fd::UniqueFd fd_;
  uint64_t count_ = 0;
};

}  // namespace io_error_exits

#endif  // AGT_COLLECTOR_IO_ERROR_EXITS_H_
