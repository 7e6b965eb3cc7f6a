#include "listen/peer_attestation.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/sockios.h>
#include <linux/unix_diag.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "canonical_json.h"
#include "clock_ms.h"
#include "listen/peer_memory.h"
#include "listen/pidfd_info.h"
#include "logs.h"
#include "unique_fd.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77  // Linux 6.5; older headers lack it
#endif

namespace peer_attestation {
namespace {

// The names of a process's /proc files ("/proc/PID/NAME"), each read by its
// path: every read resolves /proc/PID again, which costs less than opening
// the directory and closing it (two system calls) for the four or five reads
// a connection makes. Whatever the pid names at each read, the pidfd check
// after them all (Attest) vouches that it was the sender throughout.
class ProcPath {
 public:
  explicit ProcPath(pid_t pid)
      : prefix_(snprintf(buf_, sizeof buf_, "/proc/%d/", static_cast<int>(pid))) {}
  // The path of `name`, valid until the next call.
  const char* Name(const char* name) {
    snprintf(buf_ + prefix_, sizeof buf_ - prefix_, "%s", name);
    return buf_;
  }
  // The path of `dir` (e.g. "fdinfo/") and descriptor `fd`.
  const char* Fd(const char* dir, int fd) {
    snprintf(buf_ + prefix_, sizeof buf_ - prefix_, "%s%d", dir, fd);
    return buf_;
  }

