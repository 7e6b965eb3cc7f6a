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

// The file holds two slots, each a complete head with a sequence number and
// its own SHA-256 (at offsets 0 and 4096, so that writing one never touches
// the other's page or block):
//
//   agt-collector chain head 2\n
//   seq=N\n
//   dev=D ino=I entries=E size=S content_hash=HEX\n
//   sha256=HEX of the lines above\n           then NULs to 512 bytes
//
// Save overwrites the slot that does not hold the newest head, in place,
// and fdatasyncs it: no file is created, renamed or freed per commit (on a
// filesystem mounted with discard, freeing the replaced file's block waits
// for the device), and no directory fsync. A crash while a slot is written
// leaves that slot failing its hash and the other one whole: Load takes the
// newest slot that passes, which is the head as it was before that Save.
// A file of version 1 (one head, written by an older build) is read as
// well; the first Save replaces it by a file of two slots.

// state_dir_fd: an O_DIRECTORY fd. kCorrupt: neither slot passes (or a
// version 1 file that is not one).
LoadResult Load(int state_dir_fd, ChainHead* out, std::string* err);

// Writes `head` durably, as above. The file is created (written to
// chain.head.tmp, fsynced, renamed into place, the directory fsynced) when
// there is none, or none this version can extend. On failure *err says
// which call failed, and errno is its errno.
bool Save(int state_dir_fd, const ChainHead& head, std::string* err);

}  // namespace chain_head

#endif  // AGT_COLLECTOR_TAIL_CHAIN_HEAD_H_
