// The engine's guard of the logs (tail_engine_guard.cc): append-only logs it
// creates and rotates, and a suppressed log recorded as a signed entry.
#include <doctest/doctest.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "audit_file.h"
#include "tail/append_only.h"
#include "tail/tail_engine.h"
#include "tail/tail_test_util.h"
#include "test_util.h"

namespace {

const char kKey[] = "0123456789abcdef0123456789abcdef";

struct GuardFixture {
  tail_test_util::TempDir d;
  std::string out = d.Join("audit.jsonl");
  audit_file::AuditFileWriter w;
  tail_engine::Engine e;
  std::string err;
  explicit GuardFixture(bool append_only) {
    d.Mkdir("sb");
    d.Mkdir("sb/a");
    REQUIRE(chown(d.Join("sb/a").c_str(), 65534, 65534) == 0);
    REQUIRE_MESSAGE(w.Open(out, kKey, &err), err);
    tail_engine::Options o;
    o.patterns = {d.Join("sb/{sandbox_id}/denied.log")};
    o.state_dir = d.Join("state");
    o.append_only_logs = append_only;
    REQUIRE_MESSAGE(e.Init(o, &w, nullptr, &err), err);
  }
  ~GuardFixture() {
    // TempDir cannot remove an append-only file: the attribute goes first.
    for (const char* name : {"sb/a/denied.log", "sb/a/rotated"}) {
      const int fd = open(d.Join(name).c_str(), O_RDONLY | O_CLOEXEC);
      std::string why;
      if (fd >= 0) append_only::Clear(fd, &why);
      if (fd >= 0) close(fd);
    }
  }
  void Pump() {
    e.HandleInotify();
    e.Scan();
    for (int i = 0; i < 100 && e.HasWork(); ++i) REQUIRE_MESSAGE(e.Pump(&err), err);
    REQUIRE_MESSAGE(e.Commit(&err), err);  // the last cycle durable
  }
  std::string Audit() const { return test_util::ReadFile(out); }
  // Records appended to the log, then read: the look after the first sees
  // the attribute (where held) at two looks in a row.
  void AppendAndPump(const std::string& records) {
    d.Write("sb/a/denied.log", records, true);
    Pump();
  }
};

// An upstream-shaped record, numbered through argv (all of one length for n < 10).
std::string Record(int n) {
  return "{\"argv\":[\"n" + std::to_string(n) +
         "\"],\"binary\":\"curl\",\"event\":\"command_denied\",\"issue\":2662,"
         "\"timestamp\":\"2026-06-14T10:00:00Z\"}\n";
}

}  // namespace

TEST_CASE("tail_engine guard: a new sandbox's log is created append-only, owned by it") {
  REQUIRE_MESSAGE(geteuid() == 0, "needs root (CAP_LINUX_IMMUTABLE, chown)");
  GuardFixture f(true);
  f.Pump();
  struct stat st;
  REQUIRE(stat(f.d.Join("sb/a/denied.log").c_str(), &st) == 0);
  CHECK(st.st_uid == 65534);
  CHECK((st.st_mode & 07777) == 0600);
  const int fd = open(f.d.Join("sb/a/denied.log").c_str(), O_RDONLY | O_CLOEXEC);
  CHECK(append_only::IsSet(fd));
  close(fd);
  CHECK(f.e.AppendOnlySummary() == "append-only: 1 of 1 log(s)");
  CHECK(unlink(f.d.Join("sb/a/denied.log").c_str()) != 0);
}

TEST_CASE("tail_engine guard: SIGUSR1's rotation keeps both files append-only") {
  REQUIRE_MESSAGE(geteuid() == 0, "needs root (CAP_LINUX_IMMUTABLE, chown)");
  GuardFixture f(true);
  f.Pump();
  f.d.Write("sb/a/denied.log",
            "{\"argv\":[\"n1\"],\"binary\":\"curl\",\"event\":\"command_denied\",\"issue\":2662,"
            "\"timestamp\":\"2026-06-14T10:00:00Z\"}\n",
            true);
  REQUIRE_MESSAGE(f.e.RotateLogs(&f.err), f.err);
  f.Pump();
  CHECK(f.e.stats().entries_written == 1);
  // The rotated file: the one name in the directory besides the log.
  std::string rotated;
  for (const auto& entry : std::filesystem::directory_iterator(f.d.Join("sb/a"))) {
    const std::string name = entry.path().filename();
    if (name != "denied.log") rotated = name;
  }
  REQUIRE(rotated.rfind("denied.log.", 0) == 0);
  const int old_fd = open(f.d.Join("sb/a/" + rotated).c_str(), O_RDONLY | O_CLOEXEC);
  const int new_fd = open(f.d.Join("sb/a/denied.log").c_str(), O_RDONLY | O_CLOEXEC);
  CHECK(append_only::IsSet(old_fd));
  CHECK(append_only::IsSet(new_fd));
  struct stat st;
  REQUIRE(fstat(new_fd, &st) == 0);
  CHECK(st.st_size == 0);
  CHECK(st.st_uid == 65534);
  std::string why;
  append_only::Clear(old_fd, &why);
  close(old_fd);
  close(new_fd);
  REQUIRE(rename(f.d.Join("sb/a/" + rotated).c_str(), f.d.Join("sb/a/rotated").c_str()) == 0);
}