 private:
  char buf_[64];
  int prefix_;
};

// Reads the start of a small /proc file into buf (at most `cap` bytes, no
// allocation: this runs once per connection); -1 when it cannot be read.
// One read: these files are made whole at the read (seq_file, single_open),
// which hands over all that fits.
// With `owner`, also the uid the file belongs to (fstat of the open file).
ssize_t ReadStart(const char* path, char* buf, size_t cap, uid_t* owner = nullptr) {
  const unique_fd::UniqueFd fd(open(path, O_RDONLY | O_CLOEXEC));
  if (!fd.ok()) return -1;
  struct stat st;
  if (owner != nullptr) {
    if (fstat(fd.get(), &st) != 0) return -1;
    *owner = st.st_uid;
  }
  for (;;) {
    const ssize_t n = read(fd.get(), buf, cap);
    if (n >= 0 || errno != EINTR) return n;
  }
}

// What is read of /proc/PID/status: its lines up to CapEff, some 30 lines
// in (peer_memory::ParseStatusIds says which), fit well inside this.
constexpr size_t kStatusBytes = 4096;

// The process behind `pidfd` has not exited (a pidfd polls readable once it has).
bool Alive(int pidfd) {
  struct pollfd p = {pidfd, POLLIN, 0};
  const int n = poll(&p, 1, 0);
  return n == 0;
}

// The inode of the other end of the unix socket `fd`, asked through a
// NETLINK_SOCK_DIAG socket `nl` in the socket's network namespace; 0 when
// the kernel does not say (another namespace, or the peer closed it).
uint64_t AskPeerInode(int nl, uint64_t ino, const uint32_t cookie[2]) {
  struct {
    nlmsghdr header;
    unix_diag_req body;
  } req = {};
  req.header.nlmsg_len = sizeof req;
  req.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  req.header.nlmsg_flags = NLM_F_REQUEST;
  req.body.sdiag_family = AF_UNIX;
  req.body.udiag_states = ~0u;
  req.body.udiag_ino = static_cast<uint32_t>(ino);
  req.body.udiag_show = UDIAG_SHOW_PEER;
  req.body.udiag_cookie[0] = cookie[0];  // ~0u, ~0u: INET_DIAG_NOCOOKIE
  req.body.udiag_cookie[1] = cookie[1];
  if (send(nl, &req, sizeof req, 0) != static_cast<ssize_t>(sizeof req)) return 0;
  alignas(nlmsghdr) char buf[1024];
  const ssize_t n = recv(nl, buf, sizeof buf, 0);
  const auto* h = reinterpret_cast<const nlmsghdr*>(buf);
  if (n < 0 || !NLMSG_OK(h, static_cast<uint32_t>(n)) || h->nlmsg_type != SOCK_DIAG_BY_FAMILY) {
    return 0;
  }
  const auto* msg = static_cast<const unix_diag_msg*>(NLMSG_DATA(h));
  int left = static_cast<int>(h->nlmsg_len - NLMSG_LENGTH(sizeof *msg));
  for (const rtattr* a = reinterpret_cast<const rtattr*>(msg + 1); RTA_OK(a, left);
       a = RTA_NEXT(a, left)) {
    if (a->rta_type == UNIX_DIAG_PEER && RTA_PAYLOAD(a) >= sizeof(uint32_t)) {
      return *static_cast<const uint32_t*>(RTA_DATA(a));
    }
  }
  return 0;
}

unique_fd::UniqueFd DiagSocket() {
  return unique_fd::UniqueFd(socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG));
}

// What descriptor `fd` of the process (its /proc directory `proc`) is
// to the socket with inode `ino` ("socket:[INO]", the kernel's name for it).
enum class FdHolds { kOther, kOwnSocket, kInheritedSocket };

// Whether fdinfo text `info` (/proc/PID/fdinfo/FD) says O_CLOEXEC.
FdHolds ByFlags(const char* info) {
  const char* flags_at = strstr(info, "flags:");
  if (flags_at == nullptr) return FdHolds::kInheritedSocket;  // cannot be shown to be its own
  return (strtoul(flags_at + 6, nullptr, 8) & O_CLOEXEC) != 0 ? FdHolds::kOwnSocket
                                                              : FdHolds::kInheritedSocket;
}

FdHolds SocketAt(ProcPath* proc, int fd, uint64_t ino) {
  char want[40];
  const int want_len =
      snprintf(want, sizeof want, "socket:[%llu]", static_cast<unsigned long long>(ino));
  char target[64];
  const ssize_t n = readlink(proc->Fd("fd/", fd), target, sizeof target);
  if (n != want_len || memcmp(target, want, static_cast<size_t>(n)) != 0) return FdHolds::kOther;
  char info[512];
  const ssize_t got = ReadStart(proc->Fd("fdinfo/", fd), info, sizeof info - 1);
  if (got <= 0) return FdHolds::kInheritedSocket;  // cannot be shown to be its own
  info[got] = '\0';
  return ByFlags(info);
}

// The number after `key` in fdinfo text `info` (-1: not there).
long long FdinfoField(const char* info, const char* key) {
  const char* at = strstr(info, key);
  return at == nullptr ? -1 : strtoll(at + strlen(key), nullptr, 10);
}

// As SocketAt, from fdinfo alone: it names the file's mount and inode
// ("mnt_id:", "ino:") beside its flags, so one read answers without the
// readlink. The mount must be sockfs (`sockfs_mnt`): an inode number alone
// could be another filesystem's file. *unsure when fdinfo does not say
// (then SocketAt must).
FdHolds SocketAtByInfo(ProcPath* proc, int fd, uint64_t ino, long long sockfs_mnt, bool* unsure) {
  *unsure = false;
  char info[512];
  const ssize_t got = ReadStart(proc->Fd("fdinfo/", fd), info, sizeof info - 1);
  if (got <= 0) return FdHolds::kOther;  // no such descriptor (or gone: the pidfd tells)
  info[got] = '\0';
  const long long mnt = FdinfoField(info, "\nmnt_id:");
  const long long file_ino = FdinfoField(info, "\nino:");
  if (sockfs_mnt < 0 || mnt < 0 || file_ino < 0) {
    *unsure = true;
    return FdHolds::kOther;
  }
  if (mnt != sockfs_mnt || static_cast<uint64_t>(file_ino) != ino) return FdHolds::kOther;
  return ByFlags(info);
}

// Whether the process (its /proc directory `proc`) holds the socket
// with inode `ino` in a descriptor it opened itself: one with O_CLOEXEC. The
// shim can only make such sockets (its seccomp filter allows no other); a
// socket that survived an exec never has the flag. So a record sent by a
// process that then exec'd the shim is not taken for the shim's.
//
// Which descriptor is looked at does not change the answer: the shim cannot
// dup a descriptor or receive one, so a socket it made is held once, and
// every descriptor to a socket it inherited lacks the flag (an exec closed
// those that had it). So the likely ones are tried first (from their fdinfo
// alone, SocketAtByInfo), without listing the directory: *likely_fd, where
// the last genuine peer held its socket (a sandbox's launcher tends to hand
// every command the same descriptors), then kFirstFree, where a process
// that inherited nothing but stdin, stdout and stderr makes its first
// socket. Otherwise at most kMaxFds descriptors are looked at, the newest
// (highest) first: the shim's socket is the last descriptor it opened.
// *likely_fd becomes the descriptor its own socket was found at.
bool HoldsOwnSocket(ProcPath* proc, uint64_t ino, long long sockfs_mnt, int* likely_fd) {
  constexpr int kFirstFree = 3;
  constexpr int kMaxFds = 256;
  const int tries[2] = {*likely_fd, kFirstFree};
  for (int i = 0; i < (*likely_fd == kFirstFree ? 1 : 2); ++i) {
    bool unsure = false;
    FdHolds likely = SocketAtByInfo(proc, tries[i], ino, sockfs_mnt, &unsure);
    if (unsure) likely = SocketAt(proc, tries[i], ino);
    if (likely == FdHolds::kOwnSocket) *likely_fd = tries[i];
    if (likely != FdHolds::kOther) return likely == FdHolds::kOwnSocket;
  }
  const unique_fd::UniqueFd fd_dir(open(proc->Name("fd"), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd_dir.ok()) return false;
  // The names, read with getdents64 into the stack (no DIR: no allocation,
  // no fcntl/fstat of its own).
  alignas(struct dirent64) char buf[8192];
  int fds[kMaxFds];
  int count = 0;
  for (ssize_t n; count < kMaxFds && (n = getdents64(fd_dir.get(), buf, sizeof buf)) > 0;) {
    for (ssize_t at = 0; at < n && count < kMaxFds;) {
      const auto* e = reinterpret_cast<const struct dirent64*>(buf + at);
      at += e->d_reclen;
      if (e->d_name[0] >= '0' && e->d_name[0] <= '9') fds[count++] = atoi(e->d_name);
    }
  }
  for (int i = count - 1; i >= 0; --i) {
    const FdHolds holds = SocketAt(proc, fds[i], ino);
    if (holds == FdHolds::kOwnSocket) *likely_fd = fds[i];
    if (holds != FdHolds::kOther) return holds == FdHolds::kOwnSocket;
  }
  return false;
}

void AppendStringOr(std::string_view text, const char* if_not_utf8, std::string* out) {
  if (!canonical_json::AppendString(text, out)) {
    out->push_back('"');
    out->append(if_not_utf8);
    out->push_back('"');
  }
}

// The SHA-256 of the executable of the process at `proc` (its /proc
// directory), whose identity was stated as `id`: from the cache, else read
// from the file opened now, which must still be that identity (a process
// that exec'd meanwhile is not judged by another file's hash).
exe_identity::HashCache::Result ExeSha256(ProcPath* proc, const exe_identity::Identity& id,
                                          int64_t now_ns, exe_identity::HashCache* hashes,
                                          exe_identity::HashBudget* budget, std::string* hex,
                                          std::string* err) {
  using Result = exe_identity::HashCache::Result;
  if (hashes->Cached(id, hex)) return Result::kKnown;
  const unique_fd::UniqueFd fd(open(proc->Name("exe"), O_RDONLY | O_CLOEXEC));
  struct stat st;
  if (!fd.ok() || fstat(fd.get(), &st) != 0) {
    *err = logs::ErrnoReason("open", "exe", errno);
    return Result::kUnreadable;
  }
  if (!(exe_identity::Identity::Of(st) == id)) {
    *err = "the executable changed while it was checked";
    return Result::kUnreadable;
  }
  return hashes->Sha256(fd.get(), id, now_ns, budget, hex, err);
}

}  // namespace

int DiagSockets::For(int conn_fd, uint64_t* netns) {
  *netns = 0;
  ++asks_;
  // The namespace of the collector's end (SIOCGSKNS: CAP_NET_ADMIN there).
  const unique_fd::UniqueFd theirs(ioctl(conn_fd, SIOCGSKNS));
  struct stat ns;
  if (!theirs.ok() || fstat(theirs.get(), &ns) != 0) {
    if (!own_.ok()) own_ = DiagSocket();
    return own_.get();
  }
  *netns = ns.st_ino;
  const auto it = by_netns_.find(ns.st_ino);
  if (it != by_netns_.end()) return it->second.get();
  if (by_netns_.size() >= kMaxNamespaces) by_netns_.clear();
  // Made there, and back at once. Only the run loop's thread switches (the
  // sync thread only syncs), and never stays in a sandbox's namespace.
  const unique_fd::UniqueFd ours(open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC));
  if (!ours.ok() || setns(theirs.get(), CLONE_NEWNET) != 0) return -1;
  unique_fd::UniqueFd nl = DiagSocket();
  if (setns(ours.get(), CLONE_NEWNET) != 0) abort();
  if (!nl.ok()) return -1;
  return (by_netns_[ns.st_ino] = std::move(nl)).get();
}

