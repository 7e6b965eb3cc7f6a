#include "syscall_allowlist.h"

#include <errno.h>
#include <linux/fs.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include <initializer_list>
#include <memory>

#include "listen/pidfd_info.h"

namespace syscall_allowlist {

namespace {

// Allowed whatever their arguments, for every subcommand.
constexpr int kPlain[] = {
    // descriptors already open, and files Landlock lets it open
    SCMP_SYS(read),
    SCMP_SYS(pread64),
    SCMP_SYS(readv),
    SCMP_SYS(write),
    SCMP_SYS(pwrite64),
    SCMP_SYS(writev),
    SCMP_SYS(lseek),
    SCMP_SYS(openat),
    SCMP_SYS(close),
    SCMP_SYS(fstat),
    SCMP_SYS(newfstatat),
    SCMP_SYS(statx),
    SCMP_SYS(fcntl),
    SCMP_SYS(flock),
    SCMP_SYS(fadvise64),
    SCMP_SYS(fdatasync),
    SCMP_SYS(fsync),
    SCMP_SYS(ftruncate),
    // the allocator
    SCMP_SYS(brk),
    SCMP_SYS(munmap),
    SCMP_SYS(mremap),
    SCMP_SYS(madvise),
    // time, randomness, and what exit and abort() use
    SCMP_SYS(clock_gettime),
    SCMP_SYS(gettimeofday),
    SCMP_SYS(getrandom),
    SCMP_SYS(futex),
    SCMP_SYS(getpid),
    SCMP_SYS(gettid),
    SCMP_SYS(tgkill),
    SCMP_SYS(rt_sigaction),
    SCMP_SYS(rt_sigprocmask),
    SCMP_SYS(rt_sigreturn),
    SCMP_SYS(exit),
    SCMP_SYS(exit_group),
    // a wait that SIGSTOP/SIGCONT (or a debugger) interrupted resumes through it
    SCMP_SYS(restart_syscall),
};

// What `run`'s loop adds (syscall_allowlist.h).
constexpr int kRun[] = {
    // waiting: signalfd, inotify, the socket's epoll set, pauses
    SCMP_SYS(poll),
    SCMP_SYS(ppoll),
    SCMP_SYS(epoll_wait),
    SCMP_SYS(epoll_pwait),
    SCMP_SYS(epoll_ctl),
    SCMP_SYS(nanosleep),
    SCMP_SYS(clock_nanosleep),
    SCMP_SYS(inotify_add_watch),
    SCMP_SYS(inotify_rm_watch),
    // sandbox trees, checkpoints, rotation, append-only logs (Landlock says where)
    SCMP_SYS(openat2),
    SCMP_SYS(getdents64),
    SCMP_SYS(readlinkat),
    SCMP_SYS(readlink),
    SCMP_SYS(rename),
    SCMP_SYS(renameat),
    SCMP_SYS(renameat2),
    SCMP_SYS(unlink),
    SCMP_SYS(unlinkat),
    SCMP_SYS(mkdir),
    SCMP_SYS(mkdirat),
    SCMP_SYS(fchown),
    SCMP_SYS(fchmod),
    SCMP_SYS(chmod),
    SCMP_SYS(fchmodat),  // a log directory's mode put back (/proc/self/fd)
    SCMP_SYS(fstatfs),
    SCMP_SYS(dup),
    SCMP_SYS(faccessat),
    SCMP_SYS(faccessat2),
    SCMP_SYS(access),
    // the attested socket: connections, their peer, syslog and sd_notify datagrams
    SCMP_SYS(accept4),
    SCMP_SYS(getsockopt),
    SCMP_SYS(recvmsg),
    SCMP_SYS(recvfrom),
    SCMP_SYS(sendmsg),
    SCMP_SYS(sendto),
    SCMP_SYS(connect),
    SCMP_SYS(getsockname),
    SCMP_SYS(pidfd_open),
    SCMP_SYS(getuid),
    SCMP_SYS(geteuid),
    SCMP_SYS(getgid),
    SCMP_SYS(getegid),
    // the end of the audit file's sync on its thread (sync_worker.h)
    SCMP_SYS(eventfd2),
    // its forwarder children: waited for and stopped (Landlock scopes signals)
    SCMP_SYS(wait4),
    SCMP_SYS(kill),
};

// What a forwarder child adds, exec'd under the filter: start-up of a
// dynamically linked program, threads, TCP and TLS, and name resolution.
constexpr int kForwarder[] = {
    SCMP_SYS(execve),        SCMP_SYS(arch_prctl),     SCMP_SYS(set_tid_address),
    SCMP_SYS(uname),         SCMP_SYS(sysinfo),        SCMP_SYS(sched_getaffinity),
    SCMP_SYS(sched_yield),   SCMP_SYS(getppid),        SCMP_SYS(getcwd),
    SCMP_SYS(setsockopt),    SCMP_SYS(getpeername),    SCMP_SYS(bind),
    SCMP_SYS(shutdown),      SCMP_SYS(select),         SCMP_SYS(pselect6),
    SCMP_SYS(epoll_create1), SCMP_SYS(pipe2),          SCMP_SYS(dup2),
    SCMP_SYS(dup3),          SCMP_SYS(sigaltstack),    SCMP_SYS(rt_sigtimedwait),
    SCMP_SYS(signalfd4),     SCMP_SYS(timerfd_create), SCMP_SYS(timerfd_settime),
};

// New namespaces are never what a forwarder's threads or spawn need.
constexpr uint64_t kNewNamespaces = CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET |
                                    CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;

struct FilterDeleter {
  void operator()(void* ctx) const { seccomp_release(ctx); }
};

using Filter = std::unique_ptr<void, FilterDeleter>;

// Adds rules, keeping the first error.
class Rules {
 public:
  explicit Rules(void* ctx) : ctx_(ctx) {}
  void Allow(int nr, std::initializer_list<scmp_arg_cmp> args = {}) {
    Add(SCMP_ACT_ALLOW, nr, args);
  }
  void Add(uint32_t action, int nr, std::initializer_list<scmp_arg_cmp> args) {
    if (rc_ == 0) {
      rc_ = seccomp_rule_add_array(ctx_, action, nr, static_cast<unsigned>(args.size()),
                                   args.begin());
    }
  }
  int rc() const { return rc_; }

