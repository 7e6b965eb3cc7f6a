#include "denied_socket.h"

#include <doctest/doctest.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "temp_dir_test_support.h"

namespace {

int Listen(const std::string& path, int type) {
  int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  struct sockaddr_un address = {};
  address.sun_family = AF_UNIX;
  REQUIRE(path.size() < sizeof address.sun_path);
  memcpy(address.sun_path, path.data(), path.size());
  REQUIRE(bind(fd, reinterpret_cast<struct sockaddr*>(&address), sizeof address) == 0);
  REQUIRE(listen(fd, 16) == 0);
  return fd;
}

enum class Answer { kAck, kNak, kOther, kClose, kNothing };

// A collector playing one part: accepts one connection, reads one message,
// answers as told (kNothing: holds the connection open for a second).
struct Peer {
  int listener;
  std::string received;
  std::thread thread;

  Peer(const std::string& path, Answer answer) : listener(Listen(path, SOCK_SEQPACKET)) {
    thread = std::thread([this, answer] {
      int c = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) return;
      char buf[8192];
      ssize_t n = recv(c, buf, sizeof buf, 0);
      if (n > 0) received.assign(buf, static_cast<std::size_t>(n));
      char byte = answer == Answer::kAck ? 0x06 : answer == Answer::kNak ? 0x15 : 'x';
      if (answer == Answer::kNothing) std::this_thread::sleep_for(std::chrono::seconds(1));
      if (answer != Answer::kClose && answer != Answer::kNothing)
        (void)!send(c, &byte, 1, MSG_NOSIGNAL);
      close(c);
    });
  }
  // Waits for the peer's part to end; returns the message it read.
  std::string Finish() {
    if (thread.joinable()) thread.join();
    return received;
  }
  ~Peer() {
    Finish();
    close(listener);
  }
};

struct Outcome {
  bool delivered;
  std::string warning;
  double seconds;
};

// Connect, then Exchange, as a denial does (with nothing between).
Outcome DeliverTo(const std::string& path, std::string_view record = "{\"a\":1}",
                  int known_absent = 0) {
  char storage[denied_socket::kMaxWarningSize];
  fixed_buffer::Buffer warning(storage, sizeof storage);
  auto start = std::chrono::steady_clock::now();
  denied_socket::Connection connection;
  denied_socket::Connect(path.c_str(), known_absent, &connection);
  bool delivered = denied_socket::Exchange(&connection, path.c_str(), record, &warning);
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  return Outcome{delivered, std::string(warning.view()), took.count()};
}

void CheckWarning(const Outcome& o, const std::string& reason) {
  CHECK_FALSE(o.delivered);
  CHECK(o.warning.rfind("agt-sandbox: warning: denial not delivered to AGT_DENIED_SOCKET \"", 0) ==
        0);
  CHECK(o.warning.find(reason) != std::string::npos);
  CHECK(o.warning.size() <= denied_socket::kMaxWarningSize);
  CHECK(o.warning.find('\n') == o.warning.size() - 1);
  CHECK(o.warning.find("; the record goes to AGT_DENIED_LOG\n") != std::string::npos);
}

}  // namespace

TEST_CASE("an acknowledged record is delivered as one message, as given") {
  TempDir dir;
  std::string path = dir.path + "/denied.sock";
  std::string record = "{\"argv\":[\"x\"],\"event\":\"command_denied\"}";
  Peer peer(path, Answer::kAck);
  Outcome o = DeliverTo(path, record);
  CHECK(peer.Finish() == record);
  CHECK(o.delivered);
  CHECK(o.warning.empty());
}

TEST_CASE("a record of the largest size goes in one message") {
  TempDir dir;
  std::string path = dir.path + "/denied.sock";
  std::string record(3584, 'r');
  Peer peer(path, Answer::kAck);
  CHECK(DeliverTo(path, record).delivered);
  CHECK(peer.Finish() == record);
}