uint64_t DiagSockets::PeerInode(int conn_fd, const std::string& container) {
  struct stat st;
  if (fstat(conn_fd, &st) != 0) return 0;
  uint64_t cookie = 0;
  socklen_t len = sizeof cookie;
  const bool have_cookie =
      getsockopt(conn_fd, SOL_SOCKET, SO_COOKIE, &cookie, &len) == 0 && len == sizeof cookie;
  const uint32_t by_cookie[2] = {have_cookie ? static_cast<uint32_t>(cookie) : ~0u,
                                 have_cookie ? static_cast<uint32_t>(cookie >> 32) : ~0u};
  // The guess, only when the cookie makes a wrong one find nothing.
  if (have_cookie) {
    const auto guess = guesses_.find(container);
    if (guess != guesses_.end()) {
      const auto nl = by_netns_.find(guess->second);
      if (nl != by_netns_.end()) {
        const uint64_t peer = AskPeerInode(nl->second.get(), st.st_ino, by_cookie);
        if (peer != 0) return peer;
      }
    }
  }
  uint64_t netns = 0;
  const int nl = For(conn_fd, &netns);
  const uint64_t peer = nl >= 0 ? AskPeerInode(nl, st.st_ino, by_cookie) : 0;
  if (peer != 0 && netns != 0 && have_cookie) {
    if (guesses_.size() >= kMaxGuesses) guesses_.clear();
    guesses_[container] = netns;
  }
  return peer;
}