 private:
  void* ctx_;
  int rc_ = 0;
};

void AddOneShot(Rules* rules, bool executable_memory) {
  for (int nr : kPlain) rules->Allow(nr);
  if (executable_memory) {
    rules->Allow(SCMP_SYS(mmap));
    rules->Allow(SCMP_SYS(mprotect));
  } else {
    // Mapping code after start-up is not something the collector does.
    rules->Allow(SCMP_SYS(mmap), {SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)});
    rules->Allow(SCMP_SYS(mprotect), {SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)});
  }
  // isatty() and the terminal's width, for progress lines.
  rules->Allow(SCMP_SYS(ioctl), {SCMP_A1(SCMP_CMP_EQ, TCGETS)});
  rules->Allow(SCMP_SYS(ioctl), {SCMP_A1(SCMP_CMP_EQ, TIOCGWINSZ)});
}

void AddRun(Rules* rules, bool forwarders) {
  for (int nr : kRun) rules->Allow(nr);
  // Append-only sandbox logs; the network namespace of a peer's socket;
  // a peer's cgroup id from its pidfd.
  for (unsigned long request : {FS_IOC_GETFLAGS, FS_IOC_SETFLAGS,
                                static_cast<unsigned long>(SIOCGSKNS), pidfd_info::kGetInfo}) {
    rules->Allow(SCMP_SYS(ioctl), {SCMP_A1(SCMP_CMP_EQ, request)});
  }
  rules->Allow(SCMP_SYS(setns), {SCMP_A1(SCMP_CMP_EQ, CLONE_NEWNET)});
  // The audit file's sync thread (sync_worker.h), started once confined: a
  // thread only (CLONE_THREAD, no new namespace), never a process. glibc
  // takes clone when clone3 is "not there" (its flags are behind a pointer,
  // out of a filter's reach). glibc's thread start registers its rseq area
  // (fatal when refused) and its robust futex list.
  rules->Add(SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), {});
  rules->Allow(SCMP_SYS(rseq));
  rules->Allow(SCMP_SYS(set_robust_list));
  rules->Allow(SCMP_SYS(clone),
               {SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD | kNewNamespaces, CLONE_THREAD)});
  // Reading its own limits (the open file limit, when it is reached); never setting one.
  rules->Allow(SCMP_SYS(getrlimit));
  rules->Allow(SCMP_SYS(prlimit64), {SCMP_A0(SCMP_CMP_EQ, 0), SCMP_A2(SCMP_CMP_EQ, 0)});
  // Unix datagrams (syslog, sd_notify) and sock_diag; no new stream socket,
  // so no connection to another daemon's socket (the listening one is made
  // before the filter, connections come from accept).
  rules->Allow(SCMP_SYS(socket),
               {SCMP_A0(SCMP_CMP_EQ, AF_UNIX), SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_DGRAM)});
  rules->Allow(SCMP_SYS(socket),
               {SCMP_A0(SCMP_CMP_EQ, AF_NETLINK), SCMP_A2(SCMP_CMP_EQ, NETLINK_SOCK_DIAG)});
  if (!forwarders) return;
  for (int nr : kForwarder) rules->Allow(nr);
  // TCP (and DNS over UDP) to the destinations; the routing table for
  // getaddrinfo's AI_ADDRCONFIG. Landlock does not limit TCP connect then.
  rules->Allow(SCMP_SYS(socket), {SCMP_A0(SCMP_CMP_EQ, AF_INET)});
  rules->Allow(SCMP_SYS(socket), {SCMP_A0(SCMP_CMP_EQ, AF_INET6)});
  rules->Allow(SCMP_SYS(socket),
               {SCMP_A0(SCMP_CMP_EQ, AF_NETLINK), SCMP_A2(SCMP_CMP_EQ, NETLINK_ROUTE)});
  rules->Allow(SCMP_SYS(ioctl), {SCMP_A1(SCMP_CMP_EQ, FIONREAD)});
  rules->Allow(SCMP_SYS(ioctl), {SCMP_A1(SCMP_CMP_EQ, FIONBIO)});
  // A library's start-up asks which capabilities are in the bounding set.
  rules->Allow(SCMP_SYS(prctl), {SCMP_A0(SCMP_CMP_EQ, PR_CAPBSET_READ)});
  // A forwarder stops when run does (forward_command.cc).
  rules->Allow(SCMP_SYS(prctl),
               {SCMP_A0(SCMP_CMP_EQ, PR_SET_PDEATHSIG), SCMP_A1(SCMP_CMP_EQ, SIGTERM)});
  // posix_spawn and the forwarders' threads (clone3 is "not there", above).
  rules->Allow(SCMP_SYS(clone), {SCMP_A0(SCMP_CMP_MASKED_EQ, kNewNamespaces, 0)});
}

bool Load(bool run, bool forwarders, std::string* reason) {
  Filter ctx(seccomp_init(SCMP_ACT_ERRNO(EPERM)));
  if (!ctx) {
    *reason = "seccomp_init failed";
    return false;
  }
  Rules rules(ctx.get());
  // An exec'd forwarder's loader maps its libraries executable.
  AddOneShot(&rules, forwarders);
  if (run) AddRun(&rules, forwarders);
  if (rules.rc() != 0) {
    *reason = std::string("seccomp_rule_add: ") + strerror(-rules.rc());
    return false;
  }
  // no_new_privs is set by the caller; libseccomp must not set it silently.
  seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_NNP, 0);
  const int rc = seccomp_load(ctx.get());
  if (rc != 0) {
    *reason = std::string("seccomp_load: ") + strerror(-rc);
    return false;
  }
  return true;
}

}  // namespace

bool LoadOneShot(std::string* reason) { return Load(false, false, reason); }

bool LoadRun(bool forwarders, std::string* reason) { return Load(true, forwarders, reason); }

}  // namespace syscall_allowlist
