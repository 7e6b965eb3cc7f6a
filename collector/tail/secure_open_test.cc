#include "tail/secure_open.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tail/tail_test_util.h"

using secure_open::Method;
using secure_open::Result;

namespace {

Result Open(const tail_test_util::TempDir& d, const std::string& rel, Method m, std::string* err) {
  int fd = -1;
  Result r = secure_open::OpenRegular(d.fd(), rel, m, &fd, err);
  if (r == Result::kOk) {
    struct stat st;
    REQUIRE(fstat(fd, &st) == 0);
    CHECK(S_ISREG(st.st_mode));
    int fl = fcntl(fd, F_GETFL);
    CHECK((fl & O_ACCMODE) == O_RDONLY);
    CHECK((fl & O_NONBLOCK) != 0);
    CHECK((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
    close(fd);
  } else {
    CHECK(fd == -1);
  }
  return r;
}

void RunShapes(Method m) {
  tail_test_util::TempDir d;
  d.Mkdir("sb");
  d.Write("sb/denied.log", "x\n");
  d.Write("host-secret", "secret\n");
  std::string err;

  CHECK(Open(d, "sb/denied.log", m, &err) == Result::kOk);
  CHECK(Open(d, "sb/none.log", m, &err) == Result::kMissing);
  CHECK(Open(d, "nodir/denied.log", m, &err) == Result::kMissing);

  // Symlink as the last component, to a host file.
  REQUIRE(symlink(d.Join("host-secret").c_str(), d.Join("sb/link.log").c_str()) == 0);
  CHECK(Open(d, "sb/link.log", m, &err) == Result::kRefused);
  CHECK(err.find("symbolic link") != std::string::npos);

  // Symlink as a directory component.
  d.Mkdir("real");
  d.Write("real/denied.log", "y\n");
  REQUIRE(symlink(d.Join("real").c_str(), d.Join("sbl").c_str()) == 0);
  CHECK(Open(d, "sbl/denied.log", m, &err) == Result::kRefused);
  CHECK(err.find("symbolic link") != std::string::npos);

  // Relative symlink escaping upwards.
  REQUIRE(symlink("../host-secret", d.Join("sb/up.log").c_str()) == 0);
  CHECK(Open(d, "sb/up.log", m, &err) == Result::kRefused);

  REQUIRE(mkfifo(d.Join("sb/fifo.log").c_str(), 0644) == 0);
  CHECK(Open(d, "sb/fifo.log", m, &err) == Result::kRefused);
  CHECK(err.find("FIFO") != std::string::npos);

  d.Mkdir("sb/dir.log");
  CHECK(Open(d, "sb/dir.log", m, &err) == Result::kRefused);
  CHECK(err.find("directory") != std::string::npos);

  if (mknod(d.Join("sb/dev.log").c_str(), S_IFCHR | 0600, makedev(1, 3)) == 0) {
    CHECK(Open(d, "sb/dev.log", m, &err) == Result::kRefused);
    CHECK(err.find("character device") != std::string::npos);
  }

  // A regular file where a directory is expected.
  d.Write("flat", "z");
  CHECK(Open(d, "flat/denied.log", m, &err) != Result::kOk);

  // Never resolves "..", "." or absolute paths.
  CHECK(Open(d, "../etc/passwd", m, &err) == Result::kError);
  CHECK(Open(d, "sb/./denied.log", m, &err) == Result::kError);
  CHECK(Open(d, "/etc/passwd", m, &err) == Result::kError);

  int dfd = -1;
  CHECK(secure_open::OpenDirectory(d.fd(), "sb", m, &dfd, &err) == Result::kOk);
  if (dfd >= 0) close(dfd);
  CHECK(secure_open::OpenDirectory(d.fd(), "sbl", m, &dfd, &err) == Result::kRefused);
  CHECK(secure_open::OpenDirectory(d.fd(), "flat", m, &dfd, &err) == Result::kRefused);
}

}  // namespace

TEST_CASE("secure_open: hostile shapes refused via openat2") {
  REQUIRE(secure_open::KernelHasOpenat2());
  RunShapes(Method::kOpenat2);
}

TEST_CASE("secure_open: hostile shapes refused via the O_NOFOLLOW walk") {
  RunShapes(Method::kWalk);
}

TEST_CASE("secure_open: auto picks a working method") { RunShapes(Method::kAuto); }

TEST_CASE("secure_open: FIFO never blocks the opener") {
  // Opening a FIFO for reading without a writer would block without
  // O_NONBLOCK; reaching this line at all is the check, and it is refused.
  tail_test_util::TempDir d;
  REQUIRE(mkfifo(d.Join("f").c_str(), 0644) == 0);
  std::string err;
  int fd = -1;
  CHECK(secure_open::OpenRegular(d.fd(), "f", Method::kWalk, &fd, &err) == Result::kRefused);
  CHECK(secure_open::OpenRegular(d.fd(), "f", Method::kOpenat2, &fd, &err) == Result::kRefused);
}

TEST_CASE("secure_open: reads leave the atime alone where the caller may ask (O_NOATIME)") {
  tail_test_util::TempDir d;
  d.Write("denied.log", "x\n");
  // Read an hour after the last access and just after a write: relatime
  // would update the atime at this read.
  const struct timespec times[2] = {{time(nullptr) - 3600, 0}, {0, UTIME_NOW}};
  REQUIRE(utimensat(d.fd(), "denied.log", times, 0) == 0);
  std::string err;
  int fd = -1;
  REQUIRE(secure_open::OpenRegular(d.fd(), "denied.log", Method::kAuto, &fd, &err) == Result::kOk);
  CHECK((fcntl(fd, F_GETFL) & O_NOATIME) != 0);  // the test's own file
  char buf[8];
  CHECK(read(fd, buf, sizeof buf) == 2);
  struct stat st;
  REQUIRE(fstat(fd, &st) == 0);
  CHECK(st.st_atim.tv_sec == times[0].tv_sec);
  close(fd);
}

TEST_CASE("secure_open: a file the caller may not open O_NOATIME is opened without it") {
  // Someone else's file (root's /etc/passwd, read by an unprivileged uid:
  // no CAP_FOWNER): O_NOATIME is refused with EPERM, and the file is read
  // all the same. In a child, which can give up root for good.
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (geteuid() == 0 && (setgroups(0, nullptr) != 0 || setresgid(65534, 65534, 65534) != 0 ||
                           setresuid(65534, 65534, 65534) != 0)) {
      _exit(10);
    }
    const int base = open("/etc", O_PATH | O_DIRECTORY | O_CLOEXEC);
    struct stat st;
    if (base < 0 || fstatat(base, "passwd", &st, 0) != 0 || st.st_uid == geteuid()) _exit(11);
    std::string err;
    int fd = -1;
    for (const Method m : {Method::kOpenat2, Method::kWalk}) {
      if (secure_open::OpenRegular(base, "passwd", m, &fd, &err) != Result::kOk) _exit(1);
      if ((fcntl(fd, F_GETFL) & O_NOATIME) != 0) _exit(2);
      close(fd);
    }
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);  // 1: not opened; 2: O_NOATIME; 10, 11: no such setup
}
