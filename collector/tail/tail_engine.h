// The run mode's engine: finds every sandbox log a watch pattern matches,
// follows each through rotation, truncation and replacement, and moves its
// records into the signed audit file exactly once.
//
// Exactly once, in order: lines are read, validated and appended; then the
// output is synced; only then are the checkpoints (position + identity +
// hash of the bytes before it) written. That commit runs on a thread of its
// own while the next cycle reads and appends (tail_engine_commit.cc), and
// one cycle's commit ends before the next one's starts. A crash before a
// cycle's checkpoints land replays what it and the cycle after it appended,
// and those entry_ids are skipped: the output's last entries (two cycles
// and some), and, for a source whose checkpoint is older than that (its
// renames failed to land again and again while other sources moved on),
// its entries since the output size its checkpoint names (LoadReplayWindow,
// tail_engine_commit.cc). A source killed before its first checkpoint
// landed gets one at restart, at offset 0, naming the window's start,
// before anything new is appended.
//
// Events come from inotify (one watch per pattern base and per sandbox
// directory); a periodic scan (fstat/fstatat per known file) catches whatever
// the event queue lost, so an overflow costs latency, never data.
//
// One class, one concern per file: tail_engine.cc (set-up and the cycle),
// tail_engine_discovery.cc (sandboxes found, inotify, the scan),
// tail_engine_source.cc (reading one log: resume, truncation, rotation),
// tail_engine_commit.cc (validate and append, sync, then checkpoints),
// tail_engine_quota.cc (each sandbox's rate and volume limit).
//
// Fair: each cycle serves the marked sources round-robin, each with a share
// of the cycle (entries, bytes, time); one that still has work goes to the
// back of the queue, so a flood or a sparse terabyte in one sandbox delays
// another's entries by at most one cycle.
#ifndef AGT_COLLECTOR_TAIL_TAIL_ENGINE_H_
#define AGT_COLLECTOR_TAIL_TAIL_ENGINE_H_

#include <stdint.h>

#include <array>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "audit_file.h"
#include "collector_events.h"
#include "config.h"
#include "entry_id_set.h"
#include "file_id.h"
#include "forward/forward_message.h"
#include "pipeline.h"
#include "record_validator.h"
#include "sync_worker.h"
#include "tail/checkpoint_journal.h"
#include "tail/checkpoint_store.h"
#include "tail/inotify_watcher.h"
#include "tail/line_reader.h"
#include "tail/sandbox_quota.h"
#include "tail/state_batch.h"
#include "tail/syslog_sender.h"
#include "unique_fd.h"

