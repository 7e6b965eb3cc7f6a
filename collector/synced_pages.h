// Lets go of an append-only file's synced pages in the page cache, behind a
// window at its end kept for readers that follow it (a forwarder, verify
// after a run). The audit file is written once and read rarely: holding all
// of it in memory charges the collector's cgroup for cache nobody reads, and
// every new page of it is memory the machine has to find. Pages let go right
// after they were synced come back to the next writes while still warm: on
// a virtual machine that hands freed memory back to its host (the balloon's
// free page reporting), memory touched first costs the host's fault, which
// was 40% of the collector's CPU time under a saturating load here.
#ifndef AGT_COLLECTOR_SYNCED_PAGES_H_
#define AGT_COLLECTOR_SYNCED_PAGES_H_

#include <cstdint>

namespace synced_pages {

class SyncedPages {
 public:
  // The window at the end of the file kept in the page cache.
  static constexpr uint64_t kKeepBytes = 8 << 20;
  // Pages are let go in steps at least this large (one call per step).
  static constexpr uint64_t kStepBytes = 1 << 20;

  // The file's bytes [0, synced_size) are durable (an fdatasync returned
  // after they were written): those before the kept window go from the page
  // cache, unless they went already. Advice only: a failure loses nothing,
  // and the next call covers the same pages again.
  void Release(int fd, uint64_t synced_size);
  // Another file (or the same path opened again): nothing of it let go yet.
  void Reset() { released_ = 0; }
  uint64_t released() const { return released_; }

 private:
  uint64_t released_ = 0;  // a multiple of kStepBytes
};

}  // namespace synced_pages

#endif  // AGT_COLLECTOR_SYNCED_PAGES_H_
