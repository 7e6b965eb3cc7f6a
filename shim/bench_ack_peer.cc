// Bare acknowledging peer for scripts/bench-shim (not part of the meson
// build; built static by shim/musl-cxx in the same run, like bench_exec):
// the least any collector must do before it may acknowledge a denial, with
// nothing of what agt-collector adds - no credentials, no executable or
// cgroup check, no validation, no signing. Each message is appended to FILE
// and made durable with fdatasync(), then acknowledged: the bench's ratio
// through this peer is the floor of the exchange on that disk, and the real
// collector's ratio above it is the collector's own share.
//
//   bench_ack_peer SOCKET FILE
//       binds SOCKET (SOCK_SEQPACKET, mode 0666), prints "listening" once
//       bound, then serves one connection at a time until SIGTERM.
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "denied_socket.h"

namespace {

// Room for any record the shim sends (record::kMaxRecordSize) and its newline.
char g_message[64 * 1024];

int Serve(const char* socket_path, const char* file_path) {
  const int out = open(file_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  const int listener = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (out < 0 || listener < 0 || strlen(socket_path) >= sizeof address.sun_path) return 1;
  strcpy(address.sun_path, socket_path);
  unlink(socket_path);
  if (bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      chmod(socket_path, 0666) != 0 || listen(listener, 128) != 0) {
    perror("bench_ack_peer");
    return 1;
  }
  printf("listening\n");
  fflush(stdout);
  for (;;) {
    const int connection = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection < 0) continue;
    ssize_t n = recv(connection, g_message, sizeof g_message - 1, 0);
    if (n > 0) g_message[n++] = '\n';  // a line each: the bench counts them
    // Durable before the acknowledgement, as the collector's contract is.
    if (n > 0 && write(out, g_message, static_cast<size_t>(n)) == n && fdatasync(out) == 0) {
      const unsigned char ack = denied_socket::kAck;
      send(connection, &ack, 1, MSG_NOSIGNAL);
    }
    close(connection);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: bench_ack_peer SOCKET FILE\n");
    return 2;
  }
  return Serve(argv[1], argv[2]);
}