long long SockfsMountId(int own_socket) {
  const std::string path = "/proc/self/fdinfo/" + std::to_string(own_socket);
  char info[512];
  const ssize_t got = ReadStart(path.c_str(), info, sizeof info - 1);
  if (got <= 0) return -1;
  info[got] = '\0';
  return FdinfoField(info, "\nmnt_id:");
}

const char* Describe(Verdict v) {
  switch (v) {
    case Verdict::kGenuine: return "the shim";
    case Verdict::kNoCredentials: return "the sender's credentials could not be read";
    case Verdict::kGone: return "the sender exited before it could be checked";
    case Verdict::kOtherExecutable: return "the sender's executable is not the shim";
    case Verdict::kTraced: return "the sender runs under a tracer (TracerPid is not 0)";
    case Verdict::kMemoryWritable:
      return "the sender's memory could be rewritten by any process of its user: the kernel "
             "left it dumpable (install the shim unreadable to the sandbox user, mode 0711)";
    case Verdict::kNotItsSocket:
      return "the sender's socket was not opened by the shim (inherited across exec, handed over, "
             "or closed)";
    case Verdict::kNotHashed:
      return "the sender's executable was not hashed: its container is over its hashing budget";
  }
  return "?";
}

bool CgroupIdOf(int pidfd, uint64_t* id) {
  pidfd_info::InfoV0 info = {};
  info.mask = pidfd_info::kInfoCgroupId;
  if (ioctl(pidfd, pidfd_info::kGetInfo, &info) != 0 ||
      (info.mask & pidfd_info::kInfoCgroupId) == 0) {
    return false;
  }
  *id = info.cgroupid;
  return true;
}

