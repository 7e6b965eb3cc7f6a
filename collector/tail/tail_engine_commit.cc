// The commit path: each line validated and appended to the output (an entry
// already there from before a crash is skipped); then the output synced, and
// only then the checkpoints written; syslog last, for what is durable.
#include "tail/tail_engine.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <utility>
#include <vector>

#include "entry_mapper.h"
#include "tail/checkpoint_store.h"
#include "tail/tail_engine_support.h"

namespace tail_engine {
namespace {

constexpr uint64_t kRejectionsPerSecond = 100;

// Up to this many checkpoints a cycle are fsynced one by one; more, by one syncfs.
constexpr size_t kFsyncEachUpTo = 4;

}  // namespace

void Engine::HandleLine(Source* s, const line_reader::Item& item) {
  std::string reason;
  if (!record_validator::ValidateRecord(item.line, options_.limits, &record_, &reason)) {
    Reject(s, item.offset, reason);
    return;
  }
  const std::string path = LogPath(*s);
  entry_mapper::SourceLabels labels;
  std::string err;
  if (options_.config == nullptr || !config::LabelsForPath(*options_.config, path, &labels, &err)) {
    labels = config::LabelsForSandboxId(s->sandbox_id);
  }
  labels.sandbox_id = s->sandbox_id;
  entry_mapper::SourceRef ref;
  ref.file = path;
  ref.device = s->dev;
  ref.inode = s->ino;
  ref.offset = item.offset;
  entry_mapper::MapRecord(record_, labels, ref, &fields_);
  bool appended = false;
  if (!out_->AppendNew(&fields_, recent_ids_.empty() ? nullptr : &recent_ids_, &appended, &err)) {
    fatal_ = err;
    return;
  }
  if (!appended) {
    ++stats_.entries_already_present;  // written before a crash; exactly once
    return;
  }
  ++stats_.entries_written;
  ++cycle_appended_;
  if (syslog_ != nullptr) {
    cycle_syslog_.push_back({fields_.entry_id, s->sandbox_id, record_.binary, fields_.timestamp});
  }
}

void Engine::Reject(Source* s, uint64_t offset, const std::string& reason) {
  ++stats_.lines_rejected;
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
  Warn(LogPath(*s) + ":" + std::to_string(offset) + ": rejected: " + reason);
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
    if (s.fd < 0) continue;
    if (s.AtCheckpoint()) continue;
    checkpoint_store::Checkpoint c;
    c.dev = s.dev;
    c.ino = s.ino;
    c.offset = s.pos.offset;
    c.skipping_long_line = s.pos.skipping_long_line;
    std::string herr;
    if (!checkpoint_store::HashBefore(s.fd, c.offset, &c.hash_len, &c.sha256_hex, &herr)) {
      MarkDirty(index);  // changed under us (truncated since the read): look again
      continue;
    }
    moved.emplace_back(index, c);
  }
  const bool batch = moved.size() > kFsyncEachUpTo;
  for (const auto& m : moved) {
    if (!checkpoint_store::Stage(state_fd_, sources_[m.first].sandbox_id, m.second, !batch, err)) {
      *err = "agt-collector: error: checkpoint in " + options_.state_dir + ": " + *err;
      return false;
    }
  }
  if (batch && !checkpoint_store::SyncFilesystem(state_fd_, err)) {
    *err = "agt-collector: error: " + *err;
    return false;
  }
  for (const auto& m : moved) {
    Source& s = sources_[m.first];
    if (!checkpoint_store::Publish(state_fd_, s.sandbox_id, err)) {
      *err = "agt-collector: error: checkpoint in " + options_.state_dir + ": " + *err;
      return false;
    }
    s.have_committed = true;
    s.c_dev = m.second.dev;
    s.c_ino = m.second.ino;
    s.committed = s.pos;
    s.c_hash_len = m.second.hash_len;
    s.c_sha256 = m.second.sha256_hex;
  }
  if (!moved.empty() && !checkpoint_store::SyncDirectory(state_fd_, err)) {
    *err = "agt-collector: error: " + *err;
    return false;
  }
  for (uint32_t index : touched_) {
    Source& s = sources_[index];
    if (s.release_after_commit && s.fd >= 0) {
      close(s.fd);
      s.fd = -1;
    }
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
    if (syslog_->TakeReport(&line, time(nullptr))) fprintf(stderr, "%s\n", line.c_str());
  }
  cycle_syslog_.clear();
  cycle_entries_ = 0;
  return true;
}

}  // namespace tail_engine
