#include "self_confine.h"

#include <doctest/doctest.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "test_util.h"

namespace {

// What a confined child tried, one bit per attempt that did NOT fail as it
// should (or, for the allowed ones, that failed): 0 means every restriction
// held in the kernel and nothing allowed was refused.
enum Breach : int {
  kAllowedReadRefused = 1 << 0,
  kOtherFileRead = 1 << 1,
  kWriteInGrantedDirRefused = 1 << 2,
  kWriteOutsideAllowed = 1 << 3,
  kExecAllowed = 1 << 4,
  kSocketAllowed = 1 << 5,
  kExecutableMemoryAllowed = 1 << 6,
  kPtraceAllowed = 1 << 7,
  kNotConfined = 1 << 8,
  // A sanitizer build refused a report in its log_path's directory, or a
  // plain build allowed a write there.
  kReportWriteWrong = 1 << 9,
};

struct ChildResult {
  int breaches = -1;
  bool sanitizer_build = false;
};

// Confines a forked child with `grants` and makes it try each thing; the
// parent reads back what got through (the child cannot be undone).
// `report_dir`: named in the child's TSAN_OPTIONS as its log_path's
// directory before it confines itself (appended: the runtime's own stays).
ChildResult TryInConfinedChild(const landlock_ruleset::Grants& grants, const std::string& allowed,
                               const std::string& other, const std::string& granted_dir,
                               const std::string& outside_dir, const std::string& report_dir) {
  int report[2];
  REQUIRE(pipe(report) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(report[0]);
    const char* options = getenv("TSAN_OPTIONS");
    const std::string with_report =
        std::string(options != nullptr ? options : "") + ":log_path=" + report_dir + "/tsan";
    setenv("TSAN_OPTIONS", with_report.c_str(), 1);
    const self_confine::Applied applied = self_confine::ConfineOneShot(grants);
    int breaches = 0;
    if (!applied.no_new_privs || applied.landlock_abi == 0 ||
        (!applied.seccomp && !applied.sanitizer_build)) {
      breaches |= kNotConfined;
    }
    int fd = open(allowed.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) breaches |= kAllowedReadRefused;
    if (fd >= 0) close(fd);
    fd = open(other.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0 || errno != EACCES) breaches |= kOtherFileRead;
    fd = open((granted_dir + "/new").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) breaches |= kWriteInGrantedDirRefused;
    if (fd >= 0) close(fd);
    fd = open((outside_dir + "/new").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0) breaches |= kWriteOutsideAllowed;
    fd = open((report_dir + "/tsan.1").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if ((fd >= 0) != applied.sanitizer_build) breaches |= kReportWriteWrong;
    if (fd >= 0) close(fd);
    // Refused by Landlock (no EXECUTE right anywhere) and by seccomp both.
    char* const argv[] = {const_cast<char*>("true"), nullptr};
    execv("/bin/true", argv);
    breaches |= (errno == EACCES || errno == EPERM) ? 0 : kExecAllowed;
    if (!applied.sanitizer_build) {
      if (socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0) >= 0) breaches |= kSocketAllowed;
      if (socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0) >= 0) breaches |= kSocketAllowed;
      if (mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) !=
          MAP_FAILED) {
        breaches |= kExecutableMemoryAllowed;
      }
      if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) == 0) breaches |= kPtraceAllowed;
    }
    const int result[2] = {breaches, applied.sanitizer_build ? 1 : 0};
    const bool sent =
        write(report[1], result, sizeof result) == static_cast<ssize_t>(sizeof result);
    _exit(sent ? 0 : 1);
  }
  close(report[1]);
  int result[2] = {-1, 0};
  const ssize_t got = read(report[0], result, sizeof result);
  close(report[0]);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(got == static_cast<ssize_t>(sizeof result));
  CHECK(WIFEXITED(status));
  return ChildResult{result[0], result[1] != 0};
}

}  // namespace

TEST_CASE("self-confinement: the kernel refuses exec, sockets, other files and writes elsewhere") {
  test_util::TempDir dir;
  const std::string allowed = dir / "allowed.log";
  const std::string other = dir / "other.log";
  const std::string granted = dir / "granted";
  const std::string outside = dir / "outside";
  test_util::WriteFile(allowed, "x\n");
  test_util::WriteFile(other, "x\n");
  REQUIRE(mkdir(granted.c_str(), 0700) == 0);
  REQUIRE(mkdir(outside.c_str(), 0700) == 0);
  const std::string reports = dir / "reports";
  REQUIRE(mkdir(reports.c_str(), 0700) == 0);
  landlock_ruleset::Grants grants;
  grants.read_files = {allowed, dir / "does-not-exist"};
  grants.write_dirs = {granted};
  const ChildResult child = TryInConfinedChild(grants, allowed, other, granted, outside, reports);
  CHECK(child.breaches == 0);
  CHECK(access((granted + "/new").c_str(), F_OK) == 0);
  CHECK(access((outside + "/new").c_str(), F_OK) != 0);
  // The parent is untouched: confinement is the child's alone.
  CHECK(access(other.c_str(), R_OK) == 0);
}

TEST_CASE("self-confinement: the description names each layer and what is missing") {
  self_confine::Applied applied;
  applied.no_new_privs = true;
  applied.seccomp = true;
  applied.landlock_abi = 7;
  CHECK(self_confine::Describe(applied) == "no_new_privs, seccomp allow-list, Landlock ABI 7");
  applied.landlock_abi = 0;
  applied.missing = "Landlock (this kernel has no Landlock)";
  CHECK(self_confine::Describe(applied) ==
        "no_new_privs, seccomp allow-list - not applied: Landlock (this kernel has no Landlock)");
  CHECK(self_confine::Describe(self_confine::Applied{}) == "not confined");
}

TEST_CASE("self-confinement: a sanitizer's report directories come from its log_path options") {
  using V = std::vector<std::string>;
  CHECK(self_confine::SanitizerReportDirs("log_path=/b/reports/asan:detect_leaks=1") ==
        V{"/b/reports"});
  CHECK(self_confine::SanitizerReportDirs("halt_on_error=1 log_path=/t/tsan,log_path=/u/x") ==
        V{"/t", "/u"});
  CHECK(self_confine::SanitizerReportDirs("log_path=report") == V{"."});
  CHECK(self_confine::SanitizerReportDirs("log_path=/report") == V{"/"});
  CHECK(self_confine::SanitizerReportDirs("log_path=stderr:xlog_path=/no/x:log_path=") == V{});
  CHECK(self_confine::SanitizerReportDirs("") == V{});
}
