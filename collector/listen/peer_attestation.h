// What the kernel says about the process at the other end of a socket
// connection, and whether it is the genuine shim, alive and untraced.
//
// The order is what makes the facts the peer's: SO_PEERCRED gives the pid
// the kernel recorded at connect(), SO_PEERPIDFD a pidfd for that very
// process; /proc/PID/exe, status and cgroup are read; only THEN is the pidfd
// asked whether the process is still alive. Alive after the reads means the
// pid was not reused while they were made, so they describe the sender.
// (The shim waits for the acknowledgement, so a genuine one is alive.)
// The connection must also be one the process opened itself (the peer end,
// found by sock_diag, held in a descriptor with O_CLOEXEC): otherwise a
// script could connect, send its own record, and exec the shim.
#ifndef AGT_COLLECTOR_LISTEN_PEER_ATTESTATION_H_
#define AGT_COLLECTOR_LISTEN_PEER_ATTESTATION_H_

#include <stdint.h>
#include <sys/types.h>

#include <string>
#include <string_view>

#include "listen/cgroup_sandbox_id.h"
#include "listen/exe_identity.h"

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
};

enum class Verdict {
  kGenuine,          // the shim's content, alive at the check, not traced
  kNoCredentials,    // SO_PEERCRED, SO_PEERPIDFD or a /proc read failed (alive)
  kGone,             // exited before the check could be completed
  kOtherExecutable,  // another executable (or a modified copy of the shim)
  kTraced,           // TracerPid != 0: a tracer can rewrite its memory
  kNotItsSocket,     // the connection is not one the process opened itself
                     // (e.g. a script connected, sent, then exec'd the shim)
};
// "the sender is not the shim", ...: a reason for the forgery entry.
const char* Describe(Verdict v);

// Reads the kernel's facts about the peer of `conn_fd` and judges it.
// *err says what failed for kNoCredentials (with errno).
Verdict Attest(int conn_fd, const exe_identity::ShimReference& shim,
               exe_identity::HashCache* hashes, const cgroup_sandbox_id::Matcher& cgroups,
               Peer* peer, std::string* err);

// The pid the kernel recorded for the peer of `conn_fd` (SO_PEERCRED), and
// its cgroup text: at accept, to count connections per container. -1 when
// the credentials cannot be read.
pid_t PeerPid(int conn_fd);
// /proc/PID/cgroup's text ("" when unreadable).
std::string ReadProcCgroup(pid_t pid);

// data.attestation, canonical JSON: {"attested": A, "cgroup": C,
// "exe": {"dev": D, "ino": I, "path": P, "sha256": S}, "gid": G, "pid": P,
// "tracer_pid": T, "uid": U}; "exe" is null when it could not be read, and
// "sha256" null when it was not computed.
void AppendAttestationJson(const Peer& peer, bool attested, std::string* out);

// Whether SO_PEERPIDFD works on this kernel (Linux 6.5 and later): checked
// once at start on a socket pair.
bool KernelSupportsPeerPidfd(std::string* err);

}  // namespace peer_attestation

#endif  // AGT_COLLECTOR_LISTEN_PEER_ATTESTATION_H_