PeerCgroup ReadPeerCgroup(int conn_fd, const cgroup_sandbox_id::Matcher& cgroups,
                          cgroup_by_id::Cache* by_id) {
  PeerCgroup result;
  socklen_t len = sizeof result.cred;
  if (getsockopt(conn_fd, SOL_SOCKET, SO_PEERCRED, &result.cred, &len) != 0 ||
      result.cred.pid <= 0) {
    result.cred_error = std::string("getsockopt SO_PEERCRED: ") + strerror(errno);
    return result;
  }
  result.have_cred = true;
  int pidfd_raw = -1;
  len = sizeof pidfd_raw;
  if (getsockopt(conn_fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd_raw, &len) == 0) {
    result.pidfd.Reset(pidfd_raw);
  } else {
    result.pidfd_errno = errno;  // ESRCH: the peer has been reaped already
  }
  uint64_t id = 0;
  const bool have_id = result.pidfd.ok() && CgroupIdOf(result.pidfd.get(), &id);
  if (have_id && by_id->Find(id, &result.cgroup, &result.sandbox_id)) {
    result.read = true;
    return result;
  }
  ProcPath proc(result.cred.pid);
  char text[8192];
  const ssize_t n = ReadStart(proc.Name("cgroup"), text, sizeof text);
  result.read = n >= 0;
  if (!result.read) return result;
  const std::string_view proc_cgroup(text, static_cast<size_t>(n));
  cgroups.Match(proc_cgroup, &result.cgroup, &result.sandbox_id);
  // Kept only when the process was in cgroup `id` before and after the
  // read (so the text is that cgroup's); a pid reused meanwhile has another
  // pidfd's process behind it, which the ids of this pidfd do not vouch for,
  // so the pidfd must also still be alive.
  uint64_t id_after = 0;
  if (have_id && CgroupIdOf(result.pidfd.get(), &id_after) && id_after == id &&
      Alive(result.pidfd.get())) {
    by_id->Learn(id, proc_cgroup, result.cgroup, result.sandbox_id);
  }
  return result;
}

Verdict Attest(int conn_fd, const exe_identity::ShimReference& shim,
               exe_identity::HashCache* hashes, exe_identity::HashBudget* budget,
               const PeerCgroup& cgroup, DiagSockets* diag, Peer* peer, std::string* err) {
  *peer = Peer();
  // The credentials the kernel recorded at connect(): read once, at accept.
  if (!cgroup.have_cred) {
    *err = cgroup.cred_error;
    return Verdict::kNoCredentials;
  }
  peer->pid = cgroup.cred.pid;
  peer->uid = cgroup.cred.uid;
  peer->gid = cgroup.cred.gid;
  // The pidfd taken at accept, for the very process the kernel named then.
  if (!cgroup.pidfd.ok()) {
    if (cgroup.pidfd_errno == ESRCH) return Verdict::kGone;
    *err = std::string("getsockopt SO_PEERPIDFD: ") + strerror(cgroup.pidfd_errno);
    return Verdict::kNoCredentials;
  }
  const int pidfd = cgroup.pidfd.get();

  // The reads, through /proc/PID by path (ProcPath). Each may fail because
  // the process is gone (or the pid is another process's now): the pidfd
  // check below tells.
  ProcPath proc(peer->pid);
  int exe_errno = 0;
  char target[PATH_MAX];
  const ssize_t n = readlink(proc.Name("exe"), target, sizeof target - 1);
  const int readlink_errno = errno;
  // Stated through the link (the executable itself, as an open of it
  // would give); opened only when its hash is not cached (ExeSha256).
  struct stat st;
  const bool stated = n > 0 && stat(proc.Name("exe"), &st) == 0;
  exe_errno = n <= 0 ? readlink_errno : errno;
  if (stated) {
    peer->exe_known = true;
    peer->exe_path.assign(target, static_cast<size_t>(n));
    peer->exe = exe_identity::Identity::Of(st);
  }
  char status[kStatusBytes];
  uid_t status_owner = 0;
  const ssize_t got = ReadStart(proc.Name("status"), status, sizeof status, &status_owner);
  const std::string_view status_text(status, got > 0 ? static_cast<size_t>(got) : 0);
  peer_memory::StatusIds ids;
  const bool read_all = got > 0 && cgroup.read && peer_memory::ParseStatusIds(status_text, &ids);
  if (read_all) peer->tracer_pid = ids.tracer_pid;
  peer_memory::Judgement memory = peer_memory::Judgement::kWritable;
  if (read_all && stated) {
    memory = peer_memory::Judge(st, status_owner, ids);
    peer->memory_protected = memory == peer_memory::Judgement::kProtected;
  }
  peer->cgroup = cgroup.cgroup;
  peer->sandbox_id = cgroup.sandbox_id;
  // The executable's hash and the tracer need no more of /proc: judged
  // first, so the costlier socket check below runs only for what would
  // otherwise be the genuine shim. Every verdict still waits for the pidfd.
  Verdict verdict = Verdict::kGenuine;
  // In whole milliseconds: "now" may read up to 1 ms early, which only ever
  // makes a file look more recently changed (hashed again, not cached).
  const int64_t now_ns = clock_ms::Realtime() * 1'000'000;
  std::string hash_err;
  using HashResult = exe_identity::HashCache::Result;
  const HashResult hashed =
      !peer->exe_known || !read_all
          ? HashResult::kKnown
          : ExeSha256(&proc, peer->exe, now_ns, hashes, budget, &peer->exe_sha256, &hash_err);
  if (!peer->exe_known || !read_all) {
    verdict = Verdict::kNoCredentials;
  } else if (hashed == HashResult::kOverBudget) {
    verdict = Verdict::kNotHashed;
  } else if (hashed == HashResult::kUnreadable) {
    verdict = Verdict::kOtherExecutable;  // cannot be shown to be the shim
  } else if (peer->exe_sha256 != shim.sha256()) {
    verdict = Verdict::kOtherExecutable;
  } else if (peer->tracer_pid != 0) {
    verdict = Verdict::kTraced;
  } else if (memory == peer_memory::Judgement::kWritable) {
    verdict = Verdict::kMemoryWritable;
  } else {
    const uint64_t peer_socket = diag->PeerInode(conn_fd, cgroup.cgroup);
    if (peer_socket == 0 ||
        !HoldsOwnSocket(&proc, peer_socket, diag->sockfs_mnt, &diag->likely_fd)) {
      verdict = Verdict::kNotItsSocket;
    }
  }
  // The check: alive now, so alive through the reads above.
  if (!Alive(pidfd)) return Verdict::kGone;
  if (!peer->exe_known) {
    // Alive, so the reads failed for another reason: another user's
    // process needs CAP_SYS_PTRACE (agt-collector(1), LISTEN).
    *err = logs::ErrnoReason("stat", proc.Name("exe"), exe_errno);
  } else if (!read_all) {
    *err = "cannot read " + std::string(proc.Name("status")) + " or cgroup";
  } else if (!hash_err.empty()) {
    *err = hash_err;
  }
  return verdict;
}

