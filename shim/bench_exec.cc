// Exec benchmark launcher for scripts/bench-shim (not part of the meson
// build): built static (musl) in the same run as the programs it measures,
// so its own cost is tiny and equal for both.
//
//   bench_exec time N [NAME=VALUE...] PROG_A [ARGS...] -- [NAME=VALUE...] PROG_B [ARGS...]
//       runs A and B alternately N times each (fork, exec, wait; stdout and
//       stderr to /dev/null) and prints "A_median_ns B_median_ns": running
//       them interleaved keeps a shared machine's load changes out of the
//       ratio. NAME=VALUE words before a program are set in its environment
//       only (as env(1) would, without an exec of its own): the same
//       program against two collectors, say.
//   bench_exec rss PROG [ARGS...]
//       runs PROG once under ptrace, stops it at exit and prints its VmHWM
//       (peak resident set, KiB) from /proc: ru_maxrss is not usable here,
//       it counts the memory the child had before exec.
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>

namespace {

constexpr int kMaxRuns = 100000;
long g_times[2][kMaxRuns];

long NowNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

long TimeOne(char** argv) {
  long start = NowNs();
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    while (argv[0] != nullptr && argv[0][0] != '/' && strchr(argv[0], '=') != nullptr) {
      putenv(argv[0]);
      ++argv;
    }
    if (argv[0] != nullptr) execv(argv[0], argv);
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  return NowNs() - start;
}

int Time(int n, char** a, char** b) {
  if (n <= 0 || n > kMaxRuns) return 2;
  for (int i = 0; i < n; ++i) {
    bool a_first = i % 2 == 0;
    long first = TimeOne(a_first ? a : b);
    long second = TimeOne(a_first ? b : a);
    if (first < 0 || second < 0) return 1;
    g_times[0][i] = a_first ? first : second;
    g_times[1][i] = a_first ? second : first;
  }
  for (auto& t : g_times) std::sort(t, t + n);
  printf("%ld %ld\n", g_times[0][n / 2], g_times[1][n / 2]);
  return 0;
}

int Rss(char** argv) {
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
    raise(SIGSTOP);
    execv(argv[0], argv);
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return 1;
  ptrace(PTRACE_SETOPTIONS, pid, nullptr,
         reinterpret_cast<void*>(PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC));
  ptrace(PTRACE_CONT, pid, nullptr, nullptr);
  long hwm = -1;
  while (waitpid(pid, &status, 0) == pid) {
    if (WIFEXITED(status) || WIFSIGNALED(status)) break;
    if (status >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
      char path[64];
      snprintf(path, sizeof path, "/proc/%d/status", pid);
      FILE* f = fopen(path, "r");
      char line[256];
      while (f != nullptr && fgets(line, sizeof line, f) != nullptr) {
        if (strncmp(line, "VmHWM:", 6) == 0) hwm = atol(line + 6);
      }
      if (f != nullptr) fclose(f);
    }
    int sig = WIFSTOPPED(status) && WSTOPSIG(status) != SIGTRAP && WSTOPSIG(status) != SIGSTOP
                  ? WSTOPSIG(status)
                  : 0;
    ptrace(PTRACE_CONT, pid, nullptr, reinterpret_cast<void*>(static_cast<long>(sig)));
  }
  if (hwm < 0) return 1;
  printf("%ld\n", hwm);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 5 && strcmp(argv[1], "time") == 0) {
    int split = 0;
    for (int i = 3; i < argc; ++i) {
      if (strcmp(argv[i], "--") == 0) split = i;
    }
    if (split <= 3 || split + 1 >= argc) return 2;
    argv[split] = nullptr;
    return Time(atoi(argv[2]), argv + 3, argv + split + 1);
  }
  if (argc >= 3 && strcmp(argv[1], "rss") == 0) return Rss(argv + 2);
  fprintf(stderr,
          "usage: bench_exec time N [NAME=VALUE...] PROG_A [ARGS...] -- [NAME=VALUE...] PROG_B "
          "[ARGS...] | rss PROG [ARGS...]\n");
  return 2;
}