namespace tail_engine {

// A cycle serves sources for at most this long before it commits (the
// batch's time bound, beside Options::max_entries_per_cycle).
constexpr int64_t kCycleMs = 100;

// Entries of the output's end a restart skips if read again: what no
// checkpoint covers after a crash. That is two cycles (one whose commit was
// in flight, and the next, appended meanwhile), each at most
// max_entries_per_cycle and an item or two over it per file it touched
// after its budget was spent (the slack).
constexpr size_t kReplaySlackPerCycle = 256;
inline size_t ReplayWindowEntries(size_t max_entries_per_cycle) {
  return 2 * (max_entries_per_cycle + kReplaySlackPerCycle);
}

struct Options {
  std::vector<std::string> patterns;  // absolute, one {sandbox_id} component each
  std::string state_dir;
  record_validator::Limits limits;
  const config::Config* config = nullptr;  // labels per source; null: defaults
  size_t max_entries_per_cycle = 4096;  // the restart's window is two cycles' (ReplayWindowEntries)
  // Create each sandbox's log and mark every log append-only where the file
  // system allows (tail_engine_guard.cc); off: logs are only read.
  bool append_only_logs = true;
  // Per source and cycle: at most this many bytes read (a hole jumped costs
  // nothing) and this long spent, so one file cannot hold a cycle.
  uint64_t source_bytes_per_turn = 1u << 20;
  int64_t source_ms_per_turn = 20;
  // Per sandbox: lines past these are counted into one summary entry per window.
  sandbox_quota::Limits quota;
};

struct Stats {
  uint64_t entries_written = 0;          // made durable (synced): what the audit file holds
  uint64_t entries_already_present = 0;  // skipped on replay after a restart
  uint64_t lines_rejected = 0;
  uint64_t lines_held = 0;         // past a sandbox's quota: counted, not written one by one
  uint64_t summaries_written = 0;  // sandbox_quota_exceeded entries
  // lines_rejected by kind, indexed by record_validator::Problem.
  std::array<uint64_t, static_cast<size_t>(record_validator::Problem::kProblemCount)>
      rejected_by_problem{};
  uint64_t sources = 0;
  uint64_t watches = 0;
  uint64_t logs_suppressed = 0;      // suppressions recorded (an entry each, or counted into one)
  uint64_t logs_restored = 0;        // of those, logs the collector put back
  int64_t last_checkpoint_unix = 0;  // wall clock of the last checkpoint written; 0: none yet
};

// Bytes in the sandboxes' logs not read yet, by the state of the file that
// holds them (the metrics' `state` label).
struct UnreadBytes {
  uint64_t open = 0;     // a sandbox's current log, open for reading
  uint64_t rotated = 0;  // a rotated-away log still open until its wait ends
  uint64_t closed = 0;   // a log not open now (let go at the fd limit, or not yet opened)
};

class Engine {
 public:
  Engine();
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // `out` is open; `syslog` may be null. Loads the de-duplication window
  // from the output, opens the state directory and the inotify instance.
  bool Init(const Options& options, audit_file::AuditFileWriter* out,
            syslog_sender::SyslogSender* syslog, std::string* err);

  int inotify_fd() const { return watcher_.fd(); }

  // Drains the inotify queue and marks what it names for a look.
  void HandleInotify();
  // The reconciliation scan: new sandboxes, changed or replaced files (every
  // source without an inotify watch each time; watched ones every 10th scan
  // and after a queue overflow).
  void Scan();
  // Reads what is marked and appends it to the cycle, while the last
  // cycle's commit runs. The cycle's commit (sync, then checkpoints) starts
  // as soon as that one has ended (here or in SettleCommit), so the commit
  // thread is never idle while entries wait; a full cycle (its records or
  // its time) waits here for the one in flight. Pump never waits for its
  // own cycle's commit: the caller polls commit_done_fd.
  // False only on a fatal output or state error (*err says which).
  bool Pump(std::string* err);
  bool HasWork() const { return !dirty_.empty(); }
  // A cycle's commit is on the commit thread: the chain head file is its
  // until it ends (the caller saves no head of its own meanwhile).
  bool commit_in_flight() const { return committing_.has_value(); }
  // Readable once the commit in flight has ended; -1 when none runs.
  int commit_done_fd() const;
  // If the commit in flight has ended (no wait): what depends on it being
  // durable is done, and the next commit starts for what was read since.
  bool SettleCommit(std::string* err);
  // Everything read so far made durable and checkpointed (waits for it).
  bool Commit(std::string* err);

  // SIGHUP: sync, then reopen the output path (a new file starts a new chain).
  bool ReopenOutput(std::string* err);

  // SIGUSR1: the operator's rotation of the append-only logs. Each is read
  // to its end and committed, its attribute cleared for the rename to
  // LOG.YYYYmmddTHHMMSSZ and set again (the rotated file stays append-only),
  // and a fresh append-only log is created in its place.
  bool RotateLogs(std::string* err);
  // "append-only: N of M logs" and, where it could not be set, which and why
  // (the first few): for the start line.
  std::string AppendOnlySummary() const;

  const Stats& stats() const { return stats_; }
  // On the way out: every counted suppression written, then committed.
  bool FinishSuppressions(std::string* err);
  // "N more rejected line(s) not shown" for the rejections past the
  // per-second limit, once their second is over (or now, at_exit).
  void ReportRejectionsNotShown(bool at_exit);
  // One fstat per open log (sizes the scan saw for closed ones): for metrics.
  UnreadBytes Unread() const;
  // Each sandbox watched and its log's path (its checkpoint is named by
  // the sandbox id), one at a time: for `agt-collector status`
  // (run_status.h), which writes them as they come.
  void ListSourceLogs(const std::function<void(const std::string& sandbox_id,
                                               const std::string& log)>& visit) const;

