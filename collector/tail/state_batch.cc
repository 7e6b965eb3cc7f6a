#include "tail/state_batch.h"

#include <errno.h>

#include <utility>

namespace state_batch {

bool Write(checkpoint_journal::Writer* journal, int state_dir_fd, const std::string& state_dir,
           Batch* batch, std::string* err, int* error_number) {
  if (batch->empty()) return true;
  // Each step returns as soon as its call failed: errno is that call's.
  const auto failed = [&]() {
    if (error_number != nullptr) *error_number = errno;
    return false;
  };
  const auto in_state = [&](const char* what) {
    failed();
    *err = std::string(what) + " in " + state_dir + ": " + *err;
    return false;
  };
  if (batch->write_head && !chain_head::Stage(state_dir_fd, batch->head, true, err)) {
    return in_state("chain head");
  }
  if (batch->write_head && !chain_head::Publish(state_dir_fd, err)) return in_state("chain head");
  if (!batch->checkpoints.empty()) {
    // Each text straight into the frame: no copy of it is kept.
    checkpoint_journal::FrameBuilder frame;
    // Pages reserved past what is written are never touched: not resident.
    frame.Reserve(batch->checkpoints.size(), journal->entry_bytes_hint());
    for (const Checkpoint& c : batch->checkpoints) {
      frame.Add(c.key, checkpoint_store::Text(c.value));
    }
    journal->NoteEntryBytes(frame.largest_entry());
    if (!journal->Append(frame.Finish(), err, error_number)) {
      *err = "checkpoint in " + state_dir + ": " + *err;
      return false;
    }
  }
  return !batch->write_head || checkpoint_store::SyncDirectory(state_dir_fd, err) || failed();
}

}  // namespace state_batch
