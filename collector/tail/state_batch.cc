#include "tail/state_batch.h"

#include <errno.h>

namespace state_batch {

bool Write(int state_dir_fd, const std::string& state_dir, Batch* batch, std::string* err,
           int* error_number) {
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
  const bool each = batch->checkpoints.size() <= kFsyncEachUpTo;
  if (batch->write_head && !chain_head::Stage(state_dir_fd, batch->head, each, err)) {
    return in_state("chain head");
  }
  for (Checkpoint& c : batch->checkpoints) {
    if (!checkpoint_store::Stage(state_dir_fd, c.key, c.value, each, err, &c.sizes)) {
      return in_state("checkpoint");
    }
  }
  if (!each && !checkpoint_store::SyncFilesystem(state_dir_fd, err)) return failed();
  if (batch->write_head && !chain_head::Publish(state_dir_fd, err)) return in_state("chain head");
  for (Checkpoint& c : batch->checkpoints) {
    if (!checkpoint_store::Publish(state_dir_fd, c.key, err, &c.sizes)) {
      return in_state("checkpoint");
    }
  }
  return checkpoint_store::SyncDirectory(state_dir_fd, err) || failed();
}

}  // namespace state_batch
