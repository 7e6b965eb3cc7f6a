// Each sandbox's rate and volume limit (sandbox_quota.h): lines past it are
// counted, and the count is written as one signed summary entry per window
// (quota_entry.h) instead of one entry per line. The count travels in the
// checkpoint, so it is made durable with the position it belongs to.
#include <time.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "entry_id_set.h"
#include "pipeline.h"
#include "quota_entry.h"
#include "tail/tail_engine.h"
#include "tail/tail_engine_support.h"

namespace tail_engine {
namespace {

// Ids this run wrote that are remembered beyond the restart window.
constexpr size_t kWrittenIdsKept = 16384;

}  // namespace

bool Engine::AdmitLine(Source* s, uint64_t bytes) {
  SummariseIfDue(s);
  const int64_t now = static_cast<int64_t>(time(nullptr));
  if (s->quota.Admit(options_.quota, now, bytes)) return true;
  ++stats_.lines_held;
  if (s->quota.held().lines == 1) {
    const sandbox_quota::Limits& q = options_.quota;
    Warn(LogPath(*s) + ": over the sandbox quota (" + std::to_string(q.max_entries) +
         " entries or " + std::to_string(q.max_bytes) + " bytes per " +
         std::to_string(q.interval_seconds) +
         " s); further lines until the window ends are "
         "counted into one " +
         quota_entry::kEventType + " entry");
  }
  return false;
}

void Engine::SummariseIfDue(Source* s) {
  if (!fatal_.empty() ||
      !s->quota.SummaryDue(options_.quota, static_cast<int64_t>(time(nullptr)))) {
    return;
  }
  const std::string path = LogPath(*s);
  entry_mapper::SourceLabels labels;
  std::string reason;
  pipeline::LabelsFor(options_.config, path, s->sandbox_id, &labels, &reason);
  audit_entry::AuditEntryFields fields;
  const sandbox_quota::Held held = s->quota.held();
  quota_entry::MapSummary(held, options_.quota, labels, path, &fields);
  bool appended = false;
  if (!out_->AppendNew(&fields, recent_ids_.empty() ? nullptr : &recent_ids_, &appended, &reason)) {
    fatal_ = reason;
    return;
  }
  RememberWritten(fields.entry_id);
  if (appended) {
    ++cycle_summaries_;
    ++cycle_appended_;
    Note(path + ": " + std::to_string(held.lines) + " line(s), " + std::to_string(held.bytes) +
         " bytes past the sandbox quota summarised in " + fields.entry_id);
  } else {
    ++stats_.entries_already_present;  // written before a crash
  }
  s->quota.Summarised();
  Touch(s->index);  // its checkpoint now holds a count of zero
}

void Engine::RememberWritten(std::string_view entry_id) {
  uint64_t key = 0;
  if (!entry_id_set::KeyOf(entry_id, &key)) return;  // never: every id here is derived
  if (written_keys_.size() < kWrittenIdsKept) {
    if (recent_ids_.InsertKey(key)) written_keys_.push_back(key);
    return;
  }
  if (!recent_ids_.InsertKey(key)) return;  // held already
  // Full: the oldest id leaves the set (unless it is this one again) and
  // the new one takes its place in the ring. (It may have left the set
  // already: the signer takes out an id it finds there, and a later
  // RememberWritten puts it back.)
  uint64_t& oldest = written_keys_[written_next_];
  if (oldest != key) recent_ids_.EraseKey(oldest);
  oldest = key;
  written_next_ = (written_next_ + 1) % kWrittenIdsKept;
}

}  // namespace tail_engine