 private:
  struct Pattern {
    std::string text;
    std::string base;           // directory before {sandbox_id}
    std::string suffix;         // after "{sandbox_id}/", e.g. "denied.log"
    std::string suffix_parent;  // directory part of suffix ("" when none)
    std::string log_name;       // last component of suffix
    unique_fd::UniqueFd base_fd;
    int base_wd = -1;
    int64_t base_mtime_ns = -1;  // listing is redone only when this changes
  };

  // A log file open for reading: the descriptor, which file it is, and how
  // far it has been read.
  struct OpenLog {
    unique_fd::UniqueFd fd;
    file_id::FileId id;
    line_reader::Position pos;
    // The hash of the bytes before pos as the reader saw them (valid when
    // hashed_file == id and hashed_at == pos.offset): the checkpoint vouches
    // for what was read, even if the file is rewritten before it is written.
    uint64_t hashed_at = UINT64_MAX;
    file_id::FileId hashed_file;
    uint32_t hash_len = 0;
    std::string sha256_hex;
    // FS_APPEND_FL was set on this file at its last look and the collector
    // has not cleared it since (RotateLog): ValidateStillSame skips the
    // hash of the bytes before the offset (tail_engine_source.cc says why).
    bool append_only_held = false;
  };

  // A file of a sandbox's log that was read and then let go (after its
  // rotation's wait, or when another rotated file took its place): where
  // reading it stopped. An inotify rename event can name such a file after
  // it was let go; it is then read on from there, never again from offset 0.
  struct LetGoLog {
    file_id::FileId id;
    line_reader::Position pos;
  };
  static constexpr size_t kLetGoRemembered = 4;

  // One sandbox's log. Small and fixed: no buffers; the read buffer is shared.
  struct Source {
    std::string sandbox_id;
    bool retired = false;  // a free slot (the sandbox directory is gone)
    uint32_t pattern = 0;
    uint32_t index = 0;  // in sources_
    int wd = -1;         // inotify watch on the log's directory
    bool dirty = false;
    bool touched = false;  // in touched_ (this cycle's checkpoint candidates)
    bool watch_tried = false;
    // The file being read, and whether the watched path now names another
    // (so it is drained to its end and then let go).
    OpenLog current;
    bool rotated_away = false;
    bool release_after_commit = false;  // deleted: close once checkpointed
    // The path may name something else than at the last look: an event
    // other than an append came (a name in the log's directory or the base
    // directory, an attribute, the directory itself), the watch is new, or
    // a full scan is due. Until then a look of a watched log does not state
    // its path (Look).
    bool path_check_due = true;
    // What rotations leave behind. Most sandboxes never rotate their log,
    // so it is held apart, made at the first rotation or file let go: inline
    // it would be about 330 bytes a sandbox, 3 MB at 10,000.
    struct Rotation {
      // Names the log was renamed to (inotify IN_MOVED_FROM/TO pairs), oldest
      // first: a file rotated again before it was looked at is still read.
      std::vector<std::string> rotated_names;
      // The previous file, kept open a few seconds after a rotation.
      OpenLog linger;
      int64_t linger_until_ms = 0;
      // The last files let go, newest at let_go_next - 1 (a ring).
      std::array<LetGoLog, kLetGoRemembered> let_go{};
      uint8_t let_go_next = 0;
    };
    std::unique_ptr<Rotation> rotation;  // null: never rotated, nothing let go
    Rotation& rotated() {
      if (rotation == nullptr) rotation = std::make_unique<Rotation>();
      return *rotation;
    }
    bool lingering() const { return rotation != nullptr && rotation->linger.fd.ok(); }
    int64_t seen_size = -1, seen_mtime_ns = -1;
    // What the checkpoint on disk says.
    bool have_committed = false;
    bool resume_pending = false;  // checkpoint loaded, file not yet matched
    checkpoint_store::Checkpoint committed;
    // Read exactly up to what the checkpoint says: nothing to checkpoint,
    // and the file can be let go and resumed later.
    bool AtCheckpoint() const {
      return have_committed && committed.file == current.id && committed.position == current.pos &&
             committed.held == quota.held();
    }
    sandbox_quota::Quota quota;
    // Something refused or failing at the path, reported once until it changes.
    std::string problem;
    uint64_t problem_ino = 0;
    bool two_patterns_reported = false;  // its id matches a second pattern: said once
    // The log's append-only attribute and what the sandbox did to its log
    // (tail_engine_guard.cc).
    struct Guard {
      bool tried = false;     // the attribute was tried on this sandbox's log
      bool owned = false;     // set: the collector owns the log (creates, restores)
      std::string why_not;    // when tried and not set
      uint32_t dir_mode = 0;  // the log directory's mode when claimed: restored
      // The log directory's mode is stated only when it may have changed:
      // an event on the directory itself (IN_ATTRIB for a chmod, a move, a
      // removal) or on its name in the pattern base, a full scan, a lost
      // event queue, no watch at all, or a mode still wrong at the last
      // look. One path lookup less per look under load (GuardLog).
      bool dir_check_due = true;
      std::string mode_reported;  // the unusable mode last recorded ("" when none)
      file_id::FileId removed;    // the last file found unlinked, recorded once
      // Suppression entries go through the sandbox's quota window: of each
      // kind, the first in a window is written at once, the rest are
      // counted into one entry when the window ends (a sandbox flipping its
      // directory's mode costs a counter, not an entry per look).
      struct Repeats {
        int64_t window = -1;          // the quota window of the last one written
        uint64_t count = 0;           // seen since, not yet written
        std::string found, restored;  // the last of those
      };
      std::map<std::string, Repeats> repeats;  // by kind
    } guard;
  };

