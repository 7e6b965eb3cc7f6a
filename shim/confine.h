// Self-confinement of the denial path: no_new_privs, then the seccomp
// allow-list of seccomp_policy.h (loaded from the build-time generated BPF
// program), before argv or the environment is read.
#ifndef AGT_DENY_SHIM_CONFINE_H_
#define AGT_DENY_SHIM_CONFINE_H_

namespace confine {

// True when both no_new_privs and the filter took. On false the caller still
// denies; the record says "confined":false.
bool Confine();

}  // namespace confine

#endif  // AGT_DENY_SHIM_CONFINE_H_
