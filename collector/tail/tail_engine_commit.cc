// The commit path: each line validated and appended to the output (an entry
// already there from before a crash is skipped); then the output synced, and
// only then the checkpoints written, on the commit thread while the next
// cycle reads; syslog last, for what is durable.
#include "tail/tail_engine.h"

#include <errno.h>
#include <string.h>
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
#include "tail/state_batch.h"
#include "tail/tail_engine_support.h"
#include "watch_pattern.h"

namespace tail_engine {
namespace {

constexpr uint64_t kRejectionsPerSecond = 100;

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
  // The last two cycles' entries and some (ReplayWindowEntries): a crash
  // while one cycle's commit is in flight leaves that cycle's entries and
  // the next one's, appended meanwhile, with no checkpoint past them (and,
  // for the collector's own entries and a source with no checkpoint yet,
  // nothing but this window to find them by).
  std::vector<std::string> ids;
  uint64_t window_start = 0;
  if (!out_->RecentEntryIds(ReplayWindowEntries(options_.max_entries_per_cycle), &ids, err,
                            &window_start)) {
    return false;
  }
  for (const std::string& id : ids) recent_ids_.Insert(id);
  // A source can be further behind: kill -9 between the output's sync and
  // its checkpoint's rename, at each of several restarts, while other
  // sources' checkpoints landed and their new entries pushed its replayed
  // ones out of that window. Its entries since the output size its
  // checkpoint names are loaded too (none for a source with nothing past
  // its checkpoint; the scan reads from the oldest such size).
  std::unordered_set<std::string> have_checkpoint;
  for (const auto& [key, text] : checkpoints_) have_checkpoint.insert(key);
  for (const auto& [key, why] : unusable_checkpoints_) have_checkpoint.insert(key);
  const chain_head::ChainHead& head = out_->durable_head();
  std::unordered_map<std::string, uint64_t> checkpoint_at;  // sandbox id -> output offset
  uint64_t scan_from = window_start;
  for (const std::string& key : have_checkpoint) {
    checkpoint_store::Checkpoint c;
    std::string ignored;  // an unusable checkpoint is reported at Discover
    if (LoadCheckpoint(key, &c, &ignored) != checkpoint_store::LoadResult::kLoaded) continue;
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
            recent_ids_.Insert(
                std::string_view(id->value.GetString(), id->value.GetStringLength()))) {
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
  state_batch::Batch batch;
  const int64_t now_ns = RealtimeNs();
  for (const auto& [sandbox_id, file] : unrecorded) {
    state_batch::Checkpoint c;
    c.key = sandbox_id;
    c.value.file = file;
    checkpoint_store::HashBytes({}, {}, &c.value.hash_len, &c.value.sha256_hex);
    c.value.has_audit = true;
    c.value.audit_file = out_->durable_head().file;
    c.value.audit_size = window_start;
    c.value.written_ns = now_ns;
    batch.checkpoints.push_back(std::move(c));
  }
  if (!state_batch::Write(&journal_, state_fd_.get(), options_.state_dir, &batch, err)) {
    return false;
  }
  // Before any source is found: every one is kept as text.
  for (state_batch::Checkpoint& c : batch.checkpoints) RememberCheckpoint(&c, nullptr);
  if (!CompactJournalIfDue(err)) return false;
  Note("restart: " + std::to_string(unrecorded.size()) +
       " source(s) with entries in the output and no checkpoint (killed before their first "
       "landed) get one at offset 0");
  return true;
}

checkpoint_store::LoadResult Engine::LoadCheckpoint(const std::string& sandbox_id,
                                                    checkpoint_store::Checkpoint* c,
                                                    std::string* err) const {
  const auto text = checkpoints_.find(sandbox_id);
  if (text != checkpoints_.end()) {
    return checkpoint_store::Parse(sandbox_id + "'s checkpoint", text->second, c, err);
  }
  const auto unusable = unusable_checkpoints_.find(sandbox_id);
  if (unusable == unusable_checkpoints_.end()) return checkpoint_store::LoadResult::kNone;
  *err = unusable->second;
  return checkpoint_store::LoadResult::kCorrupt;
}

void Engine::RememberCheckpoint(state_batch::Checkpoint* written, Source* live) {
  unusable_checkpoints_.erase(written->key);
  if (live != nullptr) {
    live->have_committed = true;
    live->committed = std::move(written->value);
    checkpoints_.erase(written->key);  // older than this
    return;
  }
  checkpoints_[written->key] = checkpoint_store::Text(written->value);
}

bool Engine::CompactJournalIfDue(std::string* err) {
  if (!journal_.ShouldCompact(state_bytes_counted_)) return true;
  // Rare (the journal grows by a frame a cycle to several times the state),
  // and between commits: the commit thread is idle. Counted first, built
  // only when due, straight from the sources into a buffer of its size: at
  // 10,000 sources a frame is megabytes, not to be built to learn its size.
  size_t entries = 0;
  uint64_t bytes = 0;
  const auto each = [this](const auto& add) {
    for (const auto& [key, text] : checkpoints_) add(key, std::string_view(text));
    for (const Source& s : sources_) {
      if (s.retired || !s.have_committed || checkpoints_.count(s.sandbox_id) != 0) continue;
      add(s.sandbox_id, checkpoint_store::Text(s.committed));
    }
  };
  each([&](std::string_view key, std::string_view text) {
    ++entries;
    bytes += checkpoint_journal::EntryBytes(key, text);
  });
  state_bytes_counted_ = bytes;
  if (!journal_.ShouldCompact(state_bytes_counted_)) return true;  // the state grew since
  checkpoint_journal::FrameBuilder frame;
  frame.Reserve(1, bytes);
  each([&](std::string_view key, std::string_view text) { frame.Add(key, text); });
  if (!journal_.CompactTo(frame.empty() ? std::string() : frame.Finish(), err)) {
    *err = "checkpoint in " + options_.state_dir + ": " + *err;
    return false;
  }
  return true;
}

bool Engine::Commit(std::string* err) { return StartCommit(err) && EndCommit(err); }

bool Engine::StartCommit(std::string* err) {
  if (!fatal_.empty()) {
    *err = fatal_;
    return false;
  }
  // One commit at a time, in order: the last cycle's ends (durable, its
  // checkpoints in place) before this one's starts, so each cycle's
  // checkpoints see the sources as the one before left them.
  if (!EndCommit(err)) return false;
  Committing c;
  // 1. The entries are durable before any checkpoint that covers them: the
  //    sync starts after this flush, on the commit thread, and covers it.
  c.sync_audit = cycle_appended_ > 0;
  if (c.sync_audit) {
    if (!out_->BeginSync(&c.sync, err)) return false;
    c.audit_fd = out_->fd();
    c.audit_path = out_->path();
  }
  const chain_head::ChainHead& head = c.sync_audit ? c.sync.head : out_->durable_head();
  // 2. The chain head, which follows every durable append, and checkpoints
  //    for every source that moved, written as one batch (state_batch.h:
  //    the head written in place and fdatasynced, then one journal frame),
  //    after the sync and on the same thread.
  //
  //    A checkpoint that lands without the head it was written with names
  //    an output size past the head's: LoadReplayWindow then takes every
  //    entry of that file as possibly past it (never fewer than are). A
  //    head that lands without the checkpoints is the state after a crash
  //    between the sync and the checkpoints, which the replay window covers.
  c.batch.write_head = c.sync_audit;
  c.batch.head = head;
  const int64_t now_ns = RealtimeNs();
  for (uint32_t index : touched_) {
    Source& s = sources_[index];
    if (!s.current.fd.ok()) continue;
    if (s.AtCheckpoint()) continue;
    checkpoint_store::Checkpoint cp;
    cp.file = s.current.id;
    cp.position = s.current.pos;
    cp.held = s.quota.held();
    cp.has_audit = true;
    cp.audit_file = head.file;
    cp.audit_size = head.size;  // after this cycle's sync
    cp.written_ns = now_ns;     // after the read: a log rotated later has a later mtime
    if (!replaying_from_.empty()) {
      // Still reading again what an earlier run wrote: the rest of it lies
      // before the output's size, so the checkpoint keeps naming where it
      // starts, or a restart after the next kill would not look there (its
      // replay window holds only the last two cycles) and sign it twice.
      const auto replaying = replaying_from_.find(s.sandbox_id);
      if (replaying != replaying_from_.end()) {
        cp.audit_size = std::min(cp.audit_size, replaying->second);
      }
    }
    if (s.rotation != nullptr) {
      for (const LetGoLog& gone : s.rotation->let_go) {
        if (gone.id != file_id::FileId() && gone.id != cp.file) {
          cp.gone.push_back({gone.id, gone.pos.offset});
        }
      }
    }
    std::string herr;
    if (s.current.hashed_at == cp.position.offset && s.current.hashed_file == cp.file) {
      // The bytes as they were read: a rewrite since (during the sync) is
      // seen at the next look, not vouched for here.
      cp.hash_len = s.current.hash_len;
      cp.sha256_hex = s.current.sha256_hex;
    } else if (!checkpoint_store::HashBefore(s.current.fd.get(), cp.position.offset, &cp.hash_len,
                                             &cp.sha256_hex, &herr,
                                             checkpoint_store::HashWindowAt(
                                                 cp.position.offset, s.current.append_only_held))) {
      MarkDirty(index);  // changed under us (truncated since the read): look again
      continue;
    }
    c.batch.checkpoints.push_back({s.sandbox_id, std::move(cp)});
    c.sources.push_back(index);
  }
  // What the next cycle touches is its own: a source read again meanwhile
  // is a candidate of the next commit as well.
  for (uint32_t index : touched_) sources_[index].touched = false;
  c.touched.swap(touched_);
  c.appended = cycle_appended_;
  c.summaries = cycle_summaries_;
  c.syslog.swap(cycle_syslog_);
  cycle_appended_ = 0;
  cycle_summaries_ = 0;
  cycle_entries_ = 0;
  cycle_started_ns_ = 0;
  ReportRejectionsNotShown(false);  // a second with no rejection after it still says so
  committing_.emplace(std::move(c));
  // Nothing to wait for: what depends on its end is done now.
  if (!committing_->sync_audit && committing_->batch.empty()) return EndCommit(err);
  // The commit thread's whole job; it touches nothing but *job, the two
  // files' descriptors and the state directory.
  Committing* job = &*committing_;
  const int state_fd = state_fd_.get();
  const std::string state_dir = options_.state_dir;
  checkpoint_journal::Writer* journal = &journal_;
  auto waits = [job, journal, state_fd, state_dir] {
    if (job->sync_audit &&
        !audit_file::AuditFileWriter::SyncFd(job->audit_fd, job->audit_path, &job->error)) {
      return 1;
    }
    job->audit_synced = true;
    return state_batch::Write(journal, state_fd, state_dir, &job->batch, &job->error,
                              &job->error_number)
               ? 0
               : 1;
  };
  std::string why;
  if (!commit_worker_.Run(waits, &why)) {
    // No thread (out of memory or tasks): the waits in line, as before the
    // thread existed; said once.
    if (commit_thread_problem_.empty()) Warn(why + "; committing in line");
    commit_thread_problem_ = why;
    waits();
  }
  return true;
}

bool Engine::EndCommit(std::string* err) {
  if (!committing_) return true;
  int result = 0;
  if (commit_worker_.in_flight() && commit_worker_.Collect(true, &result) && result != 0 &&
      committing_->error.empty()) {
    committing_->error = std::string("the commit's end: ") + strerror(result);
  }
  Committing c = std::move(*committing_);
  committing_.reset();
  if (!c.error.empty() && c.audit_synced &&
      (c.error_number == EMFILE || c.error_number == ENFILE)) {
    // Out of descriptors on the commit thread: the reading meanwhile took
    // the last ones (a log of each sandbox open, at the limit). Staging
    // failed, so nothing of the batch is in place; it is written again
    // here, idle logs closed first, as the commit did before it had a
    // thread. Failing again is fatal, as it was then.
    ReleaseIdleFiles(nullptr, 64);
    c.error.clear();
    (void)state_batch::Write(&journal_, state_fd_.get(), options_.state_dir, &c.batch, &c.error);
  }
  // A failed sync, write or rename is fatal: nothing past it is trusted,
  // and the caller exits (the next start reads again from the checkpoints).
  if (!c.error.empty()) {
    *err = c.error;
    return false;
  }
  if (c.sync_audit) out_->EndSync(c.sync);
  stats_.entries_written += c.appended;  // what the file holds: not what failed to land
  stats_.summaries_written += c.summaries;
  for (size_t i = 0; i < c.sources.size(); ++i) {
    Source& s = sources_[c.sources[i]];
    state_batch::Checkpoint& written = c.batch.checkpoints[i];
    // The slot given to another sandbox meanwhile (RetireIfGone): its
    // checkpoint is kept as text, loaded when it is found again.
    const bool live = !s.retired && s.sandbox_id == written.key;
    RememberCheckpoint(&written, live ? &s : nullptr);
  }
  if (!c.sources.empty()) stats_.last_checkpoint_unix = static_cast<int64_t>(time(nullptr));
  if (!CompactJournalIfDue(err)) return false;
  for (uint32_t index : c.touched) {
    Source& s = sources_[index];
    // Read again since: what it read then is not checkpointed yet.
    if (s.touched) continue;
    if (s.release_after_commit) s.current.fd.Reset();
    s.release_after_commit = false;
  }
  // 3. Syslog, best effort, only for what is durable.
  if (syslog_ != nullptr) {
    // RFC 5424 with the forwarded messages' structured data (no seq).
    std::string sd;
    for (const forward_message::EntryFacts& e : c.syslog) {
      sd.clear();
      forward_message::AppendStructuredData(e, 0, &sd);
      syslog_->Send(e.event_type, sd,
                    "command_denied entry_id=" + e.entry_id + " sandbox_id=" + e.sandbox_id +
                        " binary=" + e.resource + " timestamp=" + e.timestamp);
    }
    std::string line;
    if (syslog_->TakeReport(&line, time(nullptr))) Warn(line);
  }
  return true;
}

}  // namespace tail_engine
