#include "self_confine.h"

#include <sys/prctl.h>

#include "logs.h"
#include "syscall_allowlist.h"

namespace self_confine {

namespace {

// ASan and LeakSanitizer need system calls no allow-list of ours should
// grant (LeakSanitizer stops the world with clone and ptrace at exit), so
// sanitizer builds leave the seccomp layer off and say so.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitizerBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitizerBuild = true;
#else
constexpr bool kSanitizerBuild = false;
#endif
#else
constexpr bool kSanitizerBuild = false;
#endif

void AddMissing(Applied* applied, const std::string& what) {
  if (!applied->missing.empty()) applied->missing += "; ";
  applied->missing += what;
}

}  // namespace

Applied ConfineOneShot(const landlock_ruleset::Grants& grants) {
  Applied applied;
  // Both later layers rely on it: without it, neither may be applied.
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    AddMissing(&applied, logs::ErrnoReason("prctl(PR_SET_NO_NEW_PRIVS)", ""));
    return applied;
  }
  applied.no_new_privs = true;
  // Landlock first: its own system calls are not on the allow-list.
  landlock_ruleset::Grants granted = grants;
  // LeakSanitizer reads /proc/self/maps and the task list at exit.
  if (kSanitizerBuild) granted.read_files.push_back("/proc");
  int abi = 0;
  std::string reason;
  if (landlock_ruleset::Restrict(granted, &abi, &reason) == landlock_ruleset::Result::kApplied) {
    applied.landlock_abi = abi;
  } else {
    AddMissing(&applied, "Landlock (" + reason + ")");
  }
  if (kSanitizerBuild) {
    applied.sanitizer_build = true;
  } else if (syscall_allowlist::LoadOneShot(&reason)) {
    applied.seccomp = true;
  } else {
    AddMissing(&applied, "seccomp (" + reason + ")");
  }
  return applied;
}

std::string Describe(const Applied& applied) {
  std::string text;
  const auto add = [&text](const std::string& layer) {
    text += (text.empty() ? "" : ", ") + layer;
  };
  if (applied.no_new_privs) add("no_new_privs");
  if (applied.seccomp) add("seccomp allow-list");
  if (applied.landlock_abi > 0) add("Landlock ABI " + std::to_string(applied.landlock_abi));
  if (applied.sanitizer_build) add("no seccomp (a sanitizer build)");
  if (text.empty()) text = "not confined";
  if (!applied.missing.empty()) text += " - not applied: " + applied.missing;
  return text;
}

}  // namespace self_confine
