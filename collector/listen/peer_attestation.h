// What the kernel says about the process at the other end of a socket
// connection, and whether it is the genuine shim, alive, untraced, and with
// memory no other process of its user could have rewritten (peer_memory.h).
//
// The order is what makes the facts the peer's: SO_PEERCRED gives the pid
// the kernel recorded at connect(), SO_PEERPIDFD a pidfd for that very
// process; /proc/PID/exe, status and cgroup are read (the cgroup by the
// pidfd's cgroup id when that id was seen before); only THEN is the pidfd
// asked whether the process is still alive. Alive after the reads means the
// pid was not reused while they were made, so they describe the sender.
// (The shim waits for the acknowledgement, so a genuine one is alive.)
// The connection must also be one the process opened itself (the peer end,
// found by sock_diag, held in a descriptor with O_CLOEXEC): otherwise a
// script could connect, send its own record, and exec the shim.
//
// Attest needs nothing of the message, so the listener runs it at accept,
// while the shim (which connects before it confines itself) builds its
// record: a process judged the genuine shim there runs only the shim's code,
// which never execs and never hands its socket on, so whatever later comes
// on that connection is the shim's.
#ifndef AGT_COLLECTOR_LISTEN_PEER_ATTESTATION_H_
#define AGT_COLLECTOR_LISTEN_PEER_ATTESTATION_H_

#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <string>
#include <string_view>
#include <unordered_map>

#include "listen/cgroup_by_id.h"
#include "listen/cgroup_sandbox_id.h"
#include "listen/exe_identity.h"
#include "unique_fd.h"

namespace peer_attestation {

struct Peer {
  pid_t pid = 0;  // in the collector's pid namespace (the host's)
  uid_t uid = 0;
  gid_t gid = 0;
  bool exe_known = false;  // /proc/PID/exe could be opened
  std::string exe_path;    // as the kernel shows it (the peer's mount namespace)
  exe_identity::Identity exe;
  std::string exe_sha256;  // empty: not computed (cannot be the shim)
  std::string cgroup;      // the path the sandbox id came from (or the unified one)
  std::string sandbox_id;  // empty: no layout matched
  pid_t tracer_pid = 0;    // /proc/PID/status TracerPid
  // Non-dumpable since exec: no other process of its user could write its
  // memory (peer_memory.h).
  bool memory_protected = false;
};

enum class Verdict {
  kGenuine,          // the shim's content, alive at the check, not traced
  kNoCredentials,    // SO_PEERCRED, SO_PEERPIDFD or a /proc read failed (alive)
  kGone,             // exited before the check could be completed
  kOtherExecutable,  // another executable (or a modified copy of the shim)
  kTraced,           // TracerPid != 0: a tracer can rewrite its memory
  kMemoryWritable,   // a non-root sender any process of its user could have
                     // rewritten without a tracer: dumpable (peer_memory.h)
  kNotItsSocket,     // the connection is not one the process opened itself
                     // (e.g. a script connected, sent, then exec'd the shim)
  kNotHashed,        // its executable was not hashed: the container's hash
                     // budget is spent (exe_identity::HashBudget); refused
};
// "the sender is not the shim", ...: a reason for the forgery entry.
const char* Describe(Verdict v);

// The NETLINK_SOCK_DIAG sockets that find a connection's peer end: sock_diag
// answers only within a network namespace, and the collector's end of a
// connection from a container belongs to the container's. One socket per
// namespace, made there once (setns there and back, CAP_SYS_ADMIN) and kept:
// a connection costs one query, not a socket and two setns. At most
// kMaxNamespaces are kept (then all are dropped and made again), so sockets
// held for containers gone do not pile up. A kept socket holds its
// namespace, so the namespace's inode (the key) cannot be reused meanwhile.
//
// The namespace is asked of the kernel (SIOCGSKNS) once per container, then
// guessed: the one its last connection was in. A guess is only tried: the
// query names the socket by inode and by cookie (SO_COOKIE, never reused),
// so it finds that very socket or nothing, and nothing sends it the long way.
class DiagSockets {
 public:
  static constexpr size_t kMaxNamespaces = 64;
  static constexpr size_t kMaxGuesses = 1024;  // containers remembered (then all forgotten)
  // The inode of the other end of the unix socket `conn_fd` (0: unknown);
  // `container` keys the guess (the peer's cgroup).
  uint64_t PeerInode(int conn_fd, const std::string& container);
  size_t namespaces() const { return by_netns_.size(); }
  uint64_t namespace_asks() const { return asks_; }  // SIOCGSKNS made (guesses missed)
  // The descriptor number the last genuine peer held its socket at: where
  // the next peer's is looked for first (Attest; 3 before any).
  int likely_fd = 3;
  // The socket mount's id (SockfsMountId), which a peer's descriptor must
  // name in its fdinfo to be a socket: set by the owner of the listening
  // socket when it is made. -1: unknown, each descriptor is then looked at
  // through its link (one system call more).
  long long sockfs_mnt = -1;

