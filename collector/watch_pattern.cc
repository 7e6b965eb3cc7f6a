#include "watch_pattern.h"

namespace watch_pattern {

bool IsPlausibleSandboxId(std::string_view id) {
  if (id.empty() || id.size() > 128 || id == "." || id == "..") return false;
  for (const char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool IsValidWatchPattern(std::string_view pattern, std::string* err) {
  const size_t at = pattern.find(kPlaceholder);
  if (pattern.empty() || pattern[0] != '/') {
    *err = "must be an absolute path";
    return false;
  }
  if (at == std::string_view::npos ||
      pattern.find(kPlaceholder, at + 1) != std::string_view::npos) {
    *err = "must hold exactly one {sandbox_id}";
    return false;
  }
  const size_t after = at + kPlaceholder.size();
  if (pattern[at - 1] != '/' || (after < pattern.size() && pattern[after] != '/')) {
    *err = "{sandbox_id} must be a whole path component";
    return false;
  }
  if (pattern.find_first_of("{}*?[]", 0) != at ||
      pattern.find_first_of("{}*?[]", after) != std::string_view::npos) {
    *err = "no other placeholder or glob characters are allowed";
    return false;
  }
  if (after >= pattern.size() || pattern.size() == after + 1) {
    *err = "must name a file below the sandbox directory";
    return false;
  }
  for (size_t i = 0; i < pattern.size();) {  // no "." / ".." / empty components
    size_t j = pattern.find('/', i + 1);
    if (j == std::string_view::npos) j = pattern.size();
    const std::string_view comp = pattern.substr(i + 1, j - i - 1);
    if (comp.empty() || comp == "." || comp == "..") {
      *err = "must not hold empty, \".\" or \"..\" components";
      return false;
    }
    i = j;
  }
  return true;
}

bool MatchWatchPattern(std::string_view pattern, std::string_view path, std::string* sandbox_id) {
  std::string err;
  if (!IsValidWatchPattern(pattern, &err)) return false;
  const size_t at = pattern.find(kPlaceholder);
  const std::string_view prefix = pattern.substr(0, at);
  const std::string_view suffix = pattern.substr(at + kPlaceholder.size());
  if (path.size() <= prefix.size() + suffix.size() || path.substr(0, prefix.size()) != prefix ||
      path.substr(path.size() - suffix.size()) != suffix) {
    return false;
  }
  const std::string_view id =
      path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
  if (!IsPlausibleSandboxId(id)) return false;  // also excludes '/'
  sandbox_id->assign(id);
  return true;
}

std::string_view PatternBaseDir(std::string_view pattern) {
  const size_t at = pattern.find(kPlaceholder);
  if (at == std::string_view::npos || at == 0) return pattern;
  return pattern.substr(0, at - 1 == 0 ? 1 : at - 1);
}

}  // namespace watch_pattern
