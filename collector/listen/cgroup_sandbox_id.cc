#include "listen/cgroup_sandbox_id.h"

#include "watch_pattern.h"

namespace cgroup_sandbox_id {
namespace {

constexpr Layout kLayouts[] = {
    {"docker (systemd driver)", "(^|/)docker-([0-9a-f]{64})\\.scope(/|$)", 2},
    {"docker (cgroupfs driver)", "(^|/)docker/([0-9a-f]{64})(/|$)", 2},
    {"containerd", "(^|/)cri-containerd-([0-9a-f]{64})\\.scope(/|$)", 2},
    {"cri-o", "(^|/)crio-([0-9a-f]{64})\\.scope(/|$)", 2},
    {"kubernetes (cgroupfs driver)", "(^|/)kubepods(/[^/]+)*/([0-9a-f]{64})(/|$)", 3},
};

// The path of one "ID:CONTROLLERS:PATH" line ("" when malformed).
std::string_view PathOf(std::string_view line) {
  const size_t first = line.find(':');
  if (first == std::string_view::npos) return {};
  const size_t second = line.find(':', first + 1);
  return second == std::string_view::npos ? std::string_view() : line.substr(second + 1);
}

}  // namespace

const Layout* Layouts(size_t* count) {
  *count = sizeof kLayouts / sizeof kLayouts[0];
  return kLayouts;
}

Matcher::~Matcher() {
  for (Compiled& c : compiled_) regfree(&c.re);
}

bool Matcher::Init(const std::string& pattern, std::string* err) {
  const auto add = [&](const char* text, int group) {
    Compiled c;
    const int rc = regcomp(&c.re, text, REG_EXTENDED);
    if (rc != 0) {
      char why[256];
      regerror(rc, &c.re, why, sizeof why);
      *err = std::string("cgroup pattern \"") + text + "\": " + why;
      return false;
    }
    if (c.re.re_nsub < static_cast<size_t>(group)) {
      regfree(&c.re);
      *err = std::string("cgroup pattern \"") + text +
             "\" has no group: put the sandbox id in ( ), e.g. \"/agents/([a-z0-9-]+)\\.scope$\"";
      return false;
    }
    c.group = group;
    compiled_.push_back(c);
    return true;
  };
  if (!pattern.empty()) return add(pattern.c_str(), 1);
  for (const Layout& l : kLayouts) {
    if (!add(l.regex, l.group)) return false;
  }
  return true;
}

bool Matcher::Match(std::string_view proc_cgroup, std::string* cgroup,
                    std::string* sandbox_id) const {
  // The same few containers connect again and again: their answer is kept
  // (by the whole text), so the regular expressions run once per cgroup.
  const auto it = cache_.find(std::string(proc_cgroup));
  if (it != cache_.end()) {
    ++cache_hits_;
    *cgroup = it->second.cgroup;
    *sandbox_id = it->second.sandbox_id;
    return it->second.matched;
  }
  const bool matched = MatchUncached(proc_cgroup, cgroup, sandbox_id);
  if (cache_.size() >= kMaxCached) cache_.clear();
  cache_.emplace(std::string(proc_cgroup), Answer{matched, *cgroup, *sandbox_id});
  return matched;
}

bool Matcher::MatchUncached(std::string_view proc_cgroup, std::string* cgroup,
                            std::string* sandbox_id) const {
  std::vector<std::string_view> paths;  // the unified hierarchy's first
  for (size_t at = 0; at < proc_cgroup.size();) {
    size_t end = proc_cgroup.find('\n', at);
    if (end == std::string_view::npos) end = proc_cgroup.size();
    const std::string_view line = proc_cgroup.substr(at, end - at);
    const std::string_view path = PathOf(line);
    if (!path.empty()) {
      if (line.rfind("0::", 0) == 0) {
        paths.insert(paths.begin(), path);
      } else {
        paths.push_back(path);
      }
    }
    at = end + 1;
  }
  cgroup->assign(paths.empty() ? std::string_view() : paths.front());
  sandbox_id->clear();
  for (const std::string_view path : paths) {
    const std::string text(path);  // regexec needs a terminated string
    for (const Compiled& c : compiled_) {
      regmatch_t m[10];
      if (regexec(&c.re, text.c_str(), 10, m, 0) != 0 || m[c.group].rm_so < 0) continue;
      const std::string id = text.substr(static_cast<size_t>(m[c.group].rm_so),
                                         static_cast<size_t>(m[c.group].rm_eo - m[c.group].rm_so));
      if (!watch_pattern::IsPlausibleSandboxId(id)) continue;
      *cgroup = text;
      *sandbox_id = id;
      return true;
    }
  }
  return false;
}

}  // namespace cgroup_sandbox_id
