#include "forward/forward_supervisor.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>

#include "logs.h"

extern char** environ;

namespace forward_supervisor {
namespace {

constexpr int kFirstBackoffMs = 1000;
constexpr int kMaxBackoffMs = 30000;
// A child that ran this long had no start-up problem: its pause starts over.
constexpr int64_t kHealthyAfterMs = 60000;

std::string Self() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("agt-collector");
}

std::string Describe(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return std::string("was killed by signal ") + strsignal(WTERMSIG(status));
  return "stopped";
}

}  // namespace

void Supervisor::Add(const std::string& name, std::vector<std::string> args) {
  Child c;
  c.name = name;
  c.args = std::move(args);
  children_.push_back(std::move(c));
}

bool Supervisor::Spawn(Child* c, int64_t now_ms) {
  static const std::string self = Self();
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(self.c_str()));
  for (std::string& a : c->args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // run blocks its signals (signalfd) and ignores SIGPIPE: the child gets
  // the defaults back, so SIGTERM stops it.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGHUP);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  const int r = posix_spawn(&c->pid, self.c_str(), nullptr, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  if (r != 0) {
    c->pid = -1;
    logs::Warning("cannot start the forwarder for " + c->name + ": posix_spawn " + self + ": " +
                  strerror(r));
    return false;
  }
  c->started_ms = now_ms;
  if (c->started_before) ++restarts_;
  c->started_before = true;
  return true;
}

void Supervisor::Poll(int64_t now_ms) {
  for (Child& c : children_) {
    if (c.pid > 0) {
      int status = 0;
      const pid_t r = waitpid(c.pid, &status, WNOHANG);
      if (r != c.pid) continue;
      c.pid = -1;
      ++exits_;
      // Killed, or ran a good while: started again soon. Failing at once
      // again and again (a bad certificate file): the pause grows.
      if (WIFSIGNALED(status) || now_ms - c.started_ms >= kHealthyAfterMs) c.backoff_ms = 0;
      c.backoff_ms =
          c.backoff_ms == 0 ? kFirstBackoffMs : std::min(c.backoff_ms * 2, kMaxBackoffMs);
      c.start_after_ms = now_ms + c.backoff_ms;
      logs::Warning("the forwarder for " + c.name + " " + Describe(status) +
                    "; starting it again in " + std::to_string(c.backoff_ms) + " ms");
    }
    if (c.pid < 0 && now_ms >= c.start_after_ms && !Spawn(&c, now_ms)) {
      c.backoff_ms = kMaxBackoffMs;
      c.start_after_ms = now_ms + c.backoff_ms;
    }
  }
}

void Supervisor::StopAll(int timeout_ms) {
  for (Child& c : children_) {
    if (c.pid > 0) kill(c.pid, SIGTERM);
  }
  for (Child& c : children_) {
    if (c.pid <= 0) continue;
    int waited = 0;
    int status = 0;
    while (waitpid(c.pid, &status, WNOHANG) == 0) {
      if (waited >= timeout_ms) {
        kill(c.pid, SIGKILL);
        waitpid(c.pid, &status, 0);
        break;
      }
      struct timespec ts = {0, 20 * 1000 * 1000};
      nanosleep(&ts, nullptr);
      waited += 20;
    }
    c.pid = -1;
  }
}

}  // namespace forward_supervisor
