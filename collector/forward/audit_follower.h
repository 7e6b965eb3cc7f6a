// The forwarder's view of the audit file, the outbox: one file open at a
// time, read in order, followed through logrotate's rename. A rotated file
// is finished before the new one is opened: it is done once no writer holds
// its flock (agt-collector run holds LOCK_EX on the file it writes until
// SIGHUP makes it open the new one) and every line of it has been read.
// Where the forwarder stands is a checkpoint_store::Checkpoint (identity,
// offset, hash of the bytes before it), so a resume can tell the same file
// from a replaced one, and find a file that was rotated while it was down.
#ifndef AGT_COLLECTOR_FORWARD_AUDIT_FOLLOWER_H_
#define AGT_COLLECTOR_FORWARD_AUDIT_FOLLOWER_H_

#include <stdint.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "file_id.h"
#include "tail/checkpoint_store.h"
#include "tail/line_reader.h"
#include "unique_fd.h"

namespace audit_follower {

class Follower {
 public:
  explicit Follower(std::string path);

  // Opens the file to start with: the checkpoint's file (at `path`, or a
  // rotated sibling of it) at its offset, else `path` from the start.
  // *notes gets what a resume could not keep (said as warnings). False
  // with *err only when `path` cannot be opened at all (a missing file is
  // waited for: false, *err empty).
  bool Start(const checkpoint_store::Checkpoint* resume, std::vector<std::string>* notes,
             std::string* err);
  bool started() const { return fd_.ok(); }

  int fd() const { return fd_.get(); }
  const file_id::FileId& id() const { return id_; }
  // Where reading starts in the current file, and the 1-based line number
  // of the line there (after Start and after a switch).
  uint64_t start_offset() const { return start_offset_; }
  uint64_t start_seq() const { return start_seq_; }

  // Reads from `from` (an offset in the current file) to the end of data
  // or until on_line returns false; each line is handed over with its end
  // offset (an unreadable run of bytes as an empty line).
  line_reader::ReadResult Read(
      line_reader::Reader* reader, uint64_t from,
      const std::function<bool(std::string_view line, uint64_t end)>& on_line, std::string* err);

  // At the end of the current file: true when `path` now names another
  // file and the current one is finished (no writer, nothing unread after
  // `offset`); then it has been switched to, from its start. *note says so.
  bool SwitchIfRotated(uint64_t offset, std::string* note, std::string* err);

 private:
  bool OpenPath(std::string* err);

  std::string path_;
  unique_fd::UniqueFd fd_;
  file_id::FileId id_;
  uint64_t start_offset_ = 0;
  uint64_t start_seq_ = 1;
};

// Lines (newlines) in fd before `offset`: the line number an entry there has.
bool CountLines(int fd, uint64_t offset, uint64_t* lines, std::string* err);

}  // namespace audit_follower

#endif  // AGT_COLLECTOR_FORWARD_AUDIT_FOLLOWER_H_
