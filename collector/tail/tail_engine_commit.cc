// The commit path: each line validated and appended to the output (an entry
// already there from before a crash is skipped); then the output synced, and
// only then the checkpoints written; syslog last, for what is durable.
#include "tail/tail_engine.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "json_text.h"
#include "pipeline.h"
#include "tail/chain_head.h"
#include "tail/checkpoint_store.h"
#include "tail/tail_engine_support.h"
#include "watch_pattern.h"

namespace tail_engine {
namespace {

constexpr uint64_t kRejectionsPerSecond = 100;

// Up to this many checkpoints a cycle are fsynced one by one; more, by one syncfs.
constexpr size_t kFsyncEachUpTo = 4;

}  // namespace

void Engine::HandleItem(Source* s, const line_reader::Item& item, const ReadOrigin& from) {
  if (item.kind == line_reader::Item::Kind::kRejected) {
    Reject(s, item.offset, pipeline::ProblemOf(item.rejection),
           pipeline::RejectionReason(item, reader_->max_line_bytes()));
    return;
  }
  if (!AdmitLine(s, item.line.size() + 1)) return;  // past the quota: counted
  std::string reason;
  const pipeline::Origin origin{from.path, s->current.id, item.offset, &from.labels, {}};
  if (syslog_ != nullptr) previous_hash_ = out_->previous_hash();
  switch (ingest_->Line(item.line, origin, &reason)) {
    case pipeline::Outcome::kRejected: Reject(s, item.offset, ingest_->problem(), reason); return;
    case pipeline::Outcome::kOutputFailed: fatal_ = reason; return;
    case pipeline::Outcome::kAlreadyPresent:
      ++stats_.entries_already_present;  // written before a crash; exactly once
      RememberWritten(ingest_->entry().entry_id);
      return;
    case pipeline::Outcome::kAppended:
    case pipeline::Outcome::kValid: break;
  }
  // A new entry: nothing an earlier run wrote of this source lies past it.
  if (!replaying_from_.empty()) replaying_from_.erase(s->sandbox_id);
  ++cycle_appended_;  // counted as written once the sync has made it durable
  RememberWritten(ingest_->entry().entry_id);
  if (syslog_ != nullptr) {
    const audit_entry::AuditEntryFields& entry = ingest_->entry();
    forward_message::EntryFacts e;
    e.entry_id = entry.entry_id;
    e.event_type = entry.event_type;
    e.sandbox_id = s->sandbox_id;
    e.resource = ingest_->record().binary;
    e.outcome = entry.outcome;
    e.timestamp = entry.timestamp;
    e.previous_hash = previous_hash_;
    e.content_hash = out_->previous_hash();  // the entry just signed
    cycle_syslog_.push_back(std::move(e));
  }
}

void Engine::ReportRejectionsNotShown(bool at_exit) {
  const int64_t now = static_cast<int64_t>(time(nullptr));
  if (rejections_suppressed_ == 0 || (!at_exit && now == rejection_second_)) return;
  Warn(std::to_string(rejections_suppressed_) + " more rejected line(s) not shown (at most " +
       std::to_string(kRejectionsPerSecond) + " are shown per second)");
  rejections_suppressed_ = 0;
}

void Engine::Reject(Source* s, uint64_t offset, record_validator::Problem problem,
                    const std::string& reason) {
  ++stats_.lines_rejected;
  ++stats_.rejected_by_problem[static_cast<size_t>(problem)];
  const int64_t now = static_cast<int64_t>(time(nullptr));
  if (now != rejection_second_) {
    ReportRejectionsNotShown(false);
    rejection_second_ = now;
    rejections_this_second_ = 0;
    rejections_suppressed_ = 0;
  }
  if (++rejections_this_second_ > kRejectionsPerSecond) {
    ++rejections_suppressed_;
    return;
  }
  // "LOG: offset N:", not import's "LOG:LINE:": the run mode reads from
  // checkpoints and never counts lines, so it names the line's first byte.
  Warn(LogPath(*s) + ": offset " + std::to_string(offset) + ": rejected: " + reason);
}

bool Engine::LoadReplayWindow(std::string* err) {
  // The last cycle's entries and some: a cycle can overshoot its budget by
  // an item or two (one per file it touches after the budget is spent).
  std::vector<std::string> ids;
  uint64_t window_start = 0;
  if (!out_->RecentEntryIds(options_.max_entries_per_cycle + 256, &ids, err, &window_start)) {
    return false;
  }
  recent_ids_.insert(ids.begin(), ids.end());
  // A source can be further behind: kill -9 between the output's sync and
  // its checkpoint's rename, at each of several restarts, while other
  // sources' checkpoints landed and their new entries pushed its replayed
  // ones out of that window. Its entries since the output size its
  // checkpoint names are loaded too (none for a source with nothing past
  // its checkpoint; the scan reads from the oldest such size).
  std::vector<std::string> keys;
  if (!checkpoint_store::ListKeys(state_fd_.get(), &keys, err)) return false;
  const std::unordered_set<std::string> have_checkpoint(keys.begin(), keys.end());
  const chain_head::ChainHead& head = out_->durable_head();
  std::unordered_map<std::string, uint64_t> checkpoint_at;  // sandbox id -> output offset
  uint64_t scan_from = window_start;
  for (const std::string& key : keys) {
    checkpoint_store::Checkpoint c;
    std::string ignored;  // an unusable checkpoint is reported at Discover
    if (checkpoint_store::Load(state_fd_.get(), key, &c, &ignored) !=
        checkpoint_store::LoadResult::kLoaded) {
      continue;
    }
    // Written for another output file (before a SIGHUP's new one) or
    // before the field existed: every entry of this file may be past it.
    const uint64_t at =
        c.has_audit && c.audit_file == head.file && c.audit_size <= head.size ? c.audit_size : 0;
    checkpoint_at[key] = at;
    scan_from = std::min(scan_from, at);  // at or past the window: loaded with it
  }
  // A source with entries in the window and no checkpoint at all was killed
  // in its first cycle before its checkpoint landed. Unless it gets one now,
  // naming the window's start, its entries leave the window as other
  // sources append, and a later restart reads it from offset 0 and signs
  // them again. Keyed by sandbox id: the file its first entry came from.
  std::map<std::string, file_id::FileId> unrecorded;
  size_t loaded = 0;
  const bool ok = out_->ReadLinesFrom(
      scan_from,
      [&](uint64_t offset, std::string_view line) {
        // Only entries read from a log (data.source): the socket's and the
        // collector's own entries are never read again.
        rapidjson::Document doc;
        if (!json_text::Parse<0>(line, &doc) || !doc.IsObject()) return true;  // verified at start
        const auto sandbox = doc.FindMember("sandbox_id");
        const auto id = doc.FindMember("entry_id");
        const auto data = doc.FindMember("data");
        if (sandbox == doc.MemberEnd() || !sandbox->value.IsString() || id == doc.MemberEnd() ||
            !id->value.IsString() || data == doc.MemberEnd() || !data->value.IsObject()) {
          return true;
        }
        const auto source = data->value.FindMember("source");
        if (source == data->value.MemberEnd() || !source->value.IsObject()) return true;
        const std::string sandbox_id(sandbox->value.GetString(), sandbox->value.GetStringLength());
        // An entry past its source's checkpoint: the source reads it again
        // first, maybe over several cycles, and a checkpoint written in
        // between must still lead a later restart to it (Commit).
        const auto at = checkpoint_at.find(sandbox_id);
        if (at != checkpoint_at.end() && offset >= at->second) {
          replaying_from_.emplace(sandbox_id, at->second);
        }
        if (offset >= window_start) {
          const auto device = source->value.FindMember("device");
          const auto inode = source->value.FindMember("inode");
          if (!have_checkpoint.count(sandbox_id) && !unrecorded.count(sandbox_id) &&
              watch_pattern::IsPlausibleSandboxId(sandbox_id) &&
              device != source->value.MemberEnd() && device->value.IsUint64() &&
              inode != source->value.MemberEnd() && inode->value.IsUint64()) {
            unrecorded[sandbox_id] = {device->value.GetUint64(), inode->value.GetUint64()};
            replaying_from_.emplace(sandbox_id, window_start);  // its checkpoint's (below)
          }
          return true;
        }
        if (at != checkpoint_at.end() && offset >= at->second &&
            recent_ids_.insert(std::string(id->value.GetString(), id->value.GetStringLength()))
                .second) {
          ++loaded;
        }
        return true;
      },
      err);
  if (!ok) return false;
  if (loaded > 0) {
    Note("restart: " + std::to_string(loaded) +
         " older entries of sources behind their "
         "checkpoints are skipped if read again");
  }
  return RecordUnrecordedSources(unrecorded, window_start, err);
}

bool Engine::RecordUnrecordedSources(const std::map<std::string, file_id::FileId>& unrecorded,
                                     uint64_t window_start, std::string* err) {
  if (unrecorded.empty()) return true;
  // Offset 0 of that file, as a source with no checkpoint is read anyway (a
  // log rotated since is found beside it, as for any checkpoint), and the
  // window's start as the output size: every entry of it lies past that.
  checkpoint_store::Checkpoint c;
  checkpoint_store::HashBytes({}, {}, &c.hash_len, &c.sha256_hex);
  c.has_audit = true;
  c.audit_file = out_->durable_head().file;
  c.audit_size = window_start;
  // Staged, made durable by one syncfs, then renamed into place (as Commit).
  for (const auto& [sandbox_id, file] : unrecorded) {
    c.file = file;
    if (!checkpoint_store::Stage(state_fd_.get(), sandbox_id, c, false, err)) {
      *err = "checkpoint in " + options_.state_dir + ": " + *err;
      return false;
    }
  }
  if (!checkpoint_store::SyncFilesystem(state_fd_.get(), err)) return false;
  for (const auto& entry : unrecorded) {
    if (!checkpoint_store::Publish(state_fd_.get(), entry.first, err)) {
      *err = "checkpoint in " + options_.state_dir + ": " + *err;
      return false;
    }
  }
  if (!checkpoint_store::SyncDirectory(state_fd_.get(), err)) return false;
  Note("restart: " + std::to_string(unrecorded.size()) +
       " source(s) with entries in the output and no checkpoint (killed before their first "
       "landed) get one at offset 0");
  return true;
}

bool Engine::Commit(std::string* err) {
  if (!fatal_.empty()) {
    *err = fatal_;
    return false;
  }
  // 1. The entries are durable before any checkpoint that covers them.
  const bool head_moved = cycle_appended_ > 0;
  if (head_moved && !out_->Sync(err)) return false;
  stats_.entries_written += cycle_appended_;  // what the file holds: not what failed to land
  stats_.summaries_written += cycle_summaries_;
  cycle_appended_ = 0;
  cycle_summaries_ = 0;
  const chain_head::ChainHead& head = out_->durable_head();
  // 2. The chain head, which follows every durable append, and checkpoints
  //    for every source that moved: staged, made durable (one fsync each
  //    for a few, one syncfs for many), then renamed into place, the head
  //    first, and one fsync of the directory for all of them (three syncs a
  //    cycle, not five: the head had a fsync and a directory fsync of its own).
  //
  //    Until the directory's fsync returns a crash may keep any of the
  //    renames at its previous version; each version names only durable
  //    entries. A checkpoint that lands without the head it was written with
  //    names an output size past the head's: LoadReplayWindow then takes
  //    every entry of that file as possibly past it (never fewer than are).
  //    A head that lands without the checkpoints is the state after a crash
  //    between the sync and the checkpoints, which the replay window covers.
  std::vector<std::pair<uint32_t, checkpoint_store::Checkpoint>> moved;
  for (uint32_t index : touched_) {
    Source& s = sources_[index];
    if (!s.current.fd.ok()) continue;
    if (s.AtCheckpoint()) continue;
    checkpoint_store::Checkpoint c;
    c.file = s.current.id;
    c.position = s.current.pos;
    c.held = s.quota.held();
    c.has_audit = true;
    c.audit_file = head.file;
    c.audit_size = head.size;  // after this cycle's sync
    if (!replaying_from_.empty()) {
      // Still reading again what an earlier run wrote: the rest of it lies
      // before the output's size, so the checkpoint keeps naming where it
      // starts, or a restart after the next kill would not look there (its
      // replay window holds only the last cycle) and sign it twice.
      const auto replaying = replaying_from_.find(s.sandbox_id);
      if (replaying != replaying_from_.end()) {
        c.audit_size = std::min(c.audit_size, replaying->second);
      }
    }
    for (const LetGoLog& gone : s.let_go) {
      if (gone.id != file_id::FileId() && gone.id != c.file) {
        c.gone.push_back({gone.id, gone.pos.offset});
      }
    }
    std::string herr;
    if (s.current.hashed_at == c.position.offset && s.current.hashed_file == c.file) {
      // The bytes as they were read: a rewrite since (during the sync) is
      // seen at the next look, not vouched for here.
      c.hash_len = s.current.hash_len;
      c.sha256_hex = s.current.sha256_hex;
    } else if (!checkpoint_store::HashBefore(
                   s.current.fd.get(), c.position.offset, &c.hash_len, &c.sha256_hex, &herr,
                   checkpoint_store::HashWindowAt(c.position.offset, s.current.append_only_held))) {
      MarkDirty(index);  // changed under us (truncated since the read): look again
      continue;
    }
    moved.emplace_back(index, c);
  }
  const bool batch = moved.size() > kFsyncEachUpTo;
  if (head_moved && !chain_head::Stage(state_fd_.get(), head, !batch, err)) {
    *err = "chain head in " + options_.state_dir + ": " + *err;
    return false;
  }
  for (const auto& m : moved) {
    Source& s = sources_[m.first];
    if (!checkpoint_store::Stage(state_fd_.get(), s.sandbox_id, m.second, !batch, err,
                                 &s.checkpoint_sizes)) {
      *err = "checkpoint in " + options_.state_dir + ": " + *err;
      return false;
    }
  }
  if (batch && !checkpoint_store::SyncFilesystem(state_fd_.get(), err)) {
    return false;
  }
  if (head_moved && !chain_head::Publish(state_fd_.get(), err)) {
    *err = "chain head in " + options_.state_dir + ": " + *err;
    return false;
  }
  for (const auto& m : moved) {
    Source& s = sources_[m.first];
    if (!checkpoint_store::Publish(state_fd_.get(), s.sandbox_id, err, &s.checkpoint_sizes)) {
      *err = "checkpoint in " + options_.state_dir + ": " + *err;
      return false;
    }
    s.have_committed = true;
    s.committed = m.second;
  }
  if ((head_moved || !moved.empty()) && !checkpoint_store::SyncDirectory(state_fd_.get(), err)) {
    return false;
  }
  if (!moved.empty()) stats_.last_checkpoint_unix = static_cast<int64_t>(time(nullptr));
  for (uint32_t index : touched_) {
    Source& s = sources_[index];
    if (s.release_after_commit) s.current.fd.Reset();
    s.release_after_commit = false;
    s.touched = false;
  }
  touched_.clear();
  // 3. Syslog, best effort, only for what is durable.
  if (syslog_ != nullptr) {
    // RFC 5424 with the forwarded messages' structured data (no seq).
    std::string sd;
    for (const forward_message::EntryFacts& e : cycle_syslog_) {
      sd.clear();
      forward_message::AppendStructuredData(e, 0, &sd);
      syslog_->Send(e.event_type, sd,
                    "command_denied entry_id=" + e.entry_id + " sandbox_id=" + e.sandbox_id +
                        " binary=" + e.resource + " timestamp=" + e.timestamp);
    }
    std::string line;
    if (syslog_->TakeReport(&line, time(nullptr))) Warn(line);
  }
  cycle_syslog_.clear();
  cycle_entries_ = 0;
  ReportRejectionsNotShown(false);  // a second with no rejection after it still says so
  return true;
}

}  // namespace tail_engine
