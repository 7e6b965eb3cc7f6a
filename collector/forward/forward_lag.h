// How far a forwarder is behind: the audit file's durable entries past the
// position it keeps in the state directory (forward.NAME.checkpoint, what
// the receiver has acknowledged). Read from the files only, so the run
// mode's metrics and `agt-collector status` need nothing from the child.
#ifndef AGT_COLLECTOR_FORWARD_FORWARD_LAG_H_
#define AGT_COLLECTOR_FORWARD_FORWARD_LAG_H_

#include <stdint.h>

#include <string>

#include "tail/chain_head.h"

namespace forward_lag {

struct Lag {
  uint64_t bytes = 0;    // of the audit file not yet acknowledged
  uint64_t entries = 0;  // lines in those bytes
  bool known = true;     // false: the position names another file (a rotated one)
};

// Counts the newlines of an audit file between two offsets, remembering the
// last count so a position that only moves on costs only the new bytes.
class Counter {
 public:
  // `state_dir_fd` and `audit_fd` stay open meanwhile; `head` is the audit
  // file's durable end (bytes past it are not entries yet).
  Lag Measure(int state_dir_fd, const std::string& destination, int audit_fd,
              const chain_head::ChainHead& head);

 private:
  uint64_t CountLines(int fd, uint64_t from, uint64_t to);

  uint64_t ino_ = 0, from_ = 0, to_ = 0, lines_ = 0;  // the last count
};

// The position file's name for a destination.
std::string PositionKey(const std::string& destination);

}  // namespace forward_lag

#endif  // AGT_COLLECTOR_FORWARD_FORWARD_LAG_H_
