// Test helper: exec PROGRAM in a process where the kernel refuses any new
// seccomp filter (prctl(PR_SET_SECCOMP) and seccomp() fail with EPERM), to
// show that the shim still denies and reports "confined":false.
// Usage: exec_seccomp_refused PROGRAM [ARGS...]
#include <errno.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

extern char** environ;

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: exec_seccomp_refused PROGRAM [ARGS...]\n");
    return 2;
  }
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == nullptr ||
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(prctl), 1,
                       SCMP_A0(SCMP_CMP_EQ, PR_SET_SECCOMP)) != 0 ||
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(seccomp), 0) != 0 ||
      seccomp_load(ctx) != 0) {
    fprintf(stderr, "exec_seccomp_refused: error: could not load the refusing filter\n");
    return 1;
  }
  seccomp_release(ctx);
  execve(argv[1], argv + 1, environ);
  fprintf(stderr, "exec_seccomp_refused: error: execve %s: %s\n", argv[1], strerror(errno));
  return 127;
}
