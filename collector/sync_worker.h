// One job at a time on a small thread of its own, so the run loop keeps
// accepting, reading, attesting and appending while the disk syncs: the
// audit file's fdatasync (group commit: audit_file.h, SyncInBackground), or
// the run mode's commit of a cycle (tail_engine_commit.cc: the audit file's
// fdatasync, then the checkpoints). The caller learns of the end through an
// eventfd it can poll, and must keep whatever the job uses (descriptors,
// its data) untouched while it is in flight (Collect(true, ...) first).
//
// The thread starts at the first request, after the run mode confined
// itself: it inherits the same seccomp filter and Landlock domain
// (syscall_allowlist.cc allows clone for a thread, nothing more), and its
// jobs make only calls the main thread makes too.
#ifndef AGT_COLLECTOR_SYNC_WORKER_H_
#define AGT_COLLECTOR_SYNC_WORKER_H_

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "unique_fd.h"

namespace sync_worker {

class SyncWorker {
 public:
  SyncWorker() = default;
  ~SyncWorker();  // waits for a sync in flight, then stops the thread
  SyncWorker(const SyncWorker&) = delete;
  SyncWorker& operator=(const SyncWorker&) = delete;

  // Starts `job` on the thread (started on first use); what it returns is
  // Collect's *error (0: done). False, with *err, when the thread cannot be
  // started: the caller does the job in line. Only when !in_flight().
  bool Run(std::function<int()> job, std::string* err);
  // Makes the eventfd now (the thread still starts at the first request):
  // a caller that may run short of descriptors later takes it early.
  bool Prepare(std::string* err);
  bool in_flight() const { return in_flight_; }
  // The job in flight has ended (Collect will not wait); no system call.
  bool ended() const { return in_flight_ && ended_.load(std::memory_order_acquire); }
  // Readable once the sync in flight has ended (-1 before the first Run or Prepare).
  int done_fd() const { return done_.get(); }
  // When the sync in flight has ended: true, *error its errno (0: durable).
  // `block`: waits for it. False while it still runs (or none is in flight);
  // without `block`, that costs no system call.
  bool Collect(bool block, int* error);

 private:
  void Main();

  unique_fd::UniqueFd done_;  // an eventfd: one count per finished sync
  std::thread thread_;
  bool in_flight_ = false;  // the caller's view; only the caller touches it
  // Set by the thread when the job has ended, before the eventfd is written.
  std::atomic<bool> ended_{false};
  std::mutex mu_;
  std::condition_variable wake_;
  std::function<int()> job_;  // guarded by mu_: the job asked for (empty: none)
  int result_ = 0;            // guarded by mu_: what the last job returned
  bool stopping_ = false;     // guarded by mu_
};

}  // namespace sync_worker

#endif  // AGT_COLLECTOR_SYNC_WORKER_H_
