// The commit path: each line validated and appended to the output (an entry
// already there from before a crash is skipped); then the output synced, and
// only then the checkpoints written; syslog last, for what is durable.
#include "tail/tail_engine.h"

#include <time.h>
#include <unistd.h>

#include <utility>
#include <vector>

#include "pipeline.h"
#include "tail/checkpoint_store.h"
#include "tail/tail_engine_support.h"

namespace tail_engine {
namespace {

constexpr uint64_t kRejectionsPerSecond = 100;

// Up to this many checkpoints a cycle are fsynced one by one; more, by one syncfs.
constexpr size_t kFsyncEachUpTo = 4;

}  // namespace

void Engine::HandleItem(Source* s, const line_reader::Item& item) {
  if (item.kind == line_reader::Item::Kind::kRejected) {
    Reject(s, item.offset, pipeline::ProblemOf(item.rejection),
           pipeline::RejectionReason(item, reader_->max_line_bytes()));
    return;
  }
  const std::string path = LogPath(*s);
  entry_mapper::SourceLabels labels;
  std::string reason;
  // Never fails: the run intake always knows the sandbox id (pipeline.h).
  pipeline::LabelsFor(options_.config, path, s->sandbox_id, &labels, &reason);
  const pipeline::Origin origin{path, s->current.id, item.offset, &labels};
  switch (ingest_->Line(item.line, origin, &reason)) {
    case pipeline::Outcome::kRejected:
      Reject(s, item.offset, ingest_->problem(), reason);
      return;
    case pipeline::Outcome::kOutputFailed:
      fatal_ = reason;
      return;
    case pipeline::Outcome::kAlreadyPresent:
      ++stats_.entries_already_present;  // written before a crash; exactly once
      return;
    case pipeline::Outcome::kAppended:
    case pipeline::Outcome::kValid:
      break;
  }
  ++stats_.entries_written;
  ++cycle_appended_;
  if (syslog_ != nullptr) {
    const audit_entry::AuditEntryFields& entry = ingest_->entry();
    cycle_syslog_.push_back(
        {entry.entry_id, s->sandbox_id, ingest_->record().binary, entry.timestamp});
  }
}

void Engine::Reject(Source* s, uint64_t offset, record_validator::Problem problem,
                    const std::string& reason) {
  ++stats_.lines_rejected;
  ++stats_.rejected_by_problem[static_cast<size_t>(problem)];
  const int64_t now = static_cast<int64_t>(time(nullptr));
  if (now != rejection_second_) {
    if (rejections_suppressed_ > 0) {
      Warn(std::to_string(rejections_suppressed_) +
           " more rejected line(s) not shown (at most " + std::to_string(kRejectionsPerSecond) +
           " are shown per second)");
    }
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

bool Engine::Commit(std::string* err) {
  if (!fatal_.empty()) {
    *err = fatal_;
    return false;
  }
  // 1. The entries are durable before any checkpoint that covers them.
  if (cycle_appended_ > 0 && !out_->Sync(err)) return false;
  cycle_appended_ = 0;
  // 2. Checkpoints for every source that moved: staged, made durable (one
  //    fsync each for a few, one syncfs for many), then renamed into place.
  std::vector<std::pair<uint32_t, checkpoint_store::Checkpoint>> moved;
  for (uint32_t index : touched_) {
    Source& s = sources_[index];
    if (!s.current.fd.ok()) continue;
    if (s.AtCheckpoint()) continue;
    checkpoint_store::Checkpoint c;
    c.file = s.current.id;
    c.position = s.current.pos;
    std::string herr;
    if (!checkpoint_store::HashBefore(s.current.fd.get(), c.position.offset, &c.hash_len,
                                      &c.sha256_hex, &herr)) {
      MarkDirty(index);  // changed under us (truncated since the read): look again
      continue;
    }
    moved.emplace_back(index, c);
  }
  const bool batch = moved.size() > kFsyncEachUpTo;
  for (const auto& m : moved) {
    if (!checkpoint_store::Stage(state_fd_.get(), sources_[m.first].sandbox_id, m.second, !batch,
                                 err)) {
      *err = "checkpoint in " + options_.state_dir + ": " + *err;
      return false;
    }
  }
  if (batch && !checkpoint_store::SyncFilesystem(state_fd_.get(), err)) {
    return false;
  }
  for (const auto& m : moved) {
    Source& s = sources_[m.first];
    if (!checkpoint_store::Publish(state_fd_.get(), s.sandbox_id, err)) {
      *err = "checkpoint in " + options_.state_dir + ": " + *err;
      return false;
    }
    s.have_committed = true;
    s.committed = m.second;
  }
  if (!moved.empty()) {
    if (!checkpoint_store::SyncDirectory(state_fd_.get(), err)) return false;
    stats_.last_checkpoint_unix = static_cast<int64_t>(time(nullptr));
  }
  for (uint32_t index : touched_) {
    Source& s = sources_[index];
    if (s.release_after_commit) s.current.fd.Reset();
    s.release_after_commit = false;
  }
  touched_.clear();
  // 3. Syslog, best effort, only for what is durable.
  if (syslog_ != nullptr) {
    for (const Syslogged& e : cycle_syslog_) {
      syslog_->Send("command_denied entry_id=" + e.entry_id + " sandbox_id=" + e.sandbox_id +
                    " binary=" + e.binary + " timestamp=" + e.timestamp);
    }
    std::string line;
    if (syslog_->TakeReport(&line, time(nullptr))) Warn(line);
  }
  cycle_syslog_.clear();
  cycle_entries_ = 0;
  return true;
}

}  // namespace tail_engine
