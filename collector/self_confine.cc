#include "self_confine.h"

#include <elf.h>
#include <link.h>
#include <openssl/crypto.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <string_view>

#include "logs.h"
#include "syscall_allowlist.h"
#include "watch_pattern.h"

namespace self_confine {

namespace {

// ASan and LeakSanitizer need system calls no allow-list of ours should
// grant (LeakSanitizer stops the world with clone and ptrace at exit), and
// so does ThreadSanitizer (its background thread, its shadow memory's
// mmap/madvise as threads come and go), so sanitizer builds leave the
// seccomp layer off and say so.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitizerBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
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

// The three layers in order; `load_filter` loads the seccomp allow-list.
// `grants` null: no Landlock ruleset (ConfineRun says when, and why).
Applied Confine(const landlock_ruleset::Grants* grants,
                const std::function<bool(std::string*)>& load_filter) {
  Applied applied;
  // Both later layers rely on it: without it, neither may be applied.
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    AddMissing(&applied, logs::ErrnoReason("prctl(PR_SET_NO_NEW_PRIVS)", ""));
    return applied;
  }
  applied.no_new_privs = true;
  // OpenSSL reads its configuration (/usr/lib/ssl/openssl.cnf) at its first
  // use; a command that has not hashed yet (verify) would first use it under
  // the ruleset, which refuses that read and leaves the configuration unapplied.
  if (OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, nullptr) != 1) {
    AddMissing(&applied, "OpenSSL's configuration (OPENSSL_init_crypto failed)");
  }
  // Landlock first: its own system calls are not on the allow-list.
  std::string reason;
  if (grants != nullptr) {
    landlock_ruleset::Grants granted = *grants;
    if (kSanitizerBuild) {
      // LeakSanitizer reads /proc/self/maps and the task list at exit.
      granted.read_files.push_back("/proc");
      // A runtime opens its report file when it first reports: refused by
      // the ruleset, it would print "Can't open file" and die, the report
      // lost to the check that counts the files (scripts/test-sanitized).
      for (const char* var : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"}) {
        const char* options = getenv(var);
        if (options == nullptr) continue;
        for (std::string& dir : SanitizerReportDirs(options)) {
          granted.write_dirs.push_back(std::move(dir));
        }
      }
    }
    int abi = 0;
    if (landlock_ruleset::Restrict(granted, &abi, &reason) == landlock_ruleset::Result::kApplied) {
      applied.landlock_abi = abi;
    } else {
      AddMissing(&applied, "Landlock (" + reason + ")");
    }
  }
  if (kSanitizerBuild) {
    applied.sanitizer_build = true;
  } else if (load_filter(&reason)) {
    applied.seccomp = true;
  } else {
    AddMissing(&applied, "seccomp (" + reason + ")");
  }
  return applied;
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The running binary, and the dynamic loader its exec needs (its PT_INTERP;
// Landlock checks the loader's EXECUTE right too): what a forwarder child
// is started from.
std::vector<std::string> OwnExecutables() {
  std::vector<std::string> files;
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) files.emplace_back(self, static_cast<size_t>(n));
  const auto* phdr = reinterpret_cast<const ElfW(Phdr)*>(getauxval(AT_PHDR));
  const size_t count = getauxval(AT_PHNUM);
  uintptr_t bias = 0;
  for (size_t i = 0; phdr != nullptr && i < count; ++i) {
    if (phdr[i].p_type == PT_PHDR) bias = reinterpret_cast<uintptr_t>(phdr) - phdr[i].p_vaddr;
  }
  for (size_t i = 0; phdr != nullptr && i < count; ++i) {
    if (phdr[i].p_type == PT_INTERP) {
      files.emplace_back(reinterpret_cast<const char*>(bias + phdr[i].p_vaddr));
    }
  }
  return files;
}

// One line for the log: the layers applied, or a warning naming the missing.
void Announce(const Applied& applied) {
  if (applied.missing.empty()) {
    logs::Note("confined: " + Describe(applied));
  } else {
    logs::Warning("not fully confined: " + Describe(applied));
  }
}

}  // namespace

