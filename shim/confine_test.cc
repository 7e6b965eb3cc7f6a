// Loads the very filter the static shim embeds into a forked child and checks
// what the kernel then allows: the denial's own calls work, exec, fork and
// everything unlisted fail with EPERM.
#include "confine.h"

#include <doctest/doctest.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <signal.h>
#include <unistd.h>

#include <string>

#include "denied_log.h"
#include "seccomp_filter_bpf.h"

namespace {

// Runs `probe` in a confined child; returns its exit status (0 = all good,
// else the number of the failed check).
template <typename Probe>
int InConfinedChild(Probe probe) {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (!confine::Confine()) _exit(100);
    _exit(probe());
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  return WEXITSTATUS(status);
}

}  // namespace

TEST_CASE("the filter opts out of the kernel's always-allowed cache, then runs libseccomp's program") {
  // A load the kernel's cache emulation cannot follow (see seccomp_filter_gen),
  // followed by libseccomp's own load of the architecture.
  const struct sock_filter* p = seccomp_filter_bpf::kProgram;
  CHECK(p[0].code == (BPF_LD | BPF_W | BPF_ABS));
  CHECK(p[0].k == offsetof(struct seccomp_data, instruction_pointer));
  CHECK(p[1].code == (BPF_LD | BPF_W | BPF_ABS));
  CHECK(p[1].k == offsetof(struct seccomp_data, arch));
}

TEST_CASE("confined: the kernel reports no_new_privs and a seccomp filter") {
  int ready[2];
  REQUIRE(pipe(ready) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(ready[0]);
    char ok = confine::Confine() ? 'y' : 'n';
    if (write(ready[1], &ok, 1) != 1) _exit(1);
    for (;;) syscall(SYS_getppid);  // wait, confined, until killed
  }
  close(ready[1]);
  char ok = 0;
  REQUIRE(read(ready[0], &ok, 1) == 1);
  close(ready[0]);
  CHECK(ok == 'y');
  std::string status;
  int fd = open(("/proc/" + std::to_string(pid) + "/status").c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  char chunk[4096];
  ssize_t n;
  while ((n = read(fd, chunk, sizeof chunk)) > 0) status.append(chunk, static_cast<std::size_t>(n));
  close(fd);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  CHECK(status.find("NoNewPrivs:\t1\n") != std::string::npos);
  CHECK(status.find("Seccomp:\t2\n") != std::string::npos);
}

TEST_CASE("confined: prctl is no longer allowed") {
  CHECK(InConfinedChild([] {
          if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != -1 || errno != EPERM) return 1;
          return 0;
        }) == 0);
}

TEST_CASE("confined: write works; identity calls, made before confining, no longer do") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  int status = InConfinedChild([&] {
    if (write(fds[1], "ok", 2) != 2) return 1;
    if (syscall(SYS_getpid) != -1 || errno != EPERM) return 2;
    if (syscall(SYS_clock_gettime, CLOCK_REALTIME, nullptr) != -1 || errno != EPERM) return 3;
    return 0;
  });
  close(fds[1]);
  char buf[2];
  CHECK(status == 0);
  CHECK(read(fds[0], buf, 2) == 2);
  close(fds[0]);
}

TEST_CASE("confined: fork, clone, vfork, execve, execveat fail with EPERM") {
  CHECK(InConfinedChild([] {
          if (syscall(SYS_fork) != -1 || errno != EPERM) return 1;
          if (syscall(SYS_vfork) != -1 || errno != EPERM) return 2;
          if (syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0) != -1 || errno != EPERM) return 3;
          if (syscall(SYS_clone3, nullptr, 0) != -1 || errno != EPERM) return 4;
          char* argv[] = {const_cast<char*>("true"), nullptr};
          if (execve("/bin/true", argv, argv + 1) != -1 || errno != EPERM) return 5;
          if (syscall(SYS_execveat, AT_FDCWD, "/bin/true", argv, argv + 1, 0) != -1 || errno != EPERM) return 6;
          return 0;
        }) == 0);
}

TEST_CASE("confined: unlisted calls fail with EPERM") {
  CHECK(InConfinedChild([] {
          if (socket(AF_INET, SOCK_STREAM, 0) != -1 || errno != EPERM) return 1;
          if (syscall(SYS_open, "/etc/hostname", O_RDONLY) != -1 || errno != EPERM) return 2;
          if (syscall(SYS_kill, 1, 0) != -1 || errno != EPERM) return 3;
          if (syscall(SYS_ptrace, 0, 0, 0, 0) != -1 || errno != EPERM) return 4;
          if (syscall(SYS_mmap, 0, 4096, 3, 0x22, -1, 0) != -1 || errno != EPERM) return 5;
          if (syscall(SYS_exit, 3) != -1 || errno != EPERM) return 6;  // only exit_group
          return 0;
        }) == 0);
}

TEST_CASE("confined: openat only with the log's exact flags") {
  char tmpl[] = "/tmp/confine_test_XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::string log = dir + "/denied.log";
  CHECK(InConfinedChild([&] {
          long fd = syscall(SYS_openat, AT_FDCWD, "/etc/hostname", O_RDONLY);
          if (fd != -1 || errno != EPERM) return 1;
          fd = syscall(SYS_openat, AT_FDCWD, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
          if (fd != -1 || errno != EPERM) return 2;
          fd = syscall(SYS_openat, AT_FDCWD, log.c_str(), denied_log::kOpenFlags, 0600);
          if (fd < 0) return 3;
          struct stat st;
          if (syscall(SYS_fstat, fd, &st) != 0) return 4;
          if (close(static_cast<int>(fd)) != 0) return 5;
          return 0;
        }) == 0);
  unlink(log.c_str());
  rmdir(dir.c_str());
}