 private:
  // The query socket for conn_fd's namespace (-1: none); *netns its inode
  // (0: the collector's own, SIOCGSKNS refused).
  int For(int conn_fd, uint64_t* netns);
  std::unordered_map<uint64_t, unique_fd::UniqueFd> by_netns_;  // netns inode
  std::unordered_map<std::string, uint64_t> guesses_;           // container -> netns inode
  unique_fd::UniqueFd own_;  // the collector's namespace: when SIOCGSKNS is refused
  uint64_t asks_ = 0;
};

// The id of the kernel's socket mount (sockfs), from the fdinfo of
// `own_socket`, any socket of this process: every socket's inode lives on
// that one mount, whichever process or namespace made it (-1: fdinfo does
// not say).
long long SockfsMountId(int own_socket);

// What is read once per connection, at accept (for the per-container
// limits), and used again by Attest: the kernel's credentials (SO_PEERCRED,
// fixed at connect()), a pidfd for the peer (SO_PEERPIDFD, Attest's
// liveness check), and the peer's cgroup, matched. The cgroup comes from
// the pidfd's cgroup id when that id has been seen (cgroup_by_id.h), else
// from /proc/PID/cgroup; either is covered by Attest's pidfd check as its
// own reads are. Read after connect(), /proc/PID names the connecting
// process as long as the pidfd says that process is alive: a pid cannot be
// reused before its process has exited.
struct PeerCgroup {
  bool have_cred = false;  // false: SO_PEERCRED failed (cred_error says why)
  struct ucred cred = {};
  std::string cred_error;
  unique_fd::UniqueFd pidfd;  // not ok: SO_PEERPIDFD failed (pidfd_errno)
  int pidfd_errno = 0;
  bool read = false;       // false: no credentials, or the file unreadable
  std::string cgroup;      // as Peer::cgroup
  std::string sandbox_id;  // as Peer::sandbox_id
};
PeerCgroup ReadPeerCgroup(int conn_fd, const cgroup_sandbox_id::Matcher& cgroups,
                          cgroup_by_id::Cache* by_id);

// The cgroup2 id of the process behind `pidfd` (PIDFD_GET_INFO, Linux
// 6.13 and later); false when the kernel does not say (or it has exited).
bool CgroupIdOf(int pidfd, uint64_t* id);

// Reads the kernel's facts about the peer of `conn_fd` and judges it;
// `cgroup` is what ReadPeerCgroup read for this connection.
// *err says what failed for kNoCredentials (with errno).
// Hashing the executable, when its hash is not cached, is paid from
// *budget (the container's).
Verdict Attest(int conn_fd, const exe_identity::ShimReference& shim,
               exe_identity::HashCache* hashes, exe_identity::HashBudget* budget,
               const PeerCgroup& cgroup, DiagSockets* diag, Peer* peer, std::string* err);

// data.attestation, canonical JSON: {"attested": A, "cgroup": C,
// "exe": {"dev": D, "ino": I, "path": P, "sha256": S}, "gid": G,
// "memory_protected": M, "pid": P, "tracer_pid": T, "uid": U}; "exe" is null when it could not be
// read, and "sha256" null when it was not computed.
void AppendAttestationJson(const Peer& peer, bool attested, std::string* out);

// Whether SO_PEERPIDFD works on this kernel (Linux 6.5 and later): checked
// once at start on a socket pair.
bool KernelSupportsPeerPidfd(std::string* err);

}  // namespace peer_attestation

#endif  // AGT_COLLECTOR_LISTEN_PEER_ATTESTATION_H_
