// The signed audit JSONL output file: one chain per file, resumed from the
// file's last line (as upstream's FileAuditSink does), appended with
// O_APPEND under an exclusive flock so two collectors never interleave.
#ifndef AGT_COLLECTOR_AUDIT_FILE_H_
#define AGT_COLLECTOR_AUDIT_FILE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "audit_entry.h"
#include "chain_signer.h"
#include "entry_id_set.h"
#include "sync_worker.h"
#include "synced_pages.h"
#include "tail/chain_head.h"
#include "unique_fd.h"

namespace audit_file {

class AuditFileWriter {
 public:
  AuditFileWriter() = default;
  ~AuditFileWriter();  // flushes (not fsyncs) what is pending, closes
  AuditFileWriter(const AuditFileWriter&) = delete;
  AuditFileWriter& operator=(const AuditFileWriter&) = delete;

  // Opens or creates `path` (mode 0600, O_APPEND|O_CLOEXEC|O_NOFOLLOW, a
  // regular file only), takes an exclusive flock, and resumes the chain from
  // the last line: that line must be canonical-hash-consistent and signed
  // with `key`, else Open fails (never starts a new chain silently).
  // Bytes after the last newline are the torn end of a write that a crash
  // (e.g. SIGKILL) cut short: never synced, so never checkpointed. They are
  // cut off (the file is truncated to its last complete line, which must
  // verify) and recovery_notice() says so; callers print it.
  bool Open(const std::string& path, std::string_view key, std::string* err);
  // Run mode: `durable_size` is where the chain head says the last durable
  // entry ends. A torn last line is cut only when it starts at or past it
  // (never synced, so no checkpoint covers it: its records are read again);
  // one that starts before it was cut by someone else, and is kept: Open
  // fails and says so.
  bool Open(const std::string& path, std::string_view key, uint64_t durable_size, std::string* err);
  // Non-empty after an Open() that removed a torn last line.
  const std::string& recovery_notice() const { return recovery_notice_; }

  // Signs `fields` onto the chain and queues the line. Lines are written in
  // batches; nothing is durable until Sync() returns true. For the tests:
  // the entry_id is used as given, so they choose the ids their files hold
  // (the collector itself appends through AppendNew, which derives them).
  bool Append(const audit_entry::AuditEntryFields& fields, std::string* err);
  // The collector's own entries: fields->entry_id is derived from the entry
  // (chain_signer.h) and stored. An id found in *already_written (may be
  // null) is erased from it and nothing is queued: *appended is false.
  bool AppendNew(audit_entry::AuditEntryFields* fields, entry_id_set::EntryIdSet* already_written,
                 bool* appended, std::string* err);

  // Writes the queued lines (one write loop; on failure the file is cut back
  // to its previous size so no partial line remains and the chain stays
  // where it was).
  bool Flush(std::string* err);
  // Flush + fdatasync: every Append() before this call is durable on return.
  // A background sync in flight is waited for first.
  bool Sync(std::string* err);

  // Group commit (run --listen): flushes and starts an fdatasync on a thread
  // of its own (sync_worker.h) covering every Append() so far, and returns at
  // once. While one is in flight nothing more is started: what is appended
  // meanwhile waits for the next call after SyncFinished(), so one sync
  // covers all of it. durable_head() and durable_appended() move only when a
  // sync has ended. When the thread cannot be started this syncs in line
  // (background_sync_problem() says why).
  //
  // A quick disk is synced in line instead: when the last fdatasync (in
  // line or on the thread) took less than kQuickSyncNs, about what handing
  // one to the thread costs (waking it, its end read back through the
  // eventfd: two thread switches), this returns with the entries durable.
  // A slow one sends the next back to the thread, so a disk that slows down
  // holds the caller up for one sync at most.
  bool SyncInBackground(std::string* err);
  static constexpr int64_t kQuickSyncNs = 50'000;
  // The last fdatasync was quicker than kQuickSyncNs (none yet: false).
  bool sync_is_quick() const { return last_sync_ns_ >= 0 && last_sync_ns_ < kQuickSyncNs; }
  // A caller with nothing else to do may sync in line (Sync()) instead of
  // handing the sync over and waiting for the thread anyway, when the last
  // fdatasync took less than its bound (none yet: false): a disk that slows
  // down holds it up for one sync at most, as above.
  bool last_sync_under(int64_t ns) const { return last_sync_ns_ >= 0 && last_sync_ns_ < ns; }
  // Readable when the background sync in flight has ended (-1: never started).
  int sync_done_fd() const { return worker_.done_fd(); }
  bool sync_in_flight() const { return worker_.in_flight(); }
  // Takes the background sync's end, if it has ended (`block`: waits for
  // it): the durable head moves to what it covered. False (*err) when the
  // fdatasync failed.
  bool SyncFinished(bool block, std::string* err);
  // Appends (since this writer was made, across Reopen) that are durable, and
  // that the sync in flight or the last one covers: callers waiting for
  // their entry compare entries_appended() taken after it with these.
  uint64_t durable_appended() const { return durable_appended_; }
  uint64_t sync_requested_appended() const { return requested_appended_; }
  const std::string& background_sync_problem() const { return background_problem_; }

