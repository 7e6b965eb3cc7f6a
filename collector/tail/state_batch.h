// One durable update of the run mode's state directory: the chain head
// (written in place and fdatasynced, chain_head.h), then one frame of the
// checkpoint journal holding the checkpoint of every source that moved (one
// write up to 64 KiB, one fdatasync). Shared by the engine's commit
// (tail_engine_commit.cc, on its commit thread) and its start-up
// (RecordUnrecordedSources), so the order is written once.
//
// A crash may keep the head or the frame at its previous version; each
// version names only durable entries, as long as the caller made the audit
// file durable up to `head` first.
#ifndef AGT_COLLECTOR_TAIL_STATE_BATCH_H_
#define AGT_COLLECTOR_TAIL_STATE_BATCH_H_

#include <stddef.h>

#include <string>
#include <vector>

#include "tail/chain_head.h"
#include "tail/checkpoint_journal.h"
#include "tail/checkpoint_store.h"

namespace state_batch {

struct Checkpoint {
  std::string key;  // the sandbox id
  checkpoint_store::Checkpoint value;
};

struct Batch {
  bool write_head = false;  // the audit file moved: the head follows it
  chain_head::ChainHead head;
  std::vector<Checkpoint> checkpoints;
  bool empty() const { return !write_head && checkpoints.empty(); }
};

// Touches nothing but the state directory, `journal` and `batch` (no
// logging, no other state): it runs on the engine's commit thread.
// state_dir names the directory in *err, and *error_number (may be null)
// is the failed call's errno. On false nothing past the failed step is
// written; a failure to open the head (EMFILE: out of descriptors) writes
// nothing of the batch, and the same batch can be written again.
bool Write(checkpoint_journal::Writer* journal, int state_dir_fd, const std::string& state_dir,
           Batch* batch, std::string* err, int* error_number = nullptr);

}  // namespace state_batch

#endif  // AGT_COLLECTOR_TAIL_STATE_BATCH_H_
