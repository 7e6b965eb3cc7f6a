#include "listen/peer_attestation.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "listen/cgroup_by_id.h"
#include "listen/cgroup_sandbox_id.h"
#include "listen/exe_identity.h"
#include "unique_fd.h"

namespace {

uint64_t InodeOf(int fd) {
  struct stat st;
  REQUIRE(fstat(fd, &st) == 0);
  return st.st_ino;
}

// One byte and room for two descriptors (SCM_RIGHTS), to send or receive.
struct TwoFds {
  TwoFds() {
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
  }
  TwoFds(const TwoFds&) = delete;
  char byte = 0;
  struct iovec iov = {&byte, 1};
  alignas(struct cmsghdr) char control[CMSG_SPACE(2 * sizeof(int))] = {};
  struct msghdr msg = {};
};

// A connected pair made in a network namespace of its own (a child
// unshares one, makes the pair and hands both ends over, then exits: the
// sockets keep the namespace).
void PairInNewNamespace(unique_fd::UniqueFd* a, unique_fd::UniqueFd* b) {
  int channel[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, channel) == 0);
  const unique_fd::UniqueFd ours(channel[0]), theirs(channel[1]);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    int sv[2];
    if (unshare(CLONE_NEWNET) != 0 || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0) _exit(1);
    TwoFds m;
    struct cmsghdr* c = CMSG_FIRSTHDR(&m.msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(2 * sizeof(int));
    memcpy(CMSG_DATA(c), sv, sizeof sv);
    _exit(sendmsg(channel[1], &m.msg, 0) == 1 ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE_MESSAGE(WIFEXITED(status), "the child could not unshare a network namespace");
  REQUIRE_MESSAGE(WEXITSTATUS(status) == 0, "the child could not unshare a network namespace");
  TwoFds m;
  REQUIRE(recvmsg(ours.get(), &m.msg, MSG_CMSG_CLOEXEC) == 1);
  const struct cmsghdr* c = CMSG_FIRSTHDR(&m.msg);
  REQUIRE(c != nullptr);
  int sv[2];
  memcpy(sv, CMSG_DATA(c), sizeof sv);
  a->Reset(sv[0]);
  b->Reset(sv[1]);
}

// Attest for a connection whose peer is this very process (a socket pair:
// the kernel names this process, this executable, as the peer).
peer_attestation::Verdict AttestPair(int conn_fd, peer_attestation::DiagSockets* diag) {
  std::string err;
  exe_identity::ShimReference self;
  REQUIRE(self.FromFile("/proc/self/exe", &err));
  exe_identity::HashCache hashes(&self);
  cgroup_sandbox_id::Matcher cgroups;
  REQUIRE(cgroups.Init("", &err));
  cgroup_by_id::Cache by_id;
  const peer_attestation::PeerCgroup cgroup =
      peer_attestation::ReadPeerCgroup(conn_fd, cgroups, &by_id);
  peer_attestation::Peer peer;
  exe_identity::HashBudget budget;
  return peer_attestation::Attest(conn_fd, self, &hashes, &budget, cgroup, diag, &peer, &err);
}

// A connected pair whose second end is moved to descriptor `at` (with or
// without O_CLOEXEC: opened by the process itself, or inherited).
void PairWithPeerAt(int at, bool cloexec, unique_fd::UniqueFd* conn, unique_fd::UniqueFd* peer) {
  int sv[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
  conn->Reset(sv[0]);
  REQUIRE(dup3(sv[1], at, cloexec ? O_CLOEXEC : 0) == at);
  close(sv[1]);
  peer->Reset(at);
}

}  // namespace

TEST_CASE("SockfsMountId: one mount for every socket, whoever made it and wherever") {
  // What lets the listener learn it once, from its own listening socket.
  const unique_fd::UniqueFd listening(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  REQUIRE(listening.ok());
  const long long id = peer_attestation::SockfsMountId(listening.get());
  CHECK(id >= 0);
  int sv[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
  const unique_fd::UniqueFd a(sv[0]), b(sv[1]);
  CHECK(peer_attestation::SockfsMountId(a.get()) == id);
  unique_fd::UniqueFd c, d;
  PairInNewNamespace(&c, &d);  // made by another process, in another namespace
  CHECK(peer_attestation::SockfsMountId(c.get()) == id);
  // Not a socket: another mount.
  const unique_fd::UniqueFd file(open("/proc/self/exe", O_RDONLY | O_CLOEXEC));
  REQUIRE(file.ok());
  CHECK(peer_attestation::SockfsMountId(file.get()) != id);
}

TEST_CASE("Attest: the peer's socket is looked for first where the last genuine one was") {
  peer_attestation::DiagSockets diag;
  CHECK(diag.likely_fd == 3);
  // As the listener sets it: each descriptor is then judged by its fdinfo.
  const unique_fd::UniqueFd own(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  diag.sockfs_mnt = peer_attestation::SockfsMountId(own.get());
  REQUIRE(diag.sockfs_mnt >= 0);
  unique_fd::UniqueFd conn, peer;
  // Found by listing the descriptors, and learnt.
  PairWithPeerAt(200, true, &conn, &peer);
  CHECK(AttestPair(conn.get(), &diag) == peer_attestation::Verdict::kGenuine);
  CHECK(diag.likely_fd == 200);
  // The guess finds the socket, but it is inherited (no O_CLOEXEC): still
  // not the process's own, whatever descriptor was looked at first.
  PairWithPeerAt(200, false, &conn, &peer);
  CHECK(AttestPair(conn.get(), &diag) == peer_attestation::Verdict::kNotItsSocket);
  CHECK(diag.likely_fd == 200);
  // Elsewhere: the guess misses, the listing finds it, the guess follows.
  PairWithPeerAt(150, true, &conn, &peer);
  CHECK(AttestPair(conn.get(), &diag) == peer_attestation::Verdict::kGenuine);
  CHECK(diag.likely_fd == 150);
}

TEST_CASE("DiagSockets: the peer end, asked of the kernel and then by a guess") {
  peer_attestation::DiagSockets diag;
  for (int i = 0; i < 3; ++i) {  // the first asks for the namespace, the others guess it
    int sv[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
    const unique_fd::UniqueFd a(sv[0]), b(sv[1]);
    CHECK(diag.PeerInode(a.get(), "/docker-1.scope") == InodeOf(b.get()));
  }
  CHECK(diag.namespaces() == 1);
  CHECK(diag.namespace_asks() == 1);
}

TEST_CASE("DiagSockets: a wrong guess finds nothing and the namespace is asked for") {
  // Needs root (unshare, setns): the collector's --listen runs as root.
  peer_attestation::DiagSockets diag;
  int sv[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
  const unique_fd::UniqueFd a(sv[0]), b(sv[1]);
  REQUIRE(diag.PeerInode(a.get(), "/docker-1.scope") == InodeOf(b.get()));
  // The same container key, now from another network namespace: the guess
  // (this one's) is tried, finds nothing there, and the kernel is asked.
  unique_fd::UniqueFd c, d;
  PairInNewNamespace(&c, &d);
  CHECK(diag.PeerInode(c.get(), "/docker-1.scope") == InodeOf(d.get()));
  CHECK(diag.namespaces() == 2);
  CHECK(diag.namespace_asks() == 2);
  // And the guess follows: the other namespace, then back.
  CHECK(diag.PeerInode(d.get(), "/docker-1.scope") == InodeOf(c.get()));
  CHECK(diag.PeerInode(a.get(), "/docker-1.scope") == InodeOf(b.get()));
}
