#include "listen/listener.h"

#include <doctest/doctest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <string>

#include "test_util.h"
#include "unique_fd.h"

namespace {

const std::string kKey(32, 'k');

listener::Options OptionsAt(const std::string& path) {
  listener::Options o;
  o.path = path;
  std::string err;
  REQUIRE(o.shim.FromHex(std::string(64, '0'), &err));  // no file has this content
  return o;
}

unique_fd::UniqueFd Connect(const std::string& path) {
  unique_fd::UniqueFd fd(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  struct sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  path.copy(addr.sun_path, sizeof addr.sun_path - 1);
  REQUIRE(connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  return fd;
}

// Pumps until `fd` has its answer; returns the byte (-1: closed without one).
int AnswerOf(listener::Listener* l, int fd) {
  for (int i = 0; i < 200; ++i) {
    std::string err;
    REQUIRE(l->Pump(&err));
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, 10) == 1) {
      unsigned char byte = 0;
      return recv(fd, &byte, 1, 0) == 1 ? byte : -1;
    }
  }
  FAIL("no answer");
  return -2;
}

// A temporary directory with an open audit file and the socket's path.
struct Fixture {
  Fixture() {
    std::string err;
    REQUIRE(out.Open(out_path, kKey, &err));
  }
  test_util::TempDir dir;
  const std::string path = dir / "denied.sock";
  const std::string out_path = dir / "audit.jsonl";
  audit_file::AuditFileWriter out;
};

}  // namespace

TEST_CASE("listen: a stale socket is replaced; anything else at the path is left alone") {
  Fixture f;
  const std::string& path = f.path;
  audit_file::AuditFileWriter& out = f.out;
  std::string err;
  test_util::WriteFile(path, "the operator's");
  {
    listener::Listener l;
    CHECK_FALSE(l.Init(OptionsAt(path), &out, &err));
    CHECK(err.find("exists and is not a socket (not replaced)") != std::string::npos);
    CHECK(test_util::ReadFile(path) == "the operator's");
  }
  REQUIRE(unlink(path.c_str()) == 0);
  {
    const unique_fd::UniqueFd stale(socket(AF_UNIX, SOCK_SEQPACKET, 0));
    struct sockaddr_un addr = {};
    addr.sun_family = AF_UNIX;
    path.copy(addr.sun_path, sizeof addr.sun_path - 1);
    REQUIRE(bind(stale.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  }
  listener::Listener l;
  REQUIRE(l.Init(OptionsAt(path), &out, &err));
  struct stat st;
  REQUIRE(lstat(path.c_str(), &st) == 0);
  CHECK(S_ISSOCK(st.st_mode));
  CHECK((st.st_mode & 07777) == 0666);
}

TEST_CASE("listen: a record from another executable is answered NAK and kept as a forgery") {
  Fixture f;
  std::string err;
  listener::Listener l;
  REQUIRE(l.Init(OptionsAt(f.path), &f.out, &err));
  const std::string record = R"({"argv":[],"binary":"curl","event":"command_denied","issue":2662,)"
                             R"("timestamp":"2026-06-14T10:00:00Z"})";
  for (int i = 0; i < 3; ++i) {
    const unique_fd::UniqueFd client = Connect(f.path);
    REQUIRE(send(client.get(), record.data(), record.size(), 0) ==
            static_cast<ssize_t>(record.size()));
    CHECK(AnswerOf(&l, client.get()) == listener::kNak);
  }
  CHECK(l.stats().forged == 3);
  CHECK(l.stats().attested == 0);
  REQUIRE(l.Finish(&err));
  // The first at once, the two repeats from this same process in one summary.
  const std::vector<std::string> lines = test_util::Lines(test_util::ReadFile(f.out_path));
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].find(R"("event_type": "denial_record_forged")") != std::string::npos);
  CHECK(lines[0].find(R"("count": 1,)") != std::string::npos);
  CHECK(lines[1].find(R"("count": 2,)") != std::string::npos);
  CHECK(lines[0].find(R"("reason": "the sender's executable is not the shim")") !=
        std::string::npos);
}

TEST_CASE("listen: a record sent after the accept is served too (the connection is watched)") {
  // Most records are there when the connection is accepted and are served
  // at once; one that comes later must still be read, answered and kept.
  Fixture f;
  std::string err;
  listener::Listener l;
  REQUIRE(l.Init(OptionsAt(f.path), &f.out, &err));
  const unique_fd::UniqueFd client = Connect(f.path);
  for (int i = 0; i < 5; ++i) REQUIRE(l.Pump(&err));  // accepted, nothing to read yet
  CHECK(l.connections() == 1);
  const std::string record = R"({"argv":[],"binary":"curl","event":"command_denied","issue":2662,)"
                             R"("timestamp":"2026-06-14T10:00:00Z"})";
  REQUIRE(send(client.get(), record.data(), record.size(), 0) ==
          static_cast<ssize_t>(record.size()));
  CHECK(AnswerOf(&l, client.get()) == listener::kNak);  // judged: not the shim
  CHECK(l.stats().forged == 1);
  CHECK(l.connections() == 0);
}