TEST_CASE("tail_engine guard: a FIFO in place of the log is a signed entry, once per occurrence") {
  GuardFixture f(false);
  REQUIRE(mkfifo(f.d.Join("sb/a/denied.log").c_str(), 0600) == 0);
  f.Pump();
  f.Pump();
  CHECK(f.e.stats().logs_suppressed == 1);
  std::string audit = f.Audit();
  CHECK(audit.find("\"event_type\": \"denied_log_suppressed\"") != std::string::npos);
  CHECK(audit.find("\"found\": \"a FIFO in place of the log\"") != std::string::npos);
  CHECK(audit.find("\"sandbox_id\": \"a\"") != std::string::npos);
  // Replaced by another hostile object (renamed over it, so never the
  // same inode number): a new occurrence.
  REQUIRE(symlink("/etc/passwd", f.d.Join("sb/a/link").c_str()) == 0);
  REQUIRE(rename(f.d.Join("sb/a/link").c_str(), f.d.Join("sb/a/denied.log").c_str()) == 0);
  f.Pump();
  CHECK(f.e.stats().logs_suppressed == 2);
  CHECK(f.Audit().find("a symbolic link in place of the log") != std::string::npos);
}

// The rewrite check between two looks (ValidateStillSame): a copytruncate
// that regrows past the offset before the next look is read from offset 0.
TEST_CASE("tail_engine guard: no attribute: a log cut and regrown between looks is read again") {
  GuardFixture f(false);
  f.d.Write("sb/a/denied.log", Record(1) + Record(2));
  f.Pump();
  REQUIRE(f.e.stats().entries_written == 2);
  f.d.Write("sb/a/denied.log", Record(7) + Record(8) + Record(9));  // O_TRUNC, same inode
  f.Pump();
  CHECK(f.e.stats().entries_written == 5);
  CHECK(f.Audit().find("\"n9\"") != std::string::npos);
}

TEST_CASE("tail_engine guard: attribute cleared by the host: a log cut and regrown is read again") {
  REQUIRE_MESSAGE(geteuid() == 0, "needs root (CAP_LINUX_IMMUTABLE, chown)");
  GuardFixture f(true);
  f.Pump();  // the log created append-only
  f.AppendAndPump(Record(1) + Record(2));
  f.AppendAndPump(Record(3));  // held at two looks in a row: the hash is skipped from here on
  REQUIRE(f.e.stats().entries_written == 3);
  const int fd = open(f.d.Join("sb/a/denied.log").c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  std::string why;
  REQUIRE_MESSAGE(append_only::Clear(fd, &why) == append_only::Result::kOk, why);
  close(fd);
  f.d.Write("sb/a/denied.log", Record(6) + Record(7) + Record(8) + Record(9));  // longer
  f.Pump();
  CHECK(f.e.stats().entries_written == 7);
  CHECK(f.Audit().find("\"n9\"") != std::string::npos);
}

TEST_CASE("tail_engine guard: attribute held: no cut; an in-place write is not read twice") {
  REQUIRE_MESSAGE(geteuid() == 0, "needs root (CAP_LINUX_IMMUTABLE, chown)");
  // A descriptor opened for writing without O_APPEND before the attribute
  // was set: the one way left to write before the end.
  GuardFixture f(true);
  f.d.Write("sb/a/denied.log", "");
  const int old_fd = open(f.d.Join("sb/a/denied.log").c_str(), O_WRONLY | O_CLOEXEC);
  REQUIRE(old_fd >= 0);
  f.Pump();  // the attribute set on the existing log
  f.AppendAndPump(Record(1) + Record(2));
  f.AppendAndPump(Record(3));
  REQUIRE(f.e.stats().entries_written == 3);
  // What the skipped hash guarded against cannot happen: no truncation.
  const int cut = ftruncate(old_fd, 0);
  const int cut_errno = errno;
  CHECK(cut != 0);
  CHECK(cut_errno == EPERM);
  // Bytes already read and signed, overwritten in place: not read again
  // (the record they held stays in the audit file), and the next record
  // appended is read as ever.
  const std::string forged = Record(8);
  CHECK(pwrite(old_fd, forged.data(), forged.size(), 0) == static_cast<ssize_t>(forged.size()));
  close(old_fd);
  f.AppendAndPump(Record(4));
  CHECK(f.e.stats().entries_written == 4);
  const std::string audit = f.Audit();
  CHECK(audit.find("\"n4\"") != std::string::npos);
  CHECK(audit.find("\"n8\"") == std::string::npos);
}
