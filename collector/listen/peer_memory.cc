#include "listen/peer_memory.h"

#include <stdlib.h>

#include <string>

namespace peer_memory {
namespace {

constexpr int kCapDacOverride = 1;
constexpr int kCapDacReadSearch = 2;

// The text after "\nKEY:" up to the end of its line; false when absent or
// not ended (a status cut off).
bool Line(std::string_view status, std::string_view key, std::string_view* value) {
  const std::string k = "\n" + std::string(key) + ":";
  const size_t at = status.find(k);
  if (at == std::string_view::npos) return false;
  const size_t begin = at + k.size();
  const size_t end = status.find('\n', begin);
  if (end == std::string_view::npos) return false;
  *value = status.substr(begin, end - begin);
  return true;
}

// Whitespace-separated unsigned numbers of `text` in `base`, at most `cap`;
// *count of them; false on anything else (*cut when more than cap).
bool Numbers(std::string_view text, int base, uint64_t* out, int cap, int* count, bool* cut) {
  *count = 0;
  *cut = false;
  size_t i = 0;
  for (;;) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i == text.size()) return true;
    size_t j = i;
    while (j < text.size() && text[j] != ' ' && text[j] != '\t') ++j;
    const std::string word(text.substr(i, j - i));
    char* end = nullptr;
    const unsigned long long v = strtoull(word.c_str(), &end, base);
    if (end == word.c_str() || *end != '\0') return false;
    if (*count == cap) {
      *cut = true;
      return true;
    }
    out[(*count)++] = v;
    i = j;
  }
}

}  // namespace

bool ParseStatusIds(std::string_view status, StatusIds* ids) {
  std::string_view tracer_line, uid_line, gid_line, groups_line, cap_line;
  if (!Line(status, "TracerPid", &tracer_line) || !Line(status, "Uid", &uid_line) ||
      !Line(status, "Gid", &gid_line) || !Line(status, "Groups", &groups_line) ||
      !Line(status, "CapEff", &cap_line)) {
    return false;
  }
  uint64_t v[StatusIds::kMaxGroups];
  int n = 0;
  bool cut = false;
  if (!Numbers(tracer_line, 10, v, 1, &n, &cut) || n != 1 || cut) return false;
  ids->tracer_pid = static_cast<pid_t>(v[0]);
  // Uid and Gid: real, effective, saved set, filesystem.
  if (!Numbers(uid_line, 10, v, 4, &n, &cut) || n != 4 || cut) return false;
  ids->euid = static_cast<uid_t>(v[1]);
  ids->fsuid = static_cast<uid_t>(v[3]);
  if (!Numbers(gid_line, 10, v, 4, &n, &cut) || n != 4 || cut) return false;
  ids->fsgid = static_cast<gid_t>(v[3]);
  if (!Numbers(groups_line, 10, v, StatusIds::kMaxGroups, &n, &cut)) return false;
  for (int i = 0; i < n; ++i) ids->groups[i] = static_cast<gid_t>(v[i]);
  ids->group_count = n;
  ids->groups_cut = cut;
  if (!Numbers(cap_line, 16, v, 1, &n, &cut) || n != 1 || cut) return false;
  ids->cap_eff = v[0];
  return true;
}

bool ExeReadableBy(const struct stat& exe, const StatusIds& ids) {
  const uint64_t dac = (1ull << kCapDacOverride) | (1ull << kCapDacReadSearch);
  if ((ids.cap_eff & dac) != 0) return true;
  // The owner class decides alone for the owner, the group class for a
  // member: neither falls through to the classes after it.
  if (exe.st_uid == ids.fsuid) return (exe.st_mode & S_IRUSR) != 0;
  bool member = exe.st_gid == ids.fsgid;
  for (int i = 0; i < ids.group_count && !member; ++i) member = ids.groups[i] == exe.st_gid;
  if (member) return (exe.st_mode & S_IRGRP) != 0;
  // Groups beyond those read may or may not hold it: either class may apply.
  if (ids.groups_cut) return (exe.st_mode & (S_IRGRP | S_IROTH)) != 0;
  return (exe.st_mode & S_IROTH) != 0;
}

Judgement Judge(const struct stat& exe, uid_t status_owner, const StatusIds& ids) {
  const bool readable = ExeReadableBy(exe, ids);
  if (ids.euid == 0) return readable ? Judgement::kRootWritable : Judgement::kProtected;
  // Dumpable now: the kernel gives its /proc files the process's own euid.
  if (readable || status_owner == ids.euid) return Judgement::kWritable;
  return Judgement::kProtected;
}

}  // namespace peer_memory