  void OpenPatternBase(Pattern* p);
  void ListBase(uint32_t pattern_index);
  Source* Discover(uint32_t pattern_index, const std::string& sandbox_id);
  void AddSourceWatch(uint32_t source_index);
  void MarkDirty(uint32_t source_index);
  // Makes the source a checkpoint candidate of this cycle (once: a flag, not
  // a search of touched_, which at 10,000 sources was quadratic per cycle).
  void Touch(uint32_t source_index);
  bool CheapCheck(Source* s);
  void Look(uint32_t source_index);
  line_reader::ReadResult ReadItems(Source* s, std::string* err);
  void ReadLinger(uint32_t source_index);
  void OpenCurrent(Source* s);
  bool TakeRotatedName(Source* s);
  // Remembers where reading `log` stopped as it is let go (no-op when closed).
  static void LetGo(Source* s, const OpenLog& log);
  size_t ReleaseIdleFiles(const Source* except, size_t want);
  void RetireIfGone(uint32_t index);
  bool ResumeFromRotated(Source* s, file_id::FileId now_at_path);
  // Of the LOG.* names in dir_fd, the files changed after the source's
  // checkpoint was written (so never read), oldest first.
  std::vector<std::string> UnreadSiblings(const Source& s, int dir_fd,
                                          const std::vector<std::string>& names,
                                          file_id::FileId now_at_path);
  void ValidateStillSame(Source* s);
  // Nothing to read at the source's position (the size just seen is its
  // offset, and the hash before it is kept from the read that got there).
  static bool NothingNew(const Source& s);
  void ReadSource(Source* s, size_t* budget);
  // What every line of one Read is stamped with, worked out once per Read
  // (not per line: the path and the labels are the same for all of them).
  struct ReadOrigin {
    std::string path;
    entry_mapper::SourceLabels labels;
  };
  // One item read: a line goes through the pipeline, a rejected run is reported.
  void HandleItem(Source* s, const line_reader::Item& item, const ReadOrigin& from);
  void Reject(Source* s, uint64_t offset, record_validator::Problem problem,
              const std::string& reason);
  // The sandbox's quota (tail_engine_quota.cc): whether a line is written,
  // and the summary of the held-back lines once their window has ended.
  bool AdmitLine(Source* s, uint64_t bytes);
  void SummariseIfDue(Source* s);
  // Entry ids written by this run, newest last (bounded): a file read again
  // (truncated and rewritten with the same bytes) never signs an id twice.
  void RememberWritten(std::string_view entry_id);
  // The cycle's end: what it appended made durable and its sources
  // checkpointed. Commit does it all before returning (SIGHUP, SIGUSR1, the
  // way out); Pump and SettleCommit start it (StartCommit) and end it
  // (EndCommit) once it has ended, or when the next cycle is full.
  // Snapshots what the commit needs on this thread and hands the waits to
  // the commit thread (or does them here when it cannot start).
  bool StartCommit(std::string* err);
  // Waits for the commit in flight (if any), then does what depends on it
  // being durable. False: it failed (*err), and nothing past it is trusted.
  bool EndCommit(std::string* err);
  // The commit in flight has ended (or had nothing to wait for): EndCommit
  // will not wait.
  bool CommitEnded() const;
  // The cycle has read something its commit must make durable or checkpoint.
  bool CyclePending() const { return cycle_appended_ > 0 || !touched_.empty(); }
  // The checkpoint the state directory holds for a sandbox (checkpoints_).
  checkpoint_store::LoadResult LoadCheckpoint(const std::string& sandbox_id,
                                              checkpoint_store::Checkpoint* c,
                                              std::string* err) const;
  // After a batch is durable: a checkpoint of a live source is its
  // `committed` (sources_[index]; none: written for a slot let go), any
  // other's text is kept in checkpoints_.
  void RememberCheckpoint(state_batch::Checkpoint* written, Source* live);
  // Between commits: the journal is compacted when it has grown well past
  // the state it holds.
  bool CompactJournalIfDue(std::string* err);
  // Init: the entry ids a restart may read again (recent_ids_).
  bool LoadReplayWindow(std::string* err);
  // Init: a checkpoint at offset 0 for each source with entries in the
  // replay window and none of its own (LoadReplayWindow says why).
  bool RecordUnrecordedSources(const std::map<std::string, file_id::FileId>& unrecorded,
                               uint64_t window_start, std::string* err);
  // True when said now (a problem not reported before for this object).
  bool Report(Source* s, const std::string& problem, uint64_t ino);
  void ClearProblem(Source* s) {
    s->problem.clear();
    s->problem_ino = 0;
  }
  std::string LogPath(const Source& s) const;
  // tail_engine_guard.cc: the log made append-only, and suppression as evidence.
  void ClaimLog(Source* s);
  // Reads `fd` from offset 0 as the source's lingering file (the way a
  // rotated file is drained); false when another file lingers already.
  bool LingerOn(Source* s, unique_fd::UniqueFd fd);
  void ProtectOpened(Source* s, int fd);
  // log_st: the log's path stated without following a link (null: nothing there).
  void GuardLog(Source* s, const struct stat* log_st);
  // `kind`: what the quota window counts by ("mode": any mode; "removed";
  // or what was found in the log's place, each object type its own).
  void Suppressed(Source* s, const std::string& kind, const std::string& found,
                  const std::string& restored);
  void WriteSuppression(Source* s, const collector_events::Suppression& what);
  // The counted suppressions of windows that have ended (all, at_exit).
  void SummariseSuppressions(Source* s, bool at_exit);
  void RefusedAtPath(Source* s, const std::string& reason);
  void NoticeRemoved(Source* s, const OpenLog& log);
  bool RotateLog(uint32_t index, std::string* err);
  std::string LogRelative(const Source& s) const;

