#include "syscall_allowlist.h"

#include <errno.h>
#include <seccomp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <initializer_list>
#include <memory>

namespace syscall_allowlist {

namespace {

// Allowed whatever their arguments.
constexpr int kPlain[] = {
    // descriptors already open, and files Landlock lets it open
    SCMP_SYS(read), SCMP_SYS(pread64), SCMP_SYS(readv), SCMP_SYS(write), SCMP_SYS(pwrite64),
    SCMP_SYS(writev), SCMP_SYS(lseek), SCMP_SYS(openat), SCMP_SYS(close), SCMP_SYS(fstat),
    SCMP_SYS(newfstatat), SCMP_SYS(statx), SCMP_SYS(fcntl), SCMP_SYS(flock), SCMP_SYS(fadvise64),
    SCMP_SYS(fdatasync), SCMP_SYS(fsync), SCMP_SYS(ftruncate),
    // the allocator
    SCMP_SYS(brk), SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(madvise),
    // time, randomness, and what exit and abort() use
    SCMP_SYS(clock_gettime), SCMP_SYS(gettimeofday), SCMP_SYS(getrandom), SCMP_SYS(futex),
    SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(tgkill), SCMP_SYS(rt_sigaction),
    SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn), SCMP_SYS(exit), SCMP_SYS(exit_group),
};

struct FilterDeleter {
  void operator()(void* ctx) const { seccomp_release(ctx); }
};

}  // namespace

bool LoadOneShot(std::string* reason) {
  std::unique_ptr<void, FilterDeleter> ctx(seccomp_init(SCMP_ACT_ERRNO(EPERM)));
  if (!ctx) {
    *reason = "seccomp_init failed";
    return false;
  }
  int rc = 0;
  const auto allow = [&](int nr, std::initializer_list<scmp_arg_cmp> args) {
    if (rc == 0) {
      rc = seccomp_rule_add_array(ctx.get(), SCMP_ACT_ALLOW, nr,
                                  static_cast<unsigned>(args.size()), args.begin());
    }
  };
  for (int nr : kPlain) allow(nr, {});
  // Memory, never executable: mapping code after start-up is not something it does.
  allow(SCMP_SYS(mmap), {SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)});
  allow(SCMP_SYS(mprotect), {SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)});
  // isatty() and the terminal's width, for progress lines; no other ioctl.
  allow(SCMP_SYS(ioctl), {SCMP_A1(SCMP_CMP_EQ, TCGETS)});
  allow(SCMP_SYS(ioctl), {SCMP_A1(SCMP_CMP_EQ, TIOCGWINSZ)});
  if (rc != 0) {
    *reason = std::string("seccomp_rule_add: ") + strerror(-rc);
    return false;
  }
  // no_new_privs is set by the caller; libseccomp must not set it silently.
  seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_NNP, 0);
  rc = seccomp_load(ctx.get());
  if (rc != 0) {
    *reason = std::string("seccomp_load: ") + strerror(-rc);
    return false;
  }
  return true;
}

}  // namespace syscall_allowlist
