// The signed entry that stands for the lines a sandbox wrote past its quota
// in one window (tail/sandbox_quota.h): event_type "sandbox_quota_exceeded",
// the counts in `data`, the labels of the source as for its denials.
// agt-audit-jsonl(5) documents it. Its content is fixed by the window and
// the counts, so a summary written again after a crash has the same entry
// id and is recognised as already present.
#ifndef AGT_COLLECTOR_QUOTA_ENTRY_H_
#define AGT_COLLECTOR_QUOTA_ENTRY_H_

#include <string>

#include "audit_entry.h"
#include "entry_mapper.h"
#include "tail/sandbox_quota.h"

namespace quota_entry {

constexpr char kEventType[] = "sandbox_quota_exceeded";

// Fills *out (entry_id left empty: derived when signed) for `held` lines of
// the log `file`, whose labels are `labels`.
void MapSummary(const sandbox_quota::Held& held, const sandbox_quota::Limits& limits,
                const entry_mapper::SourceLabels& labels, const std::string& file,
                audit_entry::AuditEntryFields* out);

}  // namespace quota_entry

#endif  // AGT_COLLECTOR_QUOTA_ENTRY_H_