TEST_CASE("a NAK, another byte, or a close without an answer is not delivered") {
  TempDir dir;
  {
    std::string path = dir.path + "/nak.sock";
    Peer peer(path, Answer::kNak);
    CheckWarning(DeliverTo(path), "the collector refused the record (NAK)");
  }
  {
    std::string path = dir.path + "/other.sock";
    Peer peer(path, Answer::kOther);
    CheckWarning(DeliverTo(path), "unexpected answer byte 120");
  }
  {
    std::string path = dir.path + "/close.sock";
    Peer peer(path, Answer::kClose);
    CheckWarning(DeliverTo(path), "closed the connection without an answer");
  }
}

TEST_CASE("a peer that never answers: given up after the bound") {
  TempDir dir;
  std::string path = dir.path + "/silent.sock";
  Peer peer(path, Answer::kNothing);
  Outcome o = DeliverTo(path);
  CheckWarning(o, "acknowledgement: no answer within 200 ms");
  // Not a timing assertion on speed: the exchange must have waited for the
  // bound (less means it did not wait) and returned before the peer closed.
  CHECK(o.seconds >= 0.19);
  CHECK(o.seconds < 1.0);
}

TEST_CASE("a full backlog: connect gives up after the bound") {
  TempDir dir;
  std::string path = dir.path + "/full.sock";
  int listener = Listen(path, SOCK_SEQPACKET);
  REQUIRE(listen(listener, 0) == 0);
  // Fill the backlog with connections nobody accepts.
  int fillers[4];
  int filled = 0;
  for (int& f : fillers) {
    f = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0);
    struct sockaddr_un address = {};
    address.sun_family = AF_UNIX;
    memcpy(address.sun_path, path.data(), path.size());
    if (connect(f, reinterpret_cast<struct sockaddr*>(&address), sizeof address) == 0) ++filled;
  }
  REQUIRE(filled >= 1);
  Outcome o = DeliverTo(path);
  CheckWarning(o, "connect: no answer within 200 ms");
  CHECK(o.seconds >= 0.19);
  for (int f : fillers) close(f);
  close(listener);
}

TEST_CASE("no socket, not a socket, a stream socket, a too long path") {
  TempDir dir;
  CheckWarning(DeliverTo(dir.path + "/missing.sock"), "connect: No such file or directory");
  std::string file = dir.path + "/file";
  int fd = open(file.c_str(), O_WRONLY | O_CREAT, 0600);
  REQUIRE(fd >= 0);
  close(fd);
  CheckWarning(DeliverTo(file), "connect: Connection refused");
  CheckWarning(DeliverTo(dir.path), "connect: Connection refused");
  std::string stream = dir.path + "/stream.sock";
  int listener = Listen(stream, SOCK_STREAM);
  CheckWarning(DeliverTo(stream), "connect: Protocol wrong type for socket");
  close(listener);
  CheckWarning(DeliverTo(dir.path + "/" + std::string(200, 'x')),
               "the path is too long for a socket address");
}

TEST_CASE("a hostile path is escaped, redacted and cut in the warning") {
  Outcome o = DeliverTo("/no\ndir\x1b/https://u:secretpw@h/" + std::string(400, 'x'));
  CheckWarning(o, "too long");
  CHECK(o.warning.find("\\u000a") != std::string::npos);
  CHECK(o.warning.find("\\u001b") != std::string::npos);
  CHECK(o.warning.find("secretpw") == std::string::npos);
  CHECK(o.warning.find("...[truncated]") != std::string::npos);
  o = DeliverTo("/missing/\n\x01.sock");
  CheckWarning(o, "No such file or directory");
  CHECK(o.warning.find("\\u0001") != std::string::npos);
}

