#include "confine.h"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>

#include "seccomp_filter_bpf.h"

namespace confine {

bool Confine() {
  // no_new_privs first: the kernel refuses an unprivileged filter without
  // it, and it keeps a setuid exec from regaining privileges either way.
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  struct sock_fprog prog;
  prog.len = static_cast<unsigned short>(sizeof seccomp_filter_bpf::kProgram /
                                         sizeof seccomp_filter_bpf::kProgram[0]);
  prog.filter = const_cast<struct sock_filter*>(seccomp_filter_bpf::kProgram);
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) == 0;
}

}  // namespace confine