void AppendAttestationJson(const Peer& peer, bool attested, std::string* out) {
  out->append("{\"attested\": ");
  out->append(attested ? "true" : "false");
  out->append(", \"cgroup\": ");
  AppendStringOr(peer.cgroup, "<cgroup not UTF-8>", out);
  out->append(", \"exe\": ");
  if (!peer.exe_known) {
    out->append("null");
  } else {
    out->append("{\"dev\": ");
    canonical_json::AppendUint(peer.exe.dev, out);
    out->append(", \"ino\": ");
    canonical_json::AppendUint(peer.exe.ino, out);
    out->append(", \"path\": ");
    AppendStringOr(peer.exe_path, "<path not UTF-8>", out);
    out->append(", \"sha256\": ");
    if (peer.exe_sha256.empty()) {
      out->append("null");
    } else {
      out->append("\"" + peer.exe_sha256 + "\"");
    }
    out->push_back('}');
  }
  out->append(", \"gid\": ");
  canonical_json::AppendUint(peer.gid, out);
  out->append(", \"memory_protected\": ");
  out->append(peer.memory_protected ? "true" : "false");
  out->append(", \"pid\": ");
  canonical_json::AppendUint(static_cast<uint64_t>(peer.pid), out);
  out->append(", \"tracer_pid\": ");
  canonical_json::AppendUint(static_cast<uint64_t>(peer.tracer_pid), out);
  out->append(", \"uid\": ");
  canonical_json::AppendUint(peer.uid, out);
  out->push_back('}');
}

bool KernelSupportsPeerPidfd(std::string* err) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
    *err = std::string("socketpair: ") + strerror(errno);
    return false;
  }
  const unique_fd::UniqueFd a(sv[0]), b(sv[1]);
  int pidfd = -1;
  socklen_t len = sizeof pidfd;
  if (getsockopt(a.get(), SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) != 0) {
    *err = std::string("getsockopt SO_PEERPIDFD: ") + strerror(errno) +
           " (attestation needs Linux 6.5 or later)";
    return false;
  }
  const unique_fd::UniqueFd peer(pidfd);
  return true;
}

}  // namespace peer_attestation
