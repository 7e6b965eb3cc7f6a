// Tamper evidence on the host: an audit file checked whole (every line's
// hash, link and signature, as verify does) and against the chain head the
// state directory kept of it (tail/chain_head.h). The chain alone shows an
// edited, reordered or deleted entry; the head also shows a cut tail, an
// emptied file and a file put in another's place.
#ifndef AGT_COLLECTOR_AUDIT_TAMPER_H_
#define AGT_COLLECTOR_AUDIT_TAMPER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "file_id.h"
#include "tail/chain_head.h"

namespace audit_tamper {

enum class Kind {
  kIntact,          // verifies, and holds the head's entries (and maybe more after them)
  kMissing,         // no file at the path, though the head records entries
  kReplaced,        // another file (device:inode) than the one the head names
  kEmptied,         // the head's file, with none of its entries left
  kTailCut,         // ends before the head's last entry
  kBroken,          // a line fails verification: edited, reordered, deleted or inserted
  kHeadMismatch,    // the chain verifies, but its entry at the head's count is another
  kTornUnproven,    // an incomplete last line that no head shows to be past the durable end
  kHeadUnreadable,  // the state directory's chain head is not a chain head (run sets it)
};

struct Finding {
  Kind kind = Kind::kIntact;
  uint64_t line = 0;    // the first bad position: line (1-based) ...
  uint64_t offset = 0;  // ... and byte offset
  std::string detail;   // what was found, one clause
  // What the file holds.
  file_id::FileId file;
  uint64_t entries = 0;     // lines verified good before anything bad
  uint64_t good_bytes = 0;  // their end
  uint64_t torn_bytes = 0;  // an incomplete last line after them
  std::string last_content_hash;
};

enum class CheckResult { kDone, kError };

// Checks the file at `path` (never following a symbolic link) against
// `head` (null: no head kept; only the chain is checked and an incomplete
// last line cannot be proven harmless). kError (*err) for an I/O problem.
CheckResult Check(const std::string& path, std::string_view key, const chain_head::ChainHead* head,
                  Finding* finding, std::string* err);

bool IsTampered(const Finding& f);
// "tail_cut", "emptied", ...: the words signed entries and messages use.
const char* KindName(Kind kind);
// "tail cut: the chain head records 12 entries (3400 bytes), 9 remain
// (first bad position: line 10, byte 2550)".
std::string Describe(const Finding& f);

}  // namespace audit_tamper

#endif  // AGT_COLLECTOR_AUDIT_TAMPER_H_
