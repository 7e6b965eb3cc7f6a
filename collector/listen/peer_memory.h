// Whether a peer's memory could have been rewritten by another process of
// its user, judged from what the kernel shows of it.
//
// Any process may write the memory of a *dumpable* process of the same uid
// (/proc/PID/mem, process_vm_writev, ptrace attach), with no tracer left
// attached for TracerPid to show: stop the shim, patch its code or record,
// let it go on. The kernel makes a process non-dumpable at exec when its
// executable is not readable by it (the image installs the shim mode 0711);
// then those writes need CAP_SYS_PTRACE, which a sandbox does not have.
//
// Two facts, both from the kernel, decide it:
//  - the executable's mode and owner against the peer's fsuid, groups and
//    capabilities (/proc/PID/status): readable by it means dumpable from
//    exec, so its code could have been patched before anything else ran,
//    even into making itself non-dumpable;
//  - /proc/PID/status's owner, which the kernel sets to the process's euid
//    while it is dumpable and to its user namespace's root while it is not.
// A root peer (euid 0) owns its /proc files either way, so only the first
// fact tells for it; root with CAP_DAC_OVERRIDE reads any file, so a root
// sandbox's shim is dumpable and its memory not protected.
#ifndef AGT_COLLECTOR_LISTEN_PEER_MEMORY_H_
#define AGT_COLLECTOR_LISTEN_PEER_MEMORY_H_

#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <string_view>

namespace peer_memory {

// The lines of /proc/PID/status the attestation reads: the tracer (who can
// rewrite the process now) and what the judgement below reads.
struct StatusIds {
  pid_t tracer_pid = 0;
  uid_t euid = 0, fsuid = 0;
  gid_t fsgid = 0;
  static constexpr int kMaxGroups = 64;
  gid_t groups[kMaxGroups] = {};
  int group_count = 0;
  bool groups_cut = false;  // more than kMaxGroups: any group may match
  uint64_t cap_eff = 0;
};
// False when a line is missing or malformed (a status cut off included).
bool ParseStatusIds(std::string_view status, StatusIds* ids);

// Whether the file `exe` is readable by a process with `ids`, as the kernel's
// permission check at exec would find it (mode bits, owner class first, and
// CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH; ACLs are not read: the image's
// shim has none).
bool ExeReadableBy(const struct stat& exe, const StatusIds& ids);

enum class Judgement {
  kProtected,     // non-dumpable since exec: no other process of its user can write it
  kWritable,      // a non-root peer whose memory its user's processes can write
  kRootWritable,  // euid 0 and the file readable by it: other root processes can write it
};
// `status_owner`: the uid owning /proc/PID/status when it was read.
Judgement Judge(const struct stat& exe, uid_t status_owner, const StatusIds& ids);

}  // namespace peer_memory

#endif  // AGT_COLLECTOR_LISTEN_PEER_MEMORY_H_
