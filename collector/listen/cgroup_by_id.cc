#include "listen/cgroup_by_id.h"

namespace cgroup_by_id {

std::string_view UnifiedPath(std::string_view proc_cgroup) {
  constexpr std::string_view kUnified = "0::";
  for (size_t at = 0; at < proc_cgroup.size();) {
    size_t end = proc_cgroup.find('\n', at);
    if (end == std::string_view::npos) end = proc_cgroup.size();
    const std::string_view line = proc_cgroup.substr(at, end - at);
    if (line.substr(0, kUnified.size()) == kUnified) return line.substr(kUnified.size());
    at = end + 1;
  }
  return {};
}

bool Cache::Find(uint64_t id, std::string* cgroup, std::string* sandbox_id) const {
  const auto it = by_id_.find(id);
  if (it == by_id_.end()) return false;
  *cgroup = it->second.cgroup;
  *sandbox_id = it->second.sandbox_id;
  return true;
}

void Cache::Learn(uint64_t id, std::string_view proc_cgroup, const std::string& cgroup,
                  const std::string& sandbox_id) {
  // The matcher tries the unified path first: when that path is the one
  // that gave the id, no other line of the text played a part.
  if (sandbox_id.empty() || cgroup.empty() || UnifiedPath(proc_cgroup) != cgroup) return;
  if (by_id_.size() >= kMaxEntries) by_id_.clear();
  by_id_[id] = Answer{cgroup, sandbox_id};
}

}  // namespace cgroup_by_id
