// The audit file's chain head, kept in the state directory: which file
// (device, inode), how many entries it held, its size and the last entry's
// content_hash, as of the last durable append. A hash chain alone cannot
// show that its tail was cut or that the file was emptied or replaced; a
// head kept apart from the file can (audit_tamper.h compares the two).
//
// The state directory holds, besides checkpoints.journal (every source's
// checkpoint, checkpoint_journal.h):
//   chain.head         this record
//   forward.position   reserved for forwarding (what the receiver has
//                      acknowledged; written after the acknowledgement)
#ifndef AGT_COLLECTOR_TAIL_CHAIN_HEAD_H_
#define AGT_COLLECTOR_TAIL_CHAIN_HEAD_H_

#include <stdint.h>

#include <string>

#include "file_id.h"

namespace chain_head {

constexpr char kFileName[] = "chain.head";

struct ChainHead {
  file_id::FileId file;      // the audit file's identity
  uint64_t entries = 0;      // complete entries in it
  uint64_t size = 0;         // bytes: the end of the last durable entry
  std::string content_hash;  // of that entry ("" when there is none)
};

enum class LoadResult { kLoaded, kNone, kCorrupt, kError };

// state_dir_fd: an O_DIRECTORY fd.
LoadResult Load(int state_dir_fd, ChainHead* out, std::string* err);

// Replaces the head durably: a temporary file, fsynced, renamed into place,
// then the directory fsynced (so a checkpoint written after it can never be
// durable while the head it relies on is not).
bool Save(int state_dir_fd, const ChainHead& head, std::string* err);

// Save() in two steps, for the run mode's commit (state_batch.h), which
// appends the cycle's checkpoint frame between the head's rename and the
// directory's fsync: Stage writes chain.head.tmp (fsynced when sync_file);
// Publish renames it into place. Neither fsyncs the directory.
bool Stage(int state_dir_fd, const ChainHead& head, bool sync_file, std::string* err);
bool Publish(int state_dir_fd, std::string* err);

}  // namespace chain_head

#endif  // AGT_COLLECTOR_TAIL_CHAIN_HEAD_H_