// That no socket is made is seen from outside (tests/test_shim_socket.py).
TEST_CASE("a path found absent beforehand gets the warning connect() gives") {
  TempDir dir;
  std::string missing = dir.path + "/missing.sock";
  std::string file = dir.path + "/file";
  int fd = open(file.c_str(), O_WRONLY | O_CREAT, 0600);
  REQUIRE(fd >= 0);
  close(fd);
  std::string under_file = file + "/denied.sock";
  std::string present = dir.path + "/denied.sock";
  int listener = Listen(present, SOCK_SEQPACKET);

  CHECK(denied_socket::Absent(missing.c_str()) == ENOENT);
  CHECK(denied_socket::Absent((dir.path + "/no/such/dir.sock").c_str()) == ENOENT);
  CHECK(denied_socket::Absent(under_file.c_str()) == ENOTDIR);
  CHECK(denied_socket::Absent(present.c_str()) == 0);
  CHECK(denied_socket::Absent(file.c_str()) == 0);  // there, if not a socket: connect() says
  CHECK(denied_socket::Absent("") == 0);

  for (const std::string& path : {missing, under_file}) {
    Outcome tried = DeliverTo(path);
    Outcome looked_up = DeliverTo(path, "{}", denied_socket::Absent(path.c_str()));
    CHECK_FALSE(looked_up.delivered);
    CHECK(looked_up.warning == tried.warning);
  }
  close(listener);
}

TEST_CASE("Connect only connects: the record goes, and a failure is worded, by Exchange") {
  TempDir dir;
  std::string path = dir.path + "/denied.sock";
  Peer peer(path, Answer::kAck);
  denied_socket::Connection connection;
  REQUIRE(denied_socket::Connect(path.c_str(), 0, &connection));
  CHECK(connection.fd >= 0);
  CHECK(connection.deadline_ns > 0);
  char storage[denied_socket::kMaxWarningSize];
  fixed_buffer::Buffer warning(storage, sizeof storage);
  CHECK(denied_socket::Exchange(&connection, path.c_str(), "{\"b\":2}", &warning));
  CHECK(peer.Finish() == "{\"b\":2}");
  CHECK(connection.fd == -1);  // closed

  // A failed Connect leaves no descriptor open and says nothing yet.
  int probe = open("/dev/null", O_RDONLY);
  REQUIRE(probe >= 0);
  close(probe);
  std::string missing = dir.path + "/missing.sock";
  CHECK_FALSE(denied_socket::Connect(missing.c_str(), 0, &connection));
  int next = open("/dev/null", O_RDONLY);
  CHECK(next == probe);
  close(next);
  CHECK_FALSE(denied_socket::Exchange(&connection, missing.c_str(), "{}", &warning));
  CHECK(std::string(warning.view()).find("connect: No such file or directory") !=
        std::string::npos);

  // A Connection never connected is not delivered either, and says so.
  denied_socket::Connection never;
  CHECK_FALSE(denied_socket::Exchange(&never, path.c_str(), "{}", &warning));
  CHECK(std::string(warning.view()).find("connect: Transport endpoint is not connected") !=
        std::string::npos);
}

TEST_CASE("the bound counts from the socket: the denial's work before the send is inside it") {
  TempDir dir;
  std::string path = dir.path + "/silent.sock";
  Peer peer(path, Answer::kNothing);
  denied_socket::Connection connection;
  auto start = std::chrono::steady_clock::now();
  REQUIRE(denied_socket::Connect(path.c_str(), 0, &connection));
  std::this_thread::sleep_for(std::chrono::milliseconds(150));  // the denial's own work
  auto before_exchange = std::chrono::steady_clock::now();
  char storage[denied_socket::kMaxWarningSize];
  fixed_buffer::Buffer warning(storage, sizeof storage);
  CHECK_FALSE(denied_socket::Exchange(&connection, path.c_str(), "{}", &warning));
  auto end = std::chrono::steady_clock::now();
  CHECK(std::string(warning.view()).find("acknowledgement: no answer within 200 ms") !=
        std::string::npos);
  // Waited until the bound from the socket, not a whole bound more.
  CHECK(std::chrono::duration<double>(end - start).count() >= 0.19);
  CHECK(std::chrono::duration<double>(end - before_exchange).count() < 0.15);
}
