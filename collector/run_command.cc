#include "run_command.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "audit_file.h"
#include "cli_args.h"
#include "config.h"
#include "exit_status.h"
#include "key_file.h"
#include "tail/syslog_sender.h"
#include "tail/tail_engine.h"
#include "watch_pattern.h"

namespace run_command {

const char kUsage[] =
    "run --key-file K --out FILE --state-dir DIR --watch PATTERN... [--config C]\n"
    "                     [--syslog-socket PATH] [--scan-interval MS]";
const char kHelp[] = "tail every sandbox log matching PATTERN into the audit file, exactly once";

// One row per option: name, value placeholder, help. Parsed below (the
// "--watch P1 P2 ..." form is run's own, so it is not cli_args::Parse); the
// same rows are the option table of `run --help` and of usage errors.
const cli_args::OptionRow kRunOptions[] = {
    {"--key-file", "K", "file holding the raw HMAC key (or key_file in --config)"},
    {"--out", "FILE", "audit JSONL file to append to (or output in --config)"},
    {"--state-dir", "DIR", "checkpoint directory, one file per sandbox (or state_dir in --config)"},
    {"--watch", "PATTERN...",
     "log path with one {sandbox_id} component, e.g. /var/log/agt/sandboxes/{sandbox_id}/denied.log;"
     " repeatable (or watch in --config)"},
    {"--config", "C", "configuration: labels per source, limits, key file, output, state_dir"},
    {"--syslog-socket", "PATH", "local syslog datagram socket (default /dev/log); \"none\" disables"},
    {"--scan-interval", "MS", "reconciliation scan period in milliseconds (default 1000); logs with an"
     " inotify watch are checked every 10th scan"},
};
const size_t kRunOptionCount = sizeof kRunOptions / sizeof kRunOptions[0];

namespace {

void PrintError(const std::string& msg) { fprintf(stderr, "%s\n", msg.c_str()); }

void PrintRunUsage() {
  fprintf(stderr, "usage: agt-collector %s\n\noptions:\n%s", kUsage,
          cli_args::OptionsHelp(kRunOptions, kRunOptionCount).c_str());
}

const cli_args::OptionRow* FindOption(const std::string& name) {
  for (const cli_args::OptionRow& o : kRunOptions) {
    if (name == o.name) return &o;
  }
  return nullptr;
}

struct RunArgs {
  std::string key_file, out, state_dir, config, syslog_socket;
  std::vector<std::string> watch;
  long scan_interval_ms = 1000;
  bool has_scan_interval = false;
};

bool ParseArgs(int argc, char** argv, RunArgs* a, std::string* err) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool inline_value = false;
    const size_t eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      inline_value = true;
    }
    const cli_args::OptionRow* o = FindOption(arg);
    if (o == nullptr) {
      *err = "unknown option or argument \"" + arg + "\"";
      return false;
    }
    if (!inline_value) {
      if (i + 1 >= argc) {
        *err = arg + " needs a value (" + o->value_name + ")";
        return false;
      }
      value = argv[++i];
    }
    if (arg == "--watch") {
      a->watch.push_back(value);
      // "--watch P1 P2 ...": further patterns until the next option.
      while (!inline_value && i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) {
        a->watch.push_back(argv[++i]);
      }
      continue;
    }
    std::string* slot = arg == "--key-file"        ? &a->key_file
                        : arg == "--out"           ? &a->out
                        : arg == "--state-dir"     ? &a->state_dir
                        : arg == "--config"        ? &a->config
                        : arg == "--syslog-socket" ? &a->syslog_socket
                                                   : nullptr;
    if (arg == "--scan-interval") {
      char* end = nullptr;
      errno = 0;
      long ms = strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || errno != 0 || ms < 10 || ms > 3600000) {
        *err = "--scan-interval: \"" + value + "\" is not a number of milliseconds in 10..3600000";
        return false;
      }
      if (a->has_scan_interval) {
        *err = "--scan-interval given twice";
        return false;
      }
      a->scan_interval_ms = ms;
      a->has_scan_interval = true;
      continue;
    }
    if (!slot->empty()) {
      *err = arg + " given twice";
      return false;
    }
    if (value.empty()) {
      *err = arg + " needs a non-empty value";
      return false;
    }
    *slot = value;
  }
  return true;
}

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

}  // namespace

