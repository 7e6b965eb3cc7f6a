#include "tail/state_batch.h"

#include <errno.h>

#include <utility>

namespace state_batch {

bool Write(checkpoint_journal::Writer* journal, int state_dir_fd, const std::string& state_dir,
           Batch* batch, std::string* err, int* error_number) {
  if (batch->empty()) return true;
  if (batch->write_head && !chain_head::Save(state_dir_fd, batch->head, err)) {
    if (error_number != nullptr) *error_number = errno;  // Save's failed call's
    *err = "chain head in " + state_dir + ": " + *err;
    return false;
  }
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
  return true;
}

}  // namespace state_batch
