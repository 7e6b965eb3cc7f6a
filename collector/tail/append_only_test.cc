#include "tail/append_only.h"

#include <doctest/doctest.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "tail/tail_test_util.h"

TEST_CASE("append_only: a created log is owned as asked, flagged, and refuses erasure") {
  // /tmp is the test machine's ext4; root (CAP_LINUX_IMMUTABLE) is needed.
  REQUIRE_MESSAGE(geteuid() == 0, "this test needs root (CAP_LINUX_IMMUTABLE, chown)");
  tail_test_util::TempDir d;
  unique_fd::UniqueFd fd;
  std::string why;
  REQUIRE(append_only::Create(d.fd(), "denied.log", 65534, 65534, 0600, &fd, &why) ==
          append_only::Result::kOk);
  struct stat st;
  REQUIRE(fstat(fd.get(), &st) == 0);
  CHECK(st.st_uid == 65534);
  CHECK(st.st_gid == 65534);
  CHECK((st.st_mode & 07777) == 0600);
  CHECK(append_only::IsSet(fd.get()));
  // Even root cannot erase it while the attribute is set.
  CHECK(unlinkat(d.fd(), "denied.log", 0) != 0);
  CHECK(errno == EPERM);
  CHECK(truncate(d.Join("denied.log").c_str(), 0) != 0);
  CHECK(open(d.Join("denied.log").c_str(), O_WRONLY) < 0);
  const int app = open(d.Join("denied.log").c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  CHECK(app >= 0);
  CHECK(write(app, "x\n", 2) == 2);
  close(app);
  // A second Create finds it there.
  unique_fd::UniqueFd again;
  CHECK(append_only::Create(d.fd(), "denied.log", 0, 0, 0600, &again, &why) ==
        append_only::Result::kExists);
  CHECK(!again.ok());
  // Cleared, it can go (TempDir removes it).
  CHECK(append_only::Clear(fd.get(), &why) == append_only::Result::kOk);
  CHECK(!append_only::IsSet(fd.get()));
}

TEST_CASE("append_only: a symbolic link at the name is never followed") {
  REQUIRE_MESSAGE(geteuid() == 0, "this test needs root (CAP_LINUX_IMMUTABLE, chown)");
  tail_test_util::TempDir d;
  d.Write("target", "host file\n");
  REQUIRE(symlink(d.Join("target").c_str(), d.Join("denied.log").c_str()) == 0);
  unique_fd::UniqueFd fd;
  std::string why;
  CHECK(append_only::Create(d.fd(), "denied.log", 0, 0, 0600, &fd, &why) ==
        append_only::Result::kExists);
  const int t = open(d.Join("target").c_str(), O_RDONLY | O_CLOEXEC);
  CHECK(!append_only::IsSet(t));
  close(t);
}

TEST_CASE("append_only: what the kernel does that Create has to live with") {
  // Measured here (ext4 /tmp; tmpfs behaves the same, see
  // tests/test_collector_append_only.py): these facts shape Create.
  REQUIRE_MESSAGE(geteuid() == 0, "this test needs root (CAP_LINUX_IMMUTABLE, chown)");
  tail_test_util::TempDir d;
  d.Write("denied.log", "0123456789\n");
  const unique_fd::UniqueFd ro(openat(d.fd(), "denied.log", O_RDONLY | O_CLOEXEC));
  // A writer opened without O_APPEND before the attribute is set...
  const unique_fd::UniqueFd early(openat(d.fd(), "denied.log", O_WRONLY | O_CLOEXEC));
  REQUIRE(early.ok());
  std::string why;
  REQUIRE(append_only::Set(ro.get(), &why) == append_only::Result::kOk);
  // ...still writes at any offset afterwards: a limit the man page names.
  CHECK(pwrite(early.get(), "XY", 2, 3) == 2);
  // It cannot truncate, nor turn O_APPEND on or off.
  CHECK(ftruncate(early.get(), 0) != 0);
  CHECK(errno == EPERM);
  CHECK(fcntl(early.get(), F_SETFL, O_APPEND) != 0);
  // No hidden name moved into place: link and rename are refused (so
  // Create states the name again once the attribute is set).
  CHECK(linkat(d.fd(), "denied.log", d.fd(), "denied.log.link", 0) != 0);
  CHECK(errno == EPERM);
  CHECK(renameat(d.fd(), "denied.log", d.fd(), "denied.log.moved") != 0);
  CHECK(errno == EPERM);
  char buf[16] = {};
  CHECK(pread(ro.get(), buf, 11, 0) == 11);
  CHECK(std::string(buf, 11) == "012XY56789\n");
  CHECK(append_only::Clear(ro.get(), &why) == append_only::Result::kOk);
}

TEST_CASE("append_only: a log created undisturbed stays at its name (no false race)") {
  REQUIRE_MESSAGE(geteuid() == 0, "this test needs root (CAP_LINUX_IMMUTABLE, chown)");
  tail_test_util::TempDir d;
  for (int i = 0; i < 20; ++i) {
    const std::string name = "log-" + std::to_string(i);
    unique_fd::UniqueFd fd;
    std::string why;
    REQUIRE(append_only::Create(d.fd(), name, 65534, 65534, 0600, &fd, &why) ==
            append_only::Result::kOk);
    CHECK(append_only::Clear(fd.get(), &why) == append_only::Result::kOk);
  }
}

namespace {

// StatLog against fstat and the ioctl, with the attribute off, on and off
// again, for the file `fd` on a file system that reports the attribute in
// statx: one call answers all three.
void CheckStatLog(int fd) {
  std::string why;
  for (const bool on : {false, true, false}) {
    CAPTURE(on);
    REQUIRE((on ? append_only::Set(fd, &why) : append_only::Clear(fd, &why)) ==
            append_only::Result::kOk);
    append_only::LogStat ls;
    REQUIRE(append_only::StatLog(fd, &ls));
    struct stat st;
    REQUIRE(fstat(fd, &st) == 0);
    CHECK(ls.size == st.st_size);
    CHECK(ls.mtime_ns == static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec);
    REQUIRE(ls.held.has_value());
    CHECK(*ls.held == on);
    CHECK(append_only::IsSet(fd) == on);
  }
}

}  // namespace

TEST_CASE("append_only: StatLog reads size, mtime and the attribute in one statx") {
  REQUIRE_MESSAGE(geteuid() == 0, "this test needs root (CAP_LINUX_IMMUTABLE)");
  // /tmp is the test machine's ext4, /dev/shm its tmpfs: both report the
  // attribute in statx on this kernel (tmpfs since Linux 6.0).
  tail_test_util::TempDir d;
  d.Write("denied.log", "{\"a\":1}\n");
  const int fd = open(d.Join("denied.log").c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  CheckStatLog(fd);
  close(fd);

  char shm_template[] = "/dev/shm/agt-append-only-test.XXXXXX";
  const int shm_fd = mkstemp(shm_template);
  REQUIRE_MESSAGE(shm_fd >= 0, "no tmpfs at /dev/shm");
  REQUIRE(write(shm_fd, "x\n", 2) == 2);
  CheckStatLog(shm_fd);
  close(shm_fd);
  unlink(shm_template);
}

TEST_CASE("append_only: StatLog fails on a descriptor that is not open") {
  append_only::LogStat ls;
  CHECK_FALSE(append_only::StatLog(-1, &ls));
  CHECK(errno == EBADF);
}
