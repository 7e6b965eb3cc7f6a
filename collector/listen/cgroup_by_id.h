// The cgroup and sandbox id of a socket peer, kept by the kernel's id of
// its cgroup (PIDFD_GET_INFO on the peer's pidfd), so that a connection
// from a container seen before costs one ioctl instead of reading and
// matching /proc/PID/cgroup (which the kernel builds afresh, for every
// hierarchy, at each read).
//
// Why the id is a safe key: it comes from the kernel, never from the peer;
// a cgroup2 id is not reused while the machine runs (64 bits, counting up);
// and a cgroup2 directory cannot be renamed, so one id names one path.
// A process that moves to another cgroup has another id at its next
// connection: it is looked up (or read) afresh, never answered from its
// old cgroup.
//
// Only answers that depend on the unified hierarchy alone are kept: those
// where its path ("0::PATH") gave the sandbox id. When a cgroup v1
// hierarchy's line gave it, or nothing matched, the text is read each time.
#ifndef AGT_COLLECTOR_LISTEN_CGROUP_BY_ID_H_
#define AGT_COLLECTOR_LISTEN_CGROUP_BY_ID_H_

#include <stdint.h>

#include <string>
#include <string_view>
#include <unordered_map>

namespace cgroup_by_id {

// The unified hierarchy's path in a /proc/PID/cgroup text (the "0::" line);
// empty when there is none.
std::string_view UnifiedPath(std::string_view proc_cgroup);

class Cache {
 public:
  // Bounded: at most kMaxEntries ids (then all are dropped and learnt again).
  static constexpr size_t kMaxEntries = 1024;

  // The answer kept for cgroup `id` (false: none).
  bool Find(uint64_t id, std::string* cgroup, std::string* sandbox_id) const;
  // Keeps the answer for `id` when it came from the unified hierarchy's
  // path of `proc_cgroup` (read while the peer was in cgroup `id`, checked
  // by asking for the id before and after the read); otherwise nothing.
  void Learn(uint64_t id, std::string_view proc_cgroup, const std::string& cgroup,
             const std::string& sandbox_id);
  size_t size() const { return by_id_.size(); }

 private:
  struct Answer {
    std::string cgroup, sandbox_id;
  };
  std::unordered_map<uint64_t, Answer> by_id_;
};

}  // namespace cgroup_by_id

#endif  // AGT_COLLECTOR_LISTEN_CGROUP_BY_ID_H_
