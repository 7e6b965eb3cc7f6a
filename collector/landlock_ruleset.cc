#include "landlock_ruleset.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "logs.h"
#include "unique_fd.h"

namespace landlock_ruleset {

namespace {

// Filesystem rights by the ABI that brought them (the header names ABI 1-2).
constexpr uint64_t kFsAbi1 = (1ULL << 13) - 1;      // EXECUTE .. MAKE_SYM
constexpr uint64_t kFsRefer = 1ULL << 13;           // ABI 2
constexpr uint64_t kFsTruncate = 1ULL << 14;        // ABI 3
constexpr uint64_t kFsIoctlDev = 1ULL << 15;        // ABI 5
constexpr uint64_t kNetBindTcp = 1ULL << 0;         // ABI 4
constexpr uint64_t kNetConnectTcp = 1ULL << 1;      // ABI 4
constexpr uint64_t kScopeAbstractUnix = 1ULL << 0;  // ABI 6
constexpr uint64_t kScopeSignal = 1ULL << 1;        // ABI 6

// struct landlock_ruleset_attr as of ABI 6; older kernels are given the
// prefix they know (its size says which fields they read).
struct RulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};

uint64_t HandledFs(int abi) {
  uint64_t fs = kFsAbi1;
  if (abi >= 2) fs |= kFsRefer;
  if (abi >= 3) fs |= kFsTruncate;
  if (abi >= 5) fs |= kFsIoctlDev;
  return fs;
}

size_t AttrSize(int abi) {
  if (abi >= 6) return sizeof(RulesetAttr);
  if (abi >= 4) return offsetof(RulesetAttr, scoped);
  return offsetof(RulesetAttr, handled_access_net);
}

// Grants `access` beneath `path` (or on it, for a file: only the rights
// that apply to files). Returns false with a reason on a real failure; a
// missing path is not one.
bool AddRule(int ruleset, const std::string& path, uint64_t dir_access, uint64_t handled,
             std::string* reason) {
  const unique_fd::UniqueFd fd(open(path.c_str(), O_PATH | O_CLOEXEC));
  if (!fd.ok()) {
    if (errno == ENOENT) return true;
    *reason = logs::ErrnoReason("open (for the Landlock rule)", path);
    return false;
  }
  struct stat st;
  if (fstat(fd.get(), &st) != 0) {
    *reason = logs::ErrnoReason("fstat (for the Landlock rule)", path);
    return false;
  }
  constexpr uint64_t kFileRights = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                                   LANDLOCK_ACCESS_FS_READ_FILE | kFsTruncate | kFsIoctlDev;
  struct landlock_path_beneath_attr rule = {};
  rule.allowed_access = (S_ISDIR(st.st_mode) ? dir_access : dir_access & kFileRights) & handled;
  rule.parent_fd = fd.get();
  if (rule.allowed_access == 0) return true;
  if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0) {
    *reason = logs::ErrnoReason("landlock_add_rule", path);
    return false;
  }
  return true;
}

}  // namespace

int KernelAbi() {
  const long abi =
      syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi > 0 ? static_cast<int>(abi) : 0;
}

Result Restrict(const Grants& grants, int* abi, std::string* reason) {
  *abi = KernelAbi();
  if (*abi == 0) {
    *reason =
        errno == EOPNOTSUPP ? "Landlock is disabled in this kernel" : "this kernel has no Landlock";
    return Result::kUnsupported;
  }
  RulesetAttr attr = {};
  attr.handled_access_fs = HandledFs(*abi);
  if (grants.read_anywhere) {
    attr.handled_access_fs &= ~(LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR);
  }
  attr.handled_access_net = kNetBindTcp | (grants.tcp_connect ? 0 : kNetConnectTcp);
  attr.scoped = kScopeAbstractUnix | kScopeSignal;
  const unique_fd::UniqueFd ruleset(
      static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, AttrSize(*abi), 0)));
  if (!ruleset.ok()) {
    *reason = logs::ErrnoReason("landlock_create_ruleset", "", errno);
    return Result::kFailed;
  }
  const uint64_t read = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
  const uint64_t write = read | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_MAKE_REG |
                         LANDLOCK_ACCESS_FS_REMOVE_FILE | kFsTruncate;
  for (const std::string& path : grants.read_files) {
    if (!AddRule(ruleset.get(), path, read, attr.handled_access_fs, reason)) return Result::kFailed;
  }
  for (const std::string& path : grants.write_dirs) {
    if (!AddRule(ruleset.get(), path, write, attr.handled_access_fs, reason))
      return Result::kFailed;
  }
  for (const std::string& path : grants.exec_files) {
    if (!AddRule(ruleset.get(), path, read | LANDLOCK_ACCESS_FS_EXECUTE, attr.handled_access_fs,
                 reason)) {
      return Result::kFailed;
    }
  }
  if (syscall(SYS_landlock_restrict_self, ruleset.get(), 0) != 0) {
    *reason = logs::ErrnoReason("landlock_restrict_self", "", errno);
    return Result::kFailed;
  }
  return Result::kApplied;
}

}  // namespace landlock_ruleset
