// The collector's own audit entries, beside command_denied (entry_mapper.h):
// evidence of what a sandbox or an intruder did to the channel itself. Each
// is signed onto the chain like any entry; agt-audit-jsonl(5) lists them.
//   denied_log_suppressed  a sandbox's log replaced by a symlink, FIFO or
//                          directory, made unreadable, or removed
//   audit_file_tampered    run found its audit file tampered with and, told
//                          to (--new-chain), moved it aside and began anew
#ifndef AGT_COLLECTOR_COLLECTOR_EVENTS_H_
#define AGT_COLLECTOR_COLLECTOR_EVENTS_H_

#include <string>

#include "audit_entry.h"
#include "audit_tamper.h"
#include "entry_mapper.h"
#include "tail/chain_head.h"

namespace collector_events {

// What was found at a sandbox's log, and what the collector did about it.
struct Suppression {
  std::string log;       // the log's path
  std::string found;     // "a symbolic link", "removed", "mode 0000 on its directory", ...
  std::string restored;  // what was put back ("" when nothing was)
  // A summary: this many more occurrences of the same kind (the last one
  // is `found`) in the quota window [window_start, +interval_seconds).
  uint64_t repeats = 0;
  int64_t window_start = 0;
  uint32_t interval_seconds = 0;
};

// Python's isoformat() of the current UTC time, microseconds included.
std::string NowTimestamp();

// Both fill *out except entry_id (derived when the entry is signed).
void MapSuppression(const Suppression& what, const entry_mapper::SourceLabels& labels,
                    audit_entry::AuditEntryFields* out);
void MapTampered(const std::string& audit_path, const audit_tamper::Finding& finding,
                 const chain_head::ChainHead* head, const std::string& moved_to,
                 audit_entry::AuditEntryFields* out);

}  // namespace collector_events

#endif  // AGT_COLLECTOR_COLLECTOR_EVENTS_H_
