// The engine's set-up and its cycle: Init, Pump (read what is marked while
// the last cycle's commit runs, then commit) and SIGHUP. Finding sandboxes is in
// tail_engine_discovery.cc, reading one source in tail_engine_source.cc, the output and checkpoints
// in tail_engine_commit.cc.
#include "tail/tail_engine.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "tail/chain_head.h"
#include "tail/checkpoint_store.h"
#include "tail/tail_engine_support.h"
#include "watch_pattern.h"

namespace tail_engine {
namespace {

// The shared read buffer starts at this size (grown on demand to a line).
constexpr size_t kReadChunk = 64 * 1024;

// Each source's share of a cycle is at least this many items, and a cycle
// serves sources for at most this long (the rest come first in the next).
constexpr size_t kMinItemsPerTurn = 64;
constexpr int64_t kCycleNs = kCycleMs * 1000000;

// Bytes of an open log after `pos` (0 when it shrank: the next look rereads it).
uint64_t UnreadIn(const unique_fd::UniqueFd& fd, const line_reader::Position& pos) {
  struct stat st;
  if (fstat(fd.get(), &st) != 0) return 0;
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  return size > pos.offset ? size - pos.offset : 0;
}

}  // namespace

Engine::Engine() = default;
Engine::~Engine() = default;

bool Engine::Init(const Options& options, audit_file::AuditFileWriter* out,
                  syslog_sender::SyslogSender* syslog, std::string* err) {
  options_ = options;
  out_ = out;
  syslog_ = syslog;
  if (options_.max_entries_per_cycle == 0) options_.max_entries_per_cycle = 1;
  for (const std::string& text : options_.patterns) {
    std::string why;
    if (!watch_pattern::IsValidWatchPattern(text, &why)) {
      *err = "--watch " + text + ": " + why;
      return false;
    }
    Pattern p;
    p.text = text;
    p.base = std::string(watch_pattern::PatternBaseDir(text));
    const size_t at = text.find(watch_pattern::kPlaceholder);
    p.suffix = text.substr(at + watch_pattern::kPlaceholder.size() + 1);
    const size_t slash = p.suffix.rfind('/');
    if (slash != std::string::npos) p.suffix_parent = p.suffix.substr(0, slash);
    p.log_name = slash == std::string::npos ? p.suffix : p.suffix.substr(slash + 1);
    patterns_.push_back(std::move(p));
  }
  if (options_.state_dir.empty()) {
    *err = "run needs --state-dir (or state_dir in the config)";
    return false;
  }
  if (mkdir(options_.state_dir.c_str(), 0700) != 0 && errno != EEXIST) {
    *err = logs::ErrnoReason("mkdir", options_.state_dir);
    return false;
  }
  state_fd_.Reset(open(options_.state_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!state_fd_.ok()) {
    *err = logs::ErrnoReason("open state directory", options_.state_dir);
    return false;
  }
  {
    checkpoint_journal::Found found;
    std::string jerr;
    switch (checkpoint_journal::Load(state_fd_.get(), &checkpoints_, &found, &jerr)) {
      case checkpoint_journal::LoadResult::kLoaded:
      case checkpoint_journal::LoadResult::kNone: break;
      case checkpoint_journal::LoadResult::kCorrupt:
        // Which sources it no longer vouches for is unknown: reading them
        // all from their start would sign again what left the replay window.
        *err = options_.state_dir + ": checkpoints unusable: " + jerr +
               " (move the state directory aside to read every log from its start)";
        return false;
      case checkpoint_journal::LoadResult::kError:
        *err = options_.state_dir + ": " + jerr;
        return false;
    }
    unusable_checkpoints_ = std::move(found.unusable);
    for (const auto& [key, text] : checkpoints_) {
      state_bytes_counted_ += checkpoint_journal::EntryBytes(key, text);
    }
    if (!journal_.Open(state_fd_.get(), found, &jerr)) {
      *err = "checkpoint in " + options_.state_dir + ": " + jerr;
      return false;
    }
  }
  std::string werr;
  if (!watcher_.Init(&werr)) {
    Warn(werr + "; every change is found by the periodic scan only");
  }
  if (!LoadReplayWindow(err)) return false;
  // The commit thread's eventfd now, before the logs can take every
  // descriptor (its thread starts at the first commit, once confined).
  std::string why;
  if (!commit_worker_.Prepare(&why)) Warn(why + "; the commit thread is tried again later");
  reader_.emplace(kReadChunk, options_.limits.max_line_bytes);
  ingest_.emplace(options_.limits, out_, &recent_ids_);
  for (Pattern& p : patterns_) OpenPatternBase(&p);
  return true;
}

std::string Engine::LogRelative(const Source& s) const {
  return s.sandbox_id + "/" + patterns_[s.pattern].suffix;
}

void Engine::ListSourceLogs(
    const std::function<void(const std::string& sandbox_id, const std::string& log)>& visit) const {
  for (const Source& s : sources_) {
    if (!s.retired) visit(s.sandbox_id, LogPath(s));
  }
}

std::string Engine::LogPath(const Source& s) const {
  const Pattern& p = patterns_[s.pattern];
  return (p.base == "/" ? "" : p.base) + "/" + LogRelative(s);
}

void Engine::MarkDirty(uint32_t index) {
  Source& s = sources_[index];
  if (s.dirty) return;
  s.dirty = true;
  dirty_.push_back(index);
}

void Engine::Touch(uint32_t index) {
  Source& s = sources_[index];
  if (s.touched) return;
  s.touched = true;
  touched_.push_back(index);
}

bool Engine::Report(Source* s, const std::string& problem, uint64_t ino) {
  if (s->problem == problem && s->problem_ino == ino) return false;
  s->problem = problem;
  s->problem_ino = ino;
  if (problem.rfind(s->sandbox_id + "/", 0) == 0) {
    Warn(patterns_[s->pattern].base + "/" + problem);
  } else {
    Warn(LogPath(*s) + ": " + problem);
  }
  return true;
}

bool Engine::Pump(std::string* err) {
  std::vector<uint32_t> work;
  work.swap(dirty_);
  // Round-robin: every marked source gets an equal share of the cycle; one
  // with more than its share is marked again (Look) and queued behind the
  // sources this cycle had no room for.
  const size_t share =
      std::max(kMinItemsPerTurn, options_.max_entries_per_cycle / std::max<size_t>(1, work.size()));
  const int64_t started = line_reader::MonotonicNs();
  if (cycle_started_ns_ == 0) cycle_started_ns_ = started;
  const int64_t cycle_end = cycle_started_ns_ + kCycleNs;
  size_t i = 0;
  for (; i < work.size() && cycle_entries_ < options_.max_entries_per_cycle && fatal_.empty();
       ++i) {
    const int64_t now = line_reader::MonotonicNs();
    if (i > 0 && now >= cycle_end) break;
    turn_items_left_ = share;
    turn_deadline_ns_ = std::min(cycle_end, now + options_.source_ms_per_turn * 1000000);
    Look(work[i]);
  }
  std::vector<uint32_t> served_again;
  served_again.swap(dirty_);
  dirty_.assign(work.begin() + static_cast<std::ptrdiff_t>(i), work.end());
  dirty_.insert(dirty_.end(), served_again.begin(), served_again.end());
  // The cycle goes on (the next Pump reads into it) while the last one's
  // commit runs and it has room; the loop polls commit_done_fd meanwhile.
  const bool full =
      cycle_entries_ >= options_.max_entries_per_cycle || line_reader::MonotonicNs() >= cycle_end;
  if (fatal_.empty() && commit_in_flight() && !CommitEnded() && !full) return true;
  return StartCommit(err);
}

bool Engine::CommitEnded() const { return !commit_worker_.in_flight() || commit_worker_.ended(); }

int Engine::commit_done_fd() const {
  return commit_in_flight() && commit_worker_.in_flight() ? commit_worker_.done_fd() : -1;
}

bool Engine::SettleCommit(std::string* err) {
  if (!commit_in_flight() || !CommitEnded()) return true;
  // StartCommit ends the one in flight first.
  return CyclePending() ? StartCommit(err) : EndCommit(err);
}

bool Engine::ReopenOutput(std::string* err) {
  if (!Commit(err)) return false;
  if (!out_->Reopen(err)) return false;
  // The head names the file now at the path (a new chain after logrotate).
  if (!chain_head::Save(state_fd_.get(), out_->durable_head(), err)) {
    *err = "chain head in " + options_.state_dir + ": " + *err;
    return false;
  }
  return true;
}

UnreadBytes Engine::Unread() const {
  UnreadBytes u;
  for (const Source& s : sources_) {
    if (s.retired) continue;
    if (s.lingering()) u.rotated += UnreadIn(s.rotation->linger.fd, s.rotation->linger.pos);
    if (s.current.fd.ok()) {
      (s.rotated_away ? u.rotated : u.open) += UnreadIn(s.current.fd, s.current.pos);
      continue;
    }
    // Not open: what the path holds beyond its checkpoint (all of it when
    // the checkpoint names another file). A refused path is not counted.
    const Pattern& p = patterns_[s.pattern];
    struct stat st;
    if (!s.problem.empty() || !p.base_fd.ok() ||
        fstatat(p.base_fd.get(), LogRelative(s).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(st.st_mode)) {
      continue;
    }
    uint64_t done = 0;
    if (s.have_committed && file_id::FileId::Of(st) == s.committed.file) {
      done = s.committed.position.offset;
    }
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    u.closed += size > done ? size - done : 0;
  }
  return u;
}

}  // namespace tail_engine
