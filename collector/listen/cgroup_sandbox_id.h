// The sandbox id of a socket peer, from its cgroup (/proc/PID/cgroup), which
// the kernel keeps and the sandboxed code cannot choose: never from the
// record. One table of layouts (POSIX extended regular expressions, the id
// in a numbered group), or the operator's own pattern (--cgroup-pattern).
#ifndef AGT_COLLECTOR_LISTEN_CGROUP_SANDBOX_ID_H_
#define AGT_COLLECTOR_LISTEN_CGROUP_SANDBOX_ID_H_

#include <regex.h>
#include <stdint.h>

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cgroup_sandbox_id {

// The built-in layouts, tried in this order on each cgroup path:
//   .../docker-<64 hex>.scope         Docker, systemd cgroup driver
//   .../docker/<64 hex>               Docker, cgroupfs driver
//   .../cri-containerd-<64 hex>.scope containerd (Kubernetes, systemd driver)
//   .../crio-<64 hex>.scope           CRI-O
//   .../kubepods.../<64 hex>          Kubernetes, cgroupfs driver
// The id is the container's full 64-hex id.
struct Layout {
  const char* name;
  const char* regex;
  int group;  // the group holding the id
};
const Layout* Layouts(size_t* count);

class Matcher {
 public:
  Matcher() = default;
  ~Matcher();
  Matcher(const Matcher&) = delete;
  Matcher& operator=(const Matcher&) = delete;

  // `pattern` empty: the built-in layouts. Otherwise one POSIX extended
  // regular expression whose first group is the id, e.g.
  // "/agents/([a-z0-9-]+)\.scope$"; false with *err when it does not compile
  // or has no group.
  bool Init(const std::string& pattern, std::string* err);

  // Looks at each line of `proc_cgroup` ("ID:CONTROLLERS:PATH"), the unified
  // hierarchy's ("0::") first: the first path that matches gives *sandbox_id
  // (checked like a watch pattern's id) and *cgroup. When none does, *cgroup
  // is the unified path (else the first) and the result is false.
  // Answers are kept (at most kMaxCached texts; then all are dropped).
  bool Match(std::string_view proc_cgroup, std::string* cgroup, std::string* sandbox_id) const;
  uint64_t cache_hits() const { return cache_hits_; }
  static constexpr size_t kMaxCached = 1024;

 private:
  struct Answer {
    bool matched;
    std::string cgroup, sandbox_id;
  };
  bool MatchUncached(std::string_view proc_cgroup, std::string* cgroup,
                     std::string* sandbox_id) const;
  struct Compiled {
    regex_t re;
    int group;
  };
  std::vector<Compiled> compiled_;
  mutable std::unordered_map<std::string, Answer> cache_;
  mutable uint64_t cache_hits_ = 0;
};

}  // namespace cgroup_sandbox_id

#endif  // AGT_COLLECTOR_LISTEN_CGROUP_SANDBOX_ID_H_