  Options options_;
  audit_file::AuditFileWriter* out_ = nullptr;
  syslog_sender::SyslogSender* syslog_ = nullptr;
  unique_fd::UniqueFd state_fd_;
  // The state directory's checkpoints (the journal over an older version's
  // files) are each source's Source::committed, and, in checkpoints_, the
  // text of every key with no live source (all of them until Discover finds
  // them): no second copy of the live ones is held. checkpoints_ also holds
  // a live key whose newer checkpoint was written for a slot let go before
  // Discover found it again; that text wins over the source's at a
  // compaction. The main thread's: the commit thread only appends frames
  // to journal_, handed to it with the batch.
  checkpoint_journal::Writer journal_;
  checkpoint_journal::State checkpoints_;
  // The state's size in a compacted journal when last counted (counted
  // again only when the journal has grown past what it warrants).
  uint64_t state_bytes_counted_ = 0;
  std::map<std::string, std::string> unusable_checkpoints_;  // KEY.checkpoint -> why
  inotify_watcher::Watcher watcher_;
  bool watch_limit_reported_ = false;
  bool force_full_scan_ = true;
  bool fd_pressure_reported_ = false;
  size_t release_cursor_ = 0;
  uint32_t scan_count_ = 0;
  std::vector<Pattern> patterns_;
  // A deque: sources never move as more are found. A vector's growth held
  // the old array and the new one at once, 5 MB more at 10,000 sandboxes.
  std::deque<Source> sources_;
  std::vector<uint32_t> free_slots_;
  std::unordered_map<std::string, uint32_t> by_id_;
  std::unordered_map<int, int64_t> by_wd_;  // >= 0: source; < 0: -(pattern + 1)
  std::vector<uint32_t> dirty_;
  std::vector<uint32_t> touched_;  // read this cycle: checkpoint candidates
  entry_id_set::EntryIdSet recent_ids_;
  // RememberWritten's ids, oldest at written_next_ once full: its bound.
  std::vector<uint64_t> written_keys_;
  size_t written_next_ = 0;
  // Sandbox id -> the output offset from which an earlier run's entries of
  // that source lie past its checkpoint (LoadReplayWindow), until the source
  // appends an entry of its own: its checkpoints keep naming that offset.
  std::unordered_map<std::string, uint64_t> replaying_from_;
  size_t turn_items_left_ = 0;                           // the current source's share of this cycle
  int64_t turn_deadline_ns_ = 0;                         // and its time (line_reader::MonotonicNs)
  std::unordered_map<uint32_t, uint32_t> move_cookies_;  // IN_MOVED_FROM cookie -> source
  std::vector<forward_message::EntryFacts> cycle_syslog_;  // durable at Commit: then sent
  std::string previous_hash_;  // the chain's head before the line being ingested
  size_t cycle_entries_ = 0;
  int64_t cycle_started_ns_ = 0;  // the cycle's first read (0: none yet)
  size_t cycle_appended_ = 0;     // appended this cycle, not yet synced
  size_t cycle_summaries_ = 0;    // of which quota summaries
  std::string fatal_;             // an output error met while reading; Pump returns it
  // A cycle's commit, from StartCommit to EndCommit. Between the two only
  // the commit thread touches `sync`, `batch` and `error` (handed over and
  // back by the worker's lock); the rest is the main thread's.
  struct Committing {
    // The commit thread's part: the audit file's fdatasync (when
    // sync_audit), then the state directory's batch; `error` (and the
    // failed call's errno) when either failed.
    bool sync_audit = false;
    int audit_fd = -1;
    std::string audit_path;
    audit_file::AuditFileWriter::SyncPoint sync;
    state_batch::Batch batch;
    bool audit_synced = false;
    std::string error;
    int error_number = 0;
    // Done once it is durable: batch.checkpoints[i] is source sources[i]'s.
    std::vector<uint32_t> sources;
    std::vector<uint32_t> touched;  // the cycle's sources (release_after_commit)
    size_t appended = 0, summaries = 0;
    std::vector<forward_message::EntryFacts> syslog;
  };
  std::optional<Committing> committing_;
  std::string commit_thread_problem_;  // why the commit thread could not start ("" when it did)
  std::optional<line_reader::Reader> reader_;
  std::optional<pipeline::Ingest> ingest_;
  Stats stats_;
  uint64_t rejections_this_second_ = 0;
  int64_t rejection_second_ = 0;
  uint64_t rejections_suppressed_ = 0;
  // Last: stopped (the commit in flight waited for) before anything it uses.
  sync_worker::SyncWorker commit_worker_;
};

}  // namespace tail_engine

#endif  // AGT_COLLECTOR_TAIL_TAIL_ENGINE_H_
