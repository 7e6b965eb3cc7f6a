#include "run_command.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "audit_file.h"
#include "config.h"
#include "exit_status.h"
#include "key_file.h"
#include "logs.h"
#include "service_notify.h"
#include "tail/syslog_sender.h"
#include "tail/tail_engine.h"
#include "unique_fd.h"
#include "watch_pattern.h"

namespace run_command {
namespace {

// The command line and the configuration, merged: the command line wins.
struct Settings {
  std::string key_file, out, state_dir, syslog_socket;
  std::vector<std::string> watch;
  long scan_interval_ms = 1000;
  bool have_config = false;
  config::Config config;
};

int64_t NowMs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// Thousands of sandboxes need thousands of fds: take the hard limit.
void RaiseFdLimit() {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

// Fills *s from the command line and --config; false with *status set (and
// the reason said) when they do not make a runnable daemon.
bool Resolve(const cli_args::ParsedArgs& args, Settings* s, int* status) {
  *status = exit_status::kUsage;
  if (!args.positional.empty()) {
    logs::Error("unexpected argument \"" + args.positional.front() + "\"");
    return false;
  }
  if (args.has("--scan-interval")) {
    const std::string value = args.get("--scan-interval");
    char* end = nullptr;
    errno = 0;
    const long ms = strtol(value.c_str(), &end, 10);
    if (*end != '\0' || errno != 0 || ms < 10 || ms > 3600000) {
      logs::Error("--scan-interval: \"" + value +
                  "\" is not a number of milliseconds in 10..3600000");
      return false;
    }
    s->scan_interval_ms = ms;
  }
  s->key_file = args.get("--key-file");
  s->out = args.get("--out");
  s->state_dir = args.get("--state-dir");
  s->syslog_socket = args.get("--syslog-socket");
  s->watch = args.all("--watch");
  s->have_config = args.has("--config");
  if (s->have_config) {
    std::vector<std::string> warnings;
    std::string err;
    if (!config::LoadConfig(args.get("--config"), &s->config, &warnings, &err)) {
      logs::Error(err);
      *status = exit_status::kConfig;
      return false;
    }
    for (const std::string& w : warnings) logs::Warning(w);
    const config::Config& cfg = s->config;
    if (s->key_file.empty()) s->key_file = cfg.key_file;
    if (s->out.empty()) s->out = cfg.output;
    if (s->state_dir.empty()) s->state_dir = cfg.state_dir;
    if (s->watch.empty()) s->watch = cfg.watch;
    if (s->watch.empty()) {
      for (const config::SourceConfig& src : cfg.sources) {
        if (!src.pattern.empty()) s->watch.push_back(src.pattern);
      }
    }
  }
  if (s->key_file.empty() || s->out.empty() || s->state_dir.empty() || s->watch.empty()) {
    logs::Error("--key-file, --out, --state-dir and --watch are required (or key_file, output, "
                "state_dir and watch in --config)");
    return false;
  }
  for (const std::string& pattern : s->watch) {
    std::string why;
    if (!watch_pattern::IsValidWatchPattern(pattern, &why)) {
      logs::Error("--watch " + pattern + ": " + why +
                  " (e.g. /var/log/agt/sandboxes/{sandbox_id}/denied.log)");
      return false;
    }
  }
  return true;
}

// SIGTERM, SIGINT and SIGHUP become readable events; nothing runs in a handler.
bool SignalFd(unique_fd::UniqueFd* sfd) {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGHUP);
  if (sigprocmask(SIG_BLOCK, &mask, nullptr) != 0) {
    logs::Error(std::string("sigprocmask: ") + strerror(errno));
    return false;
  }
  signal(SIGPIPE, SIG_IGN);
  sfd->Reset(signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC));
  if (!sfd->ok()) {
    logs::Error(std::string("signalfd: ") + strerror(errno));
    return false;
  }
  return true;
}

// The daemon's loop: pump what is marked, wait for a signal, an inotify
// event or the next scan. Returns on SIGTERM/SIGINT (kOk) or a fatal error.
int Loop(const Settings& s, int sfd, tail_engine::Engine* engine,
         audit_file::AuditFileWriter* out, service_notify::Notifier* notifier) {
  std::string err;
  int64_t next_scan = NowMs() + s.scan_interval_ms;
  bool ready = false;
  for (;;) {
    if (engine->HasWork() && !engine->Pump(&err)) {
      logs::Error(err);
      return exit_status::kIoErr;
    }
    // READY=1 once the initial backlog is durable: "started" means every
    // record present at start is in the audit file. Pumped here, between
    // signal checks, so SIGTERM still stops a long first catch-up.
    if (!ready && !engine->HasWork()) {
      notifier->Ready(std::to_string(engine->stats().sources) + " sandbox(es), " +
                      std::to_string(engine->stats().entries_written) +
                      " entries written at start");
      ready = true;
    }
    const int64_t now = NowMs();
    // The watchdog is petted from here only: a loop that stops turning is
    // what it must catch.
    notifier->PetIfDue(now);
    int64_t wait = engine->HasWork() ? 0 : (next_scan > now ? next_scan - now : 0);
    const int64_t pet = notifier->MsUntilDue(now);
    if (pet >= 0 && pet < wait) wait = pet;
    const int timeout = static_cast<int>(wait);
    struct pollfd fds[2];
    fds[0] = {sfd, POLLIN, 0};
    fds[1] = {engine->inotify_fd(), POLLIN, 0};
    const int nfds = engine->inotify_fd() >= 0 ? 2 : 1;
    const int n = poll(fds, static_cast<nfds_t>(nfds), timeout);
    if (n < 0 && errno != EINTR) {
      logs::Error(std::string("poll: ") + strerror(errno));
      return exit_status::kSoftware;
    }
    bool reopen = false, stopping = false;
    if (n > 0 && (fds[0].revents & POLLIN)) {
      struct signalfd_siginfo si;
      while (read(sfd, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
        if (si.ssi_signo == SIGHUP) {
          reopen = true;
        } else {
          stopping = true;
        }
      }
    }
    if (nfds == 2 && n > 0 && (fds[1].revents & POLLIN)) engine->HandleInotify();
    if (NowMs() >= next_scan) {
      engine->Scan();
      next_scan = NowMs() + s.scan_interval_ms;
    }
    if (reopen) {
      if (!engine->ReopenOutput(&err)) {
        logs::Error(err);
        return exit_status::kIoErr;
      }
      logs::Note("SIGHUP: reopened " + s.out);
      if (!out->recovery_notice().empty()) logs::Warning(out->recovery_notice());
    }
    if (stopping) return exit_status::kOk;
  }
}

// Finishes in-flight work on the way out: what has been seen is made
// durable, bounded so a flooding sandbox cannot hold the shutdown forever.
int Drain(tail_engine::Engine* engine) {
  engine->HandleInotify();
  std::string err;
  for (int i = 0; i < 64 && engine->HasWork(); ++i) {
    if (!engine->Pump(&err)) {
      logs::Error(err);
      return exit_status::kIoErr;
    }
  }
  return exit_status::kOk;
}

}  // namespace

int Run(const cli_args::ParsedArgs& args) {
  Settings s;
  int status = exit_status::kOk;
  if (!Resolve(args, &s, &status)) return status;
  std::string key, err;
  if (!key_file::ReadKeyFile(s.key_file, &key, &err)) {
    logs::Error(err);
    return exit_status::kNoInput;  // as import and verify (agt-collector(1))
  }
  std::vector<std::string> key_warnings;
  key_file::LintKeyFile(s.key_file, key, &key_warnings);
  for (const std::string& w : key_warnings) logs::Warning(w);

  unique_fd::UniqueFd sfd;
  if (!SignalFd(&sfd)) return exit_status::kSoftware;
  RaiseFdLimit();

  audit_file::AuditFileWriter out;
  if (!out.Open(s.out, key, &err)) {
    logs::Error(err);
    return exit_status::kIoErr;
  }
  if (!out.recovery_notice().empty()) logs::Warning(out.recovery_notice());
  syslog_sender::SyslogSender syslog;
  const bool use_syslog = s.syslog_socket != "none";
  if (use_syslog) {
    syslog.Open(s.syslog_socket.empty() ? syslog_sender::kDefaultSocket : s.syslog_socket,
                "agt-collector");
  }

  tail_engine::Options options;
  options.patterns = s.watch;
  options.state_dir = s.state_dir;
  if (s.have_config) {
    options.limits = s.config.limits;
    options.config = &s.config;
  }
  tail_engine::Engine engine;
  if (!engine.Init(options, &out, use_syslog ? &syslog : nullptr, &err)) {
    logs::Error(err);
    return exit_status::kIoErr;
  }
  engine.Scan();
  logs::Note(std::to_string(s.watch.size()) + " pattern(s), " +
             std::to_string(engine.stats().sources) + " sandbox(es) found, " +
             std::to_string(engine.stats().watches) + " inotify watch(es); writing " + s.out +
             "; checkpoints in " + s.state_dir + "; batch: up to " +
             std::to_string(options.max_entries_per_cycle) +
             " records per fdatasync, then one checkpoint per source read");
  service_notify::Notifier notifier;
  status = Loop(s, sfd.get(), &engine, &out, &notifier);
  notifier.Stopping();
  if (status == exit_status::kOk) status = Drain(&engine);
  const tail_engine::Stats& st = engine.stats();
  logs::Note("stopping: " + std::to_string(st.entries_written) + " entries written, " +
             std::to_string(st.entries_already_present) + " already present (replayed), " +
             std::to_string(st.lines_rejected) + " lines rejected, " +
             std::to_string(syslog.dropped()) + " syslog messages dropped, " +
             std::to_string(st.sources) + " sandbox(es) watched");
  return status;
}

}  // namespace run_command
