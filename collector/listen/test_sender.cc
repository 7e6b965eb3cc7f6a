// collector-test-sender: for tests and benchmarks only, never installed.
// Speaks the shim's side of the socket protocol (agt-collector(1), LISTEN):
// connect (AF_UNIX, SOCK_SEQPACKET), send one record, wait for one byte.
//
//   collector-test-sender SOCKET RECORD [--repeat N] [--timeout-ms MS] [--step 1]
//
// Prints the answer of the last exchange (ACK, NAK, EOF, TIMEOUT, or the
// connect error); with --repeat, the acknowledgement latencies
// ("acks=N p50_us=X p99_us=Y max_us=Z"). Exit 0 when every exchange was
// acknowledged, 1 otherwise. With --step 1, each answer is printed at once
// and the next exchange waits for a line on stdin (a test changes
// something about the process in between, e.g. its cgroup).
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "unique_fd.h"

namespace {

int64_t NowUs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

// One exchange; returns the answer's name.
std::string Exchange(const char* path, const std::string& record, int timeout_ms) {
  const unique_fd::UniqueFd sock(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  if (!sock.ok()) return std::string("socket: ") + strerror(errno);
  const int fd = sock.get();
  struct sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    return strerrorname_np(errno);
  }
  const ssize_t sent = send(fd, record.data(), record.size(), MSG_NOSIGNAL);
  // EPIPE: refused at connect (over a limit), answered and closed before the
  // record went; the answer is still queued.
  const bool refused_early = sent < 0 && errno == EPIPE;
  std::string answer;
  if (sent != static_cast<ssize_t>(record.size()) && !refused_early) {
    answer = std::string("send: ") + strerror(errno);
  } else {
    struct pollfd p = {fd, POLLIN, 0};
    unsigned char byte = 0;
    if (poll(&p, 1, timeout_ms) != 1) {
      answer = "TIMEOUT";
    } else {
      const ssize_t n = recv(fd, &byte, 1, 0);
      answer = n == 1 ? (byte == 0x06 ? "ACK" : byte == 0x15 ? "NAK" : "OTHER") : "EOF";
    }
  }
  return answer;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr,
            "usage: collector-test-sender SOCKET RECORD [--repeat N] [--timeout-ms MS] "
            "[--step 1]\n");
    return 2;
  }
  long repeat = 1, timeout_ms = 2000, step = 0;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--repeat") == 0) repeat = atol(argv[i + 1]);
    if (strcmp(argv[i], "--timeout-ms") == 0) timeout_ms = atol(argv[i + 1]);
    if (strcmp(argv[i], "--step") == 0) step = atol(argv[i + 1]);
  }
  const std::string record = argv[2];
  std::vector<int64_t> latencies;
  std::string answer;
  long acks = 0;
  for (long i = 0; i < repeat; ++i) {
    if (step != 0 && i > 0) {
      char line[16];
      if (fgets(line, sizeof line, stdin) == nullptr) break;
    }
    const int64_t start = NowUs();
    answer = Exchange(argv[1], record, static_cast<int>(timeout_ms));
    if (answer == "ACK") {
      ++acks;
      latencies.push_back(NowUs() - start);
    }
    if (step != 0) {
      printf("%s\n", answer.c_str());
      fflush(stdout);
    }
  }
  if (repeat > 1) {
    std::sort(latencies.begin(), latencies.end());
    const auto at = [&](double q) {
      return latencies.empty() ? 0 : latencies[static_cast<size_t>(q * (latencies.size() - 1))];
    };
    printf("acks=%ld p50_us=%lld p99_us=%lld max_us=%lld\n", acks, static_cast<long long>(at(0.5)),
           static_cast<long long>(at(0.99)),
           static_cast<long long>(latencies.empty() ? 0 : latencies.back()));
  }
  printf("%s\n", answer.c_str());
  return acks == repeat ? 0 : 1;
}
