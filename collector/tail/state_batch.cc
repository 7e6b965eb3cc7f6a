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
    // Each text straight into the file, in two passes (hashed, then
    // written): no frame of every checkpoint is held.
    const auto each = [batch](const checkpoint_journal::Writer::EntrySink& add) {
      for (const Checkpoint& c : batch->checkpoints) add(c.key, checkpoint_store::Text(c.value));
    };
    if (!journal->AppendEntries(each, err, error_number)) {
      *err = "checkpoint in " + state_dir + ": " + *err;
      return false;
    }
  }
  return !batch->write_head || checkpoint_store::SyncDirectory(state_dir_fd, err) || failed();
}

}  // namespace state_batch
