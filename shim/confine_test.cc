// Loads the very filter the static shim embeds into a forked child and checks
// what the kernel then allows: the denial's own calls work, exec, fork and
// everything unlisted fail with EPERM.
#include "confine.h"

#include <doctest/doctest.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "denied_log.h"
#include "denied_socket.h"
#include "fixed_buffer.h"
#include "seccomp_filter_bpf.h"
#include "temp_dir_test_support.h"

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

TEST_CASE(
    "the filter opts out of the kernel's always-allowed cache, then runs libseccomp's program") {
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
          if (syscall(SYS_execveat, AT_FDCWD, "/bin/true", argv, argv + 1, 0) != -1 ||
              errno != EPERM)
            return 6;
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
  TempDir dir;
  std::string log = dir.path + "/denied.log";
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
}

TEST_CASE("confined: no socket of any kind, and no connect") {
  int before[2];  // a connected pair made before the filter, as the shim's is
  REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, before) == 0);
  CHECK(InConfinedChild([&] {
          if (syscall(SYS_socket, AF_INET, SOCK_STREAM, 0) != -1 || errno != EPERM) return 1;
          if (syscall(SYS_socket, AF_INET6, SOCK_DGRAM, 0) != -1 || errno != EPERM) return 2;
          if (syscall(SYS_socket, AF_NETLINK, SOCK_RAW, 0) != -1 || errno != EPERM) return 3;
          if (syscall(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0) != -1 || errno != EPERM)
            return 4;
          // Not even the kind the shim connects before the filter.
          if (syscall(SYS_socket, denied_socket::kDomain, denied_socket::kType, 0) != -1 ||
              errno != EPERM)
            return 5;
          int pair[2];
          if (syscall(SYS_socketpair, AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != -1 ||
              errno != EPERM)
            return 6;
          struct sockaddr_un address = {};
          address.sun_family = AF_UNIX;
          if (syscall(SYS_connect, before[0], &address, sizeof address) != -1 || errno != EPERM)
            return 7;
          // Other calls a socket could make stay refused.
          if (syscall(SYS_bind, before[0], nullptr, 0) != -1 || errno != EPERM) return 8;
          if (syscall(SYS_listen, before[0], 1) != -1 || errno != EPERM) return 9;
          if (syscall(SYS_sendmsg, before[0], nullptr, 0) != -1 || errno != EPERM) return 10;
          if (syscall(SYS_recvmsg, before[0], nullptr, 0) != -1 || errno != EPERM) return 11;
          return 0;
        }) == 0);
  close(before[0]);
  close(before[1]);
}

TEST_CASE(
    "confined: setsockopt only for the receive timeout, recvfrom one byte, clock_gettime "
    "monotonic") {
  int before[2];  // made before the filter, as the shim's socket is
  REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, before) == 0);
  CHECK(InConfinedChild([&] {
          const long fd = before[0];
          struct timeval tv = {0, 1000};
          if (syscall(SYS_setsockopt, fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0) return 1;
          // The send timeout is armed before the filter, for connect().
          if (syscall(SYS_setsockopt, fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != -1 ||
              errno != EPERM)
            return 2;
          int one = 1;
          if (syscall(SYS_setsockopt, fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != -1 ||
              errno != EPERM)
            return 3;
          if (syscall(SYS_setsockopt, fd, SOL_SOCKET, SO_SNDBUF, &one, sizeof one) != -1 ||
              errno != EPERM)
            return 4;
          if (syscall(SYS_setsockopt, fd, 0, SO_RCVTIMEO, &tv, sizeof tv) != -1 || errno != EPERM)
            return 5;
          char buf[2];
          if (syscall(SYS_recvfrom, fd, buf, 2, 0, nullptr, nullptr) != -1 || errno != EPERM)
            return 6;
          // One byte is allowed; the empty socket then says so itself.
          if (syscall(SYS_recvfrom, fd, buf, 1, MSG_DONTWAIT, nullptr, nullptr) != -1 ||
              errno != EAGAIN)
            return 7;
          struct timespec ts;
          if (syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts) != 0) return 8;
          if (syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts) != -1 || errno != EPERM) return 9;
          if (syscall(SYS_clock_gettime, CLOCK_BOOTTIME, &ts) != -1 || errno != EPERM) return 10;
          return 0;
        }) == 0);
  close(before[0]);
  close(before[1]);
}

TEST_CASE("confined: a whole delivery to an acknowledging peer goes through the filter") {
  TempDir dir;
  std::string path = dir.path + "/denied.sock";
  int listener = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  REQUIRE(listener >= 0);
  struct sockaddr_un address = {};
  address.sun_family = AF_UNIX;
  memcpy(address.sun_path, path.data(), path.size());
  REQUIRE(bind(listener, reinterpret_cast<struct sockaddr*>(&address), sizeof address) == 0);
  REQUIRE(listen(listener, 4) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // As a denial does it: connected first, then confined, then the exchange.
    denied_socket::Connection connection;
    if (!denied_socket::Connect(path.c_str(), 0, &connection)) _exit(101);
    if (!confine::Confine()) _exit(100);
    char storage[denied_socket::kMaxWarningSize];
    fixed_buffer::Buffer warning(storage, sizeof storage);
    _exit(denied_socket::Exchange(&connection, path.c_str(), "{\"a\":1}", &warning) ? 0 : 1);
  }
  int c = accept(listener, nullptr, nullptr);
  REQUIRE(c >= 0);
  char buf[64];
  CHECK(recv(c, buf, sizeof buf, 0) == 7);
  char ack = 0x06;
  CHECK(send(c, &ack, 1, 0) == 1);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  close(c);
  close(listener);
}
