// PIDFD_GET_INFO (Linux 6.13), for headers that lack it: the first version
// of its structure, which every later kernel still answers (the request
// carries the size the caller knows). Used for the peer's cgroup id
// (peer_attestation.cc); syscall_allowlist.cc allows this one request.
#ifndef AGT_COLLECTOR_LISTEN_PIDFD_INFO_H_
#define AGT_COLLECTOR_LISTEN_PIDFD_INFO_H_

#include <stdint.h>
#include <sys/ioctl.h>

namespace pidfd_info {

struct InfoV0 {
  uint64_t mask;
  uint64_t cgroupid;
  uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
  uint32_t spare0;
};
static_assert(sizeof(InfoV0) == 64, "PIDFD_INFO_SIZE_VER0");

constexpr unsigned long kGetInfo = _IOWR(0xFF, 11, InfoV0);
constexpr uint64_t kInfoCgroupId = 1u << 2;  // PIDFD_INFO_CGROUPID

}  // namespace pidfd_info

#endif  // AGT_COLLECTOR_LISTEN_PIDFD_INFO_H_
