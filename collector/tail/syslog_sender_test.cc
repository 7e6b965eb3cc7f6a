#include "tail/syslog_sender.h"

#include <doctest/doctest.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <string>

#include "tail/tail_test_util.h"

namespace {

int BindDgram(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  REQUIRE(bind(fd, reinterpret_cast<struct sockaddr*>(&addr), sizeof addr) == 0);
  return fd;
}

std::string Recv(int fd) {
  char buf[4096];
  ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
  return n < 0 ? std::string() : std::string(buf, static_cast<size_t>(n));
}

}  // namespace

TEST_CASE("syslog_sender: RFC 5424 on a real unix datagram socket") {
  tail_test_util::TempDir d;
  int rx = BindDgram(d.Join("log.sock"));
  syslog_sender::SyslogSender s;
  s.Open(d.Join("log.sock"), "agt-collector");
  REQUIRE(s.Send("command_denied", "[agt@32473 entry_id=\"audit_1\"]",
                 "command_denied sandbox_id=sb-1 binary=curl"));
  std::string got = Recv(rx);
  CHECK(got.rfind("<37>1 20", 0) == 0);  // VERSION 1, then an RFC 3339 UTC time
  CHECK(got.find("Z ") == 32);           // "<37>1 YYYY-MM-DDTHH:MM:SS.uuuuuuZ "
  CHECK(got.find(" agt-collector " + std::to_string(getpid()) +
                 " command_denied [agt@32473 entry_id=\"audit_1\"] command_denied sandbox_id=sb-1"
                 " binary=curl") != std::string::npos);
  CHECK(got.back() == 'l');
  std::string report;
  CHECK_FALSE(s.TakeReport(&report, time(nullptr)));

  // An over-long message is cut visibly, never beyond the datagram limit.
  REQUIRE(s.Send("m", "-", std::string(5000, 'x')));
  got = Recv(rx);
  CHECK(got.size() == syslog_sender::kMaxMessageBytes);
  CHECK(got.substr(got.size() - 8) == "...[cut]");
  close(rx);
}

TEST_CASE("syslog_sender: a full or missing socket drops without blocking, and says so") {
  tail_test_util::TempDir d;
  int rx = BindDgram(d.Join("log.sock"));
  syslog_sender::SyslogSender s;
  s.Open(d.Join("log.sock"), "agt-collector");
  // Nobody reads rx: the queue fills, and Send must return instead of blocking.
  int ok = 0, dropped = 0;
  for (int i = 0; i < 5000; ++i) (s.Send("m", "-", std::string(1000, 'y')) ? ok : dropped)++;
  CHECK(ok > 0);
  CHECK(dropped > 0);
  CHECK(s.dropped() == static_cast<uint64_t>(dropped));
  std::string report;
  REQUIRE(s.TakeReport(&report, time(nullptr)));
  CHECK(report.find("syslog ") == 0);
  CHECK(report.find("dropped") != std::string::npos);
  close(rx);

  syslog_sender::SyslogSender gone;
  gone.Open(d.Join("missing.sock"), "agt-collector");
  CHECK_FALSE(gone.Send("m", "-", "x"));
  REQUIRE(gone.TakeReport(&report, time(nullptr)));
  CHECK(report.find("missing.sock") != std::string::npos);
  // Reported once, then summarised no more often than the interval.
  CHECK_FALSE(gone.Send("m", "-", "y"));
  CHECK_FALSE(gone.TakeReport(&report, time(nullptr)));
  CHECK(gone.TakeReport(&report, time(nullptr) + 11));
}

TEST_CASE("syslog_sender: the first message after the daemon made a new socket is not lost") {
  tail_test_util::TempDir d;
  const std::string path = d.Join("log.sock");
  int rx = BindDgram(path);
  syslog_sender::SyslogSender s;
  s.Open(path, "agt-collector");
  REQUIRE(s.Send("m", "-", "before"));
  CHECK(Recv(rx).find("before") != std::string::npos);
  // The daemon restarts: its old socket goes, a new one takes the path.
  close(rx);
  unlink(path.c_str());
  rx = BindDgram(path);
  CHECK(s.Send("m", "-", "first after the restart"));
  CHECK(Recv(rx).find("first after the restart") != std::string::npos);
  CHECK(s.dropped() == 0);
  close(rx);
}