  // The run mode's commit (tail_engine_commit.cc) syncs on a thread of its
  // own while the next cycle appends: BeginSync flushes and says what an
  // fdatasync of fd() started after it covers; SyncFd is that fdatasync
  // (any thread; the error worded as Sync's); after it succeeded, EndSync
  // moves the durable head there (forward only: a socket's sync may have
  // gone further meanwhile). Reopen and Close wait for neither: the caller
  // ends its sync first.
  struct SyncPoint {
    chain_head::ChainHead head;
    uint64_t appended = 0;  // entries_appended() it covers
  };
  bool BeginSync(SyncPoint* point, std::string* err);
  static bool SyncFd(int fd, const std::string& path, std::string* err);
  void EndSync(const SyncPoint& point);

  // Closes and opens the same path again (SIGHUP after logrotate): pending
  // lines are synced first; a fresh file starts a fresh chain.
  bool Reopen(std::string* err);
  // Closes the file; a background sync in flight is waited for first, and
  // false (*err) when it failed: the entries it covered are not durable.
  bool Close(std::string* err);

  // entry_ids of the last `max_entries` lines in the file (oldest first),
  // read from the end of the file. Run mode uses this on restart to skip
  // entries already written (exactly once).
  // *first_offset (may be null): where the oldest of them starts.
  bool RecentEntryIds(size_t max_entries, std::vector<std::string>* ids, std::string* err,
                      uint64_t* first_offset = nullptr);
  // Each complete line from byte `offset` (a line start) to the end, in
  // order, with the offset it starts at; one line in memory at a time.
  // `each` returning false stops the reading (not an error).
  bool ReadLinesFrom(uint64_t offset, const std::function<bool(uint64_t, std::string_view)>& each,
                     std::string* err);

  const std::string& path() const { return path_; }
  int fd() const { return fd_.get(); }  // read only, by the metrics (forward lag)
  // The file, its entries and size as of the last Sync() (or Open): what
  // the state directory records as the chain head.
  const chain_head::ChainHead& durable_head() const { return durable_; }
  const std::string& previous_hash() const { return signer_.previous_hash(); }
  uint64_t entries_appended() const { return entries_appended_; }
  size_t pending_bytes() const { return pending_used_; }

  // Batches grow to this many bytes before Append() writes them.
  static constexpr size_t kBatchBytes = 1 << 20;

 private:
  // Append and AppendNew: room in the batch for one more line.
  bool MakeRoom(const audit_entry::AuditEntryFields& fields, std::string* err);

  unique_fd::UniqueFd fd_;
  std::string path_;
  std::string key_;  // kept for Reopen(); never printed
  chain_signer::ChainSigner signer_;
  // The batch: lines are signed straight into it. It keeps its size (its
  // high-water mark) between batches; the first pending_used_ bytes count.
  std::string pending_;
  size_t pending_used_ = 0;
  std::string recovery_notice_;
  uint64_t entries_appended_ = 0;
  // Written to the file (flushed) so far, and queued in the batch.
  uint64_t file_entries_ = 0, file_size_ = 0, pending_entries_ = 0;
  chain_head::ChainHead durable_;
  // Group commit: the sync thread, and what its sync in flight covers.
  sync_worker::SyncWorker worker_;
  chain_head::ChainHead requested_;
  uint64_t requested_appended_ = 0, durable_appended_ = 0;
  std::string background_problem_;
  // How long the last fdatasync took (-1: none yet); the thread's own is
  // written by its job and read after its end is collected.
  int64_t last_sync_ns_ = -1, thread_sync_ns_ = -1;
  // What is durable leaves the page cache, but for a window at the end.
  synced_pages::SyncedPages synced_pages_;
};

// Reads the last complete line of the file open at `fd` (size `size`) into
// *line and sets *complete_size to the offset just past its '\n' (size when
// the file ends in '\n'; less when a torn line follows). A file without any
// '\n' gives an empty line and *complete_size 0.
bool ReadLastLine(int fd, const std::string& path, uint64_t size, std::string* line,
                  uint64_t* complete_size, std::string* err);

}  // namespace audit_file

#endif  // AGT_COLLECTOR_AUDIT_FILE_H_