std::vector<std::string> SanitizerReportDirs(std::string_view options) {
  // The runtimes' own separators between options (sanitizer_flag_parser).
  constexpr std::string_view kSeparators = " ,:\t\r\n";
  constexpr std::string_view kLogPath = "log_path=";
  std::vector<std::string> dirs;
  size_t at = 0;
  while (at < options.size()) {
    const size_t end = std::min(options.find_first_of(kSeparators, at), options.size());
    const std::string_view option = options.substr(at, end - at);
    at = end + 1;
    if (option.substr(0, kLogPath.size()) != kLogPath) continue;
    const std::string_view path = option.substr(kLogPath.size());
    if (path.empty() || path == "stderr" || path == "stdout") continue;  // no file
    dirs.push_back(DirectoryOf(std::string(path)));
  }
  return dirs;
}

Applied ConfineOneShot(const landlock_ruleset::Grants& grants) {
  return Confine(&grants, syscall_allowlist::LoadOneShot);
}

Applied ConfineRun(const RunScope& scope) {
  landlock_ruleset::Grants grants;
  for (const std::string& pattern : scope.watch) {
    grants.write_dirs.emplace_back(watch_pattern::PatternBaseDir(pattern));
  }
  grants.write_dirs.push_back(DirectoryOf(scope.out));
  if (!scope.state_dir.empty()) grants.write_dirs.push_back(scope.state_dir);
  if (!scope.listen.empty()) grants.write_dirs.push_back(DirectoryOf(scope.listen));
  if (!scope.metrics_file.empty()) grants.write_dirs.push_back(DirectoryOf(scope.metrics_file));
  grants.read_files = {scope.key_file, "/proc"};
  if (!scope.config.empty()) grants.read_files.push_back(scope.config);
  std::string left_open;
  const auto leave_open = [&left_open](const std::string& what) {
    left_open += (left_open.empty() ? "" : "; ") + what;
  };
  if (scope.forwarders) {
    // A forwarder is exec'd under this ruleset and filter: it loads shared
    // libraries, reads certificates, resolves names, and connects to its
    // destination over TCP.
    grants.exec_files = OwnExecutables();
    grants.tcp_connect = true;
    grants.read_anywhere = true;
    leave_open(
        "reads, TCP connect and exec of the collector's own binary (the forwarders it "
        "starts run under the same ruleset and filter)");
  }
  if (!scope.listen.empty()) {
    // Landlock refuses a confined process every ptrace-mode access to a
    // process outside its domain, and attesting a peer is one: its
    // /proc/PID/exe, fd and status. So no ruleset with --listen.
    leave_open(
        "no Landlock ruleset: --listen reads each peer's /proc/PID/exe and fd, which "
        "Landlock refuses for processes outside the collector's domain");
  }
  Applied applied =
      Confine(scope.listen.empty() ? &grants : nullptr, [&scope](std::string* reason) {
        return syscall_allowlist::LoadRun(scope.forwarders, reason);
      });
  applied.left_open = left_open;
  Announce(applied);
  return applied;
}

Applied ConfineForward(const std::string& state_dir) {
  landlock_ruleset::Grants grants;
  grants.write_dirs.push_back(state_dir);
  grants.read_anywhere = true;
  grants.tcp_connect = true;
  Applied applied = Confine(&grants, [](std::string* reason) {
    return syscall_allowlist::LoadRun(/*forwarders=*/true, reason);
  });
  applied.left_open = "reads and TCP connect (the audit files, certificates, name resolution)";
  Announce(applied);
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
  if (!applied.left_open.empty()) text += " - left open: " + applied.left_open;
  if (!applied.missing.empty()) text += " - not applied: " + applied.missing;
  return text;
}

}  // namespace self_confine