int Main(int argc, char** argv) {
  RunArgs a;
  std::string err;
  if (!ParseArgs(argc, argv, &a, &err)) {
    fprintf(stderr, "agt-collector: error: run: %s\n", err.c_str());
    PrintRunUsage();
    return exit_status::kUsage;
  }
  config::Config cfg;
  const bool have_config = !a.config.empty();
  if (have_config) {
    std::vector<std::string> warnings;
    if (!config::LoadConfig(a.config, &cfg, &warnings, &err)) {
      PrintError(err);
      return exit_status::kConfig;
    }
    for (const std::string& w : warnings) fprintf(stderr, "agt-collector: warning: %s\n", w.c_str());
    if (a.key_file.empty()) a.key_file = cfg.key_file;
    if (a.out.empty()) a.out = cfg.output;
    if (a.state_dir.empty()) a.state_dir = cfg.state_dir;
    if (a.watch.empty()) a.watch = cfg.watch;
    if (a.watch.empty()) {
      for (const config::SourceConfig& s : cfg.sources) {
        if (!s.pattern.empty()) a.watch.push_back(s.pattern);
      }
    }
  }
  if (a.key_file.empty() || a.out.empty() || a.state_dir.empty() || a.watch.empty()) {
    PrintError("agt-collector: error: run: --key-file, --out, --state-dir and --watch are required "
               "(or key_file, output, state_dir and watch in --config)");
    PrintRunUsage();
    return exit_status::kUsage;
  }
  for (const std::string& pattern : a.watch) {
    std::string why;
    if (!watch_pattern::IsValidWatchPattern(pattern, &why)) {
      PrintError("agt-collector: error: run: --watch " + pattern + ": " + why +
                 " (e.g. /var/log/agt/sandboxes/{sandbox_id}/denied.log)");
      return exit_status::kUsage;
    }
  }
  std::string key;
  if (!key_file::ReadKeyFile(a.key_file, &key, &err)) {
    PrintError(err);
    return exit_status::kNoInput;  // as import and verify (agt-collector(1))
  }
  std::vector<std::string> key_warnings;
  key_file::LintKeyFile(a.key_file, key, &key_warnings);
  for (const std::string& w : key_warnings) fprintf(stderr, "agt-collector: warning: %s\n", w.c_str());

  // Signals become readable events; nothing runs in a handler.
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGHUP);
  if (sigprocmask(SIG_BLOCK, &mask, nullptr) != 0) {
    PrintError(std::string("agt-collector: error: sigprocmask: ") + strerror(errno));
    return exit_status::kSoftware;
  }
  signal(SIGPIPE, SIG_IGN);
  const int sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
  if (sfd < 0) {
    PrintError(std::string("agt-collector: error: signalfd: ") + strerror(errno));
    return exit_status::kSoftware;
  }
  RaiseFdLimit();

  audit_file::AuditFileWriter out;
  if (!out.Open(a.out, key, &err)) {
    PrintError(err);
    return exit_status::kIoErr;
  }
  if (!out.recovery_notice().empty()) {
    fprintf(stderr, "agt-collector: warning: %s\n", out.recovery_notice().c_str());
  }
  syslog_sender::SyslogSender syslog;
  const bool use_syslog = a.syslog_socket != "none";
  if (use_syslog) {
    syslog.Open(a.syslog_socket.empty() ? syslog_sender::kDefaultSocket : a.syslog_socket,
                "agt-collector");
  }

  tail_engine::Options options;
  options.patterns = a.watch;
  options.state_dir = a.state_dir;
  if (have_config) {
    options.limits = cfg.limits;
    options.config = &cfg;
  }
  tail_engine::Engine engine;
  if (!engine.Init(options, &out, use_syslog ? &syslog : nullptr, &err)) {
    PrintError(err);
    return exit_status::kIoErr;
  }
  engine.Scan();
  fprintf(stderr,
          "agt-collector: run: %zu pattern(s), %llu sandbox(es) found, %llu inotify watch(es); "
          "writing %s; checkpoints in %s\n",
          a.watch.size(), static_cast<unsigned long long>(engine.stats().sources),
          static_cast<unsigned long long>(engine.stats().watches), a.out.c_str(),
          a.state_dir.c_str());

  int64_t next_scan = NowMs() + a.scan_interval_ms;
  bool stopping = false;
  int status = exit_status::kOk;
  while (!stopping) {
    if (engine.HasWork() && !engine.Pump(&err)) {
      PrintError(err);
      status = exit_status::kIoErr;
      break;
    }
    const int64_t now = NowMs();
    int timeout = engine.HasWork() ? 0 : static_cast<int>(next_scan > now ? next_scan - now : 0);
    struct pollfd fds[2];
    fds[0] = {sfd, POLLIN, 0};
    fds[1] = {engine.inotify_fd(), POLLIN, 0};
    const int nfds = engine.inotify_fd() >= 0 ? 2 : 1;
    int n = poll(fds, static_cast<nfds_t>(nfds), timeout);
    if (n < 0 && errno != EINTR) {
      PrintError(std::string("agt-collector: error: poll: ") + strerror(errno));
      status = exit_status::kSoftware;
      break;
    }
    bool reopen = false;
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
    if (nfds == 2 && n > 0 && (fds[1].revents & POLLIN)) engine.HandleInotify();
    if (NowMs() >= next_scan) {
      engine.Scan();
      next_scan = NowMs() + a.scan_interval_ms;
    }
    if (reopen) {
      if (!engine.ReopenOutput(&err)) {
        PrintError(err);
        status = exit_status::kIoErr;
        break;
      }
      fprintf(stderr, "agt-collector: run: SIGHUP: reopened %s\n", a.out.c_str());
      if (!out.recovery_notice().empty()) {
        fprintf(stderr, "agt-collector: warning: %s\n", out.recovery_notice().c_str());
      }
    }
  }
  if (status == exit_status::kOk) {
    // Finish in-flight work: what has been seen is made durable, bounded so a
    // flooding sandbox cannot hold the shutdown forever.
    engine.HandleInotify();
    for (int i = 0; i < 64 && engine.HasWork(); ++i) {
      if (!engine.Pump(&err)) {
        PrintError(err);
        status = exit_status::kIoErr;
        break;
      }
    }
  }
  const tail_engine::Stats& st = engine.stats();
  fprintf(stderr,
          "agt-collector: run: stopping: %llu entries written, %llu already present (replayed), "
          "%llu lines rejected, %llu syslog messages dropped, %llu sandbox(es) watched\n",
          static_cast<unsigned long long>(st.entries_written),
          static_cast<unsigned long long>(st.entries_already_present),
          static_cast<unsigned long long>(st.lines_rejected),
          static_cast<unsigned long long>(syslog.dropped()),
          static_cast<unsigned long long>(st.sources));
  close(sfd);
  return status;
}

}  // namespace run_command
