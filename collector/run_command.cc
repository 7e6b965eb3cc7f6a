#include "run_command.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "audit_file.h"
#include "audit_start.h"
#include "clock_ms.h"
#include "config.h"
#include "exit_status.h"
#include "forward/forward_destination.h"
#include "forward/forward_supervisor.h"
#include "io_error_exits.h"
#include "key_file.h"
#include "listen/listener.h"
#include "logs.h"
#include "metrics.h"
#include "run_metrics.h"
#include "run_status.h"
#include "self_confine.h"
#include "service_notify.h"
#include "tail/chain_head.h"
#include "tail/checkpoint_journal.h"
#include "tail/syslog_sender.h"
#include "tail/tail_engine.h"
#include "unique_fd.h"
#include "watch_pattern.h"

namespace run_command {
namespace {

// How often, at most, the chain head follows entries of the socket (Loop).
constexpr int64_t kSocketHeadEveryMs = 100;

// The command line and the configuration, merged: the command line wins.
struct Settings {
  std::string key_file, out, state_dir, syslog_socket, metrics_file;
  std::vector<std::string> watch;
  std::string listen, shim, shim_sha256, cgroup_pattern;  // the attested socket
  long scan_interval_ms = 1000;
  long alone_sync_under_us = listener::kAloneSyncInLineUnderUs;
  bool new_chain = false;
  bool append_only = true;
  uint32_t metrics_interval_s = 0;  // 0: not given
  bool have_config = false;
  config::Config config;
  // One `agt-collector forward` child per destination (forward_supervisor.h).
  forward_supervisor::Supervisor forwarders;
  std::vector<std::string> forward_names;  // their position files' names
};

// The forwarders `run` starts: --forward URL, and each destination of
// --config. Checked here, so a bad destination stops `run` at once.
bool AddForwarders(const cli_args::ParsedArgs& args, Settings* s) {
  // --supervisor-pid: a forwarder outliving run (kill -9) would race the
  // one the next run starts over the same position file.
  const std::vector<std::string> common = {"forward",
                                           "--out",
                                           s->out,
                                           "--state-dir",
                                           s->state_dir,
                                           "--supervisor-pid",
                                           std::to_string(getpid())};
  if (args.has("--forward")) {
    forward_destination::Destination d;
    d.ca_file = args.get("--forward-ca");
    d.cert_file = args.get("--forward-cert");
    d.key_file = args.get("--forward-key");
    std::string err;
    if (!forward_destination::ParseUrl(args.get("--forward"), &d, &err) ||
        !forward_destination::Check(&d, &err)) {
      logs::Error("--forward " + args.get("--forward") + ": " + err);
      return false;
    }
    std::vector<std::string> child = common;
    for (const char* opt :
         {"--forward", "--forward-ca", "--forward-cert", "--forward-key", "--forward-format"}) {
      if (args.has(opt)) {
        child.push_back(opt);
        child.push_back(args.get(opt));
      }
    }
    s->forwarders.Add(d.url, child);
    s->forward_names.push_back(d.name);
  } else if (args.has("--forward-ca") || args.has("--forward-cert") || args.has("--forward-key") ||
             args.has("--forward-format")) {
    logs::Error(
        "--forward-ca, --forward-cert, --forward-key and --forward-format go with "
        "--forward URL");
    return false;
  }
  if (s->have_config) {
    for (const forward_destination::Destination& d : s->config.forward) {
      std::vector<std::string> child = common;
      for (const std::string& a :
           {std::string("--config"), args.get("--config"), std::string("--destination"), d.name}) {
        child.push_back(a);
      }
      s->forwarders.Add(d.name, child);
      s->forward_names.push_back(d.name);
    }
  }
  return true;
}

int64_t NowMs() { return clock_ms::Monotonic(); }

// Thousands of sandboxes need thousands of fds: take the hard limit.
void RaiseFdLimit() {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

// A whole number option in [min, max]; *value untouched when not given.
bool NumberOption(const cli_args::ParsedArgs& args, const char* name, long min, long max,
                  const char* unit, long* value) {
  if (!args.has(name)) return true;
  const std::string text = args.get(name);
  char* end = nullptr;
  errno = 0;
  const long n = strtol(text.c_str(), &end, 10);
  if (*end != '\0' || errno != 0 || n < min || n > max) {
    logs::Error(std::string(name) + ": \"" + text + "\" is not a number of " + unit + " in " +
                std::to_string(min) + ".." + std::to_string(max));
    return false;
  }
  *value = n;
  return true;
}

// Fills *s from the command line and --config; false with *status set (and
// the reason said) when they do not make a runnable daemon.
bool Resolve(const cli_args::ParsedArgs& args, Settings* s, int* status) {
  *status = exit_status::kUsage;
  if (!args.positional.empty()) {
    logs::Error("unexpected argument \"" + args.positional.front() + "\"");
    return false;
  }
  long metrics_interval_s = 0;
  if (!NumberOption(args, "--scan-interval", 10, 3600000, "milliseconds", &s->scan_interval_ms) ||
      !NumberOption(args, "--metrics-interval", 1, config::kMetricsIntervalMax, "seconds",
                    &metrics_interval_s) ||
      !NumberOption(args, "--alone-sync-under", 0, 1000000, "microseconds",
                    &s->alone_sync_under_us)) {
    return false;
  }
  s->metrics_interval_s = static_cast<uint32_t>(metrics_interval_s);
  s->metrics_file = args.get("--metrics-file");
  if (!s->metrics_file.empty() && s->metrics_file[0] != '/') {
    logs::Error("--metrics-file: \"" + s->metrics_file + "\" is not an absolute path");
    return false;
  }
  s->key_file = args.get("--key-file");
  s->out = args.get("--out");
  s->state_dir = args.get("--state-dir");
  s->syslog_socket = args.get("--syslog-socket");
  s->watch = args.all("--watch");
  s->listen = args.get("--listen");
  s->shim = args.get("--shim");
  s->shim_sha256 = args.get("--shim-sha256");
  s->cgroup_pattern = args.get("--cgroup-pattern");
  s->new_chain = args.has("--new-chain");
  s->append_only = !args.has("--no-append-only");
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
    if (s->listen.empty()) s->listen = cfg.listen;
    if (s->shim.empty() && s->shim_sha256.empty()) {
      s->shim = cfg.shim;
      s->shim_sha256 = cfg.shim_sha256;
    }
    if (s->cgroup_pattern.empty()) s->cgroup_pattern = cfg.cgroup_pattern;
    if (s->metrics_file.empty()) s->metrics_file = cfg.metrics_file;
    if (s->metrics_interval_s == 0) s->metrics_interval_s = cfg.metrics_interval_s;
    if (s->watch.empty()) {
      for (const config::SourceConfig& src : cfg.sources) {
        if (!src.pattern.empty()) s->watch.push_back(src.pattern);
      }
    }
  }
  if (s->metrics_interval_s == 0) s->metrics_interval_s = config::kMetricsIntervalDefault;
  if (s->key_file.empty() || s->out.empty() || (s->watch.empty() && s->listen.empty())) {
    logs::Error(
        "--key-file, --out, and --watch or --listen (or both) are required (or key_file, "
        "output, watch and listen in --config)");
    return false;
  }
  if (!s->watch.empty() && s->state_dir.empty()) {
    logs::Error("--watch needs --state-dir (or state_dir in --config)");
    return false;
  }
  if (!s->listen.empty() && s->shim.empty() == s->shim_sha256.empty()) {
    logs::Error(
        "--listen needs exactly one of --shim PATH and --shim-sha256 HEX (or shim or "
        "shim_sha256 in --config)");
    return false;
  }
  if (s->listen.empty() && (!s->shim.empty() || !s->shim_sha256.empty() ||
                            !s->cgroup_pattern.empty() || args.has("--alone-sync-under"))) {
    logs::Error("--shim, --shim-sha256, --cgroup-pattern and --alone-sync-under go with --listen");
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
  return AddForwarders(args, s);
}

// SIGTERM, SIGINT, SIGHUP and SIGUSR1 become readable events; nothing runs
// in a handler.
bool SignalFd(unique_fd::UniqueFd* sfd) {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGHUP);
  sigaddset(&mask, SIGUSR1);
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

// The daemon's loop: pump what is marked, serve the socket, wait for a
// signal, an inotify event, a socket event or the next scan. `engine`
// (--watch) or `listener` (--listen) may be null, not both. Returns on
// SIGTERM/SIGINT (kOk) or a fatal error.
int Loop(Settings& s, int sfd, tail_engine::Engine* engine, listener::Listener* listener,
         audit_file::AuditFileWriter* out, int state_fd, service_notify::Notifier* notifier,
         run_metrics::Writer* metrics) {
  std::string err;
  // The engine keeps the chain head after each of its commits; entries the
  // socket made durable move it here (state_fd < 0: --listen alone, none kept),
  // at most once per kSocketHeadEveryMs: each save is an fdatasync in this
  // loop, which after every acknowledged batch cost a third of the socket's
  // denials/s. The head may lag what is durable (it names only durable
  // entries, as after a crash); it is saved at exit as well.
  uint64_t head_saved = out->durable_head().entries;
  int64_t head_saved_ms = -1;  // never yet
  const auto head_pending = [&]() {
    return listener != nullptr && state_fd >= 0 && out->durable_head().entries != head_saved &&
           // The engine's commit thread writes the head meanwhile: after it ends.
           (engine == nullptr || !engine->commit_in_flight());
  };
  const auto ms_until_head_due = [&](int64_t now) -> int64_t {
    if (!head_pending()) return -1;
    if (head_saved_ms < 0) return 0;
    return std::max<int64_t>(0, head_saved_ms + kSocketHeadEveryMs - now);
  };
  const auto save_head = [&]() {
    if (ms_until_head_due(NowMs()) != 0) return true;
    if (!chain_head::Save(state_fd, out->durable_head(), &err)) {
      err = "chain head in " + s.state_dir + ": " + err;
      return false;
    }
    head_saved = out->durable_head().entries;
    head_saved_ms = NowMs();
    return true;
  };
  int64_t next_scan = NowMs() + s.scan_interval_ms;
  bool ready = false;
  const auto has_work = [engine] { return engine != nullptr && engine->HasWork(); };
  for (;;) {
    if (engine != nullptr) {
      // The last cycle's commit, if it has ended (then the next one starts
      // for what was read meanwhile); then what is marked, into the cycle.
      if (!engine->SettleCommit(&err) || (has_work() && !engine->Pump(&err))) {
        logs::Error(err);
        return exit_status::kIoErr;
      }
      // A commit that ended synced the audit file: socket entries appended
      // before it are durable too.
      if (listener != nullptr) listener->AnswerDurable();
    }
    // READY=1 once the initial backlog is durable: "started" means every
    // record present at start is in the audit file. Pumped here, between
    // signal checks, so SIGTERM still stops a long first catch-up.
    if (!ready && !has_work()) {
      // Waited for once: under a steady trickle of records a commit is
      // nearly always in flight, and READY=1 must not wait for a gap.
      if (engine != nullptr && !engine->Commit(&err)) {
        logs::Error(err);
        return exit_status::kIoErr;
      }
      if (listener != nullptr) listener->AnswerDurable();
      notifier->Ready(engine == nullptr
                          ? "listening on " + s.listen
                          : std::to_string(engine->stats().sources) + " sandbox(es), " +
                                std::to_string(engine->stats().entries_written) +
                                " entries written at start");
      ready = true;
    }
    const int64_t now = NowMs();
    s.forwarders.Poll(now);
    // The watchdog is petted from here only: a loop that stops turning is
    // what it must catch.
    notifier->PetIfDue(now);
    metrics->WriteIfDue(now);
    int64_t wait = has_work() ? 0 : (next_scan > now ? next_scan - now : 0);
    for (const int64_t due :
         {notifier->MsUntilDue(now), metrics->MsUntilDue(now),
          listener != nullptr ? listener->MsUntilDue() : int64_t{-1}, ms_until_head_due(now)}) {
      if (due >= 0 && due < wait) wait = due;
    }
    const int timeout = static_cast<int>(wait);
    // sfd first; then the socket's epoll set (unless its batch is full) and
    // the end of the audit file's sync in flight, then inotify (when
    // present) and the end of the engine's commit in flight.
    struct pollfd fds[5];
    nfds_t nfds = 0;
    fds[nfds++] = {sfd, POLLIN, 0};
    const nfds_t listen_at = nfds;
    if (listener != nullptr) {
      fds[nfds++] = {listener->BatchFull() ? -1 : listener->fd(), POLLIN, 0};
      fds[nfds++] = {out->sync_in_flight() ? out->sync_done_fd() : -1, POLLIN, 0};
    }
    const nfds_t inotify_at = nfds;
    if (engine != nullptr && engine->inotify_fd() >= 0) {
      fds[nfds++] = {engine->inotify_fd(), POLLIN, 0};
    }
    if (engine != nullptr) fds[nfds++] = {engine->commit_done_fd(), POLLIN, 0};
    const int n = poll(fds, nfds, timeout);
    if (n < 0 && errno != EINTR) {
      logs::Error(std::string("poll: ") + strerror(errno));
      return exit_status::kSoftware;
    }
    bool reopen = false, rotate = false, stopping = false;
    if (n > 0 && (fds[0].revents & POLLIN)) {
      struct signalfd_siginfo si;
      while (read(sfd, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
        if (si.ssi_signo == SIGHUP) {
          reopen = true;
        } else if (si.ssi_signo == SIGUSR1) {
          rotate = true;
        } else {
          stopping = true;
        }
      }
    }
    if (inotify_at < nfds && n > 0 && (fds[inotify_at].revents & POLLIN)) {
      engine->HandleInotify();
    }
    // The socket: what is readable, and the timeouts and summaries due.
    if (listener != nullptr &&
        (n == 0 || (n > 0 && ((fds[listen_at].revents | fds[listen_at + 1].revents) & POLLIN)) ||
         listener->MsUntilDue() == 0)) {
      if (!listener->Pump(&err)) {
        logs::Error(err);
        return exit_status::kIoErr;
      }
    }
    if (!save_head()) {
      logs::Error(err);
      return exit_status::kIoErr;
    }
    if (NowMs() >= next_scan) {
      if (engine != nullptr) engine->Scan();
      next_scan = NowMs() + s.scan_interval_ms;
    }
    if (reopen) {
      if (engine != nullptr ? !engine->ReopenOutput(&err) : !out->Reopen(&err)) {
        logs::Error(err);
        return exit_status::kIoErr;
      }
      logs::Note("SIGHUP: reopened " + s.out);
      if (!out->recovery_notice().empty()) logs::Warning(out->recovery_notice());
    }
    if (rotate && engine == nullptr) {
      logs::Warning("SIGUSR1: no sandbox logs to rotate (no --watch)");
    } else if (rotate && !engine->RotateLogs(&err)) {
      logs::Error(err);
      return exit_status::kIoErr;
    }
    if (stopping) return exit_status::kOk;
  }
}

// Finishes in-flight work on the way out: what has been seen is made
// durable, bounded (cycles and time) so a flooding sandbox cannot hold the
// shutdown; what is left is read after the next start, from the checkpoints.
int Drain(tail_engine::Engine* engine, listener::Listener* listener) {
  std::string err;
  if (listener != nullptr && (!listener->Pump(&err) || !listener->Finish(&err))) {
    logs::Error(err);
    return exit_status::kIoErr;
  }
  if (engine == nullptr) return exit_status::kOk;
  engine->HandleInotify();
  const int64_t until = NowMs() + 500;
  for (int i = 0; i < 64 && engine->HasWork() && NowMs() < until; ++i) {
    if (!engine->Pump(&err)) {
      logs::Error(err);
      return exit_status::kIoErr;
    }
  }
  if (!engine->FinishSuppressions(&err)) {
    logs::Error(err);
    return exit_status::kIoErr;
  }
  return exit_status::kOk;
}

// --listen's settings, the shim named by path or hash.
bool ListenOptions(const Settings& s, listener::Options* options, std::string* err) {
  options->path = s.listen;
  options->cgroup_pattern = s.cgroup_pattern;
  options->alone_sync_in_line_under_us = s.alone_sync_under_us;
  if (s.have_config) options->limits = s.config.limits;
  return s.shim.empty() ? options->shim.FromHex(s.shim_sha256, err)
                        : options->shim.FromFile(s.shim, err);
}

// The daemon; `exits` is opened once the state directory is.
int Serve(const cli_args::ParsedArgs& args, io_error_exits::Counter* exits) {
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
  unique_fd::UniqueFd state;
  if (s.state_dir.empty()) {
    // --listen alone may run without a state directory, and so without the
    // chain head that shows a cut tail (agt-collector(1), TAMPER EVIDENCE).
    if (!out.Open(s.out, key, &err)) {
      logs::Error(err);
      return exit_status::kIoErr;
    }
    if (!out.recovery_notice().empty()) logs::Warning(out.recovery_notice());
    logs::Warning("no --state-dir: no chain head is kept, so a cut tail of " + s.out +
                  " would go unseen");
  } else {
    status = audit_start::Open(s.out, key, s.state_dir, s.new_chain, &out);
    if (status != exit_status::kOk) return status;
    state.Reset(open(s.state_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!state.ok()) {
      logs::Error(logs::ErrnoReason("open state directory", s.state_dir));
      return exit_status::kIoErr;
    }
  }
  syslog_sender::SyslogSender syslog;
  const bool use_syslog = s.syslog_socket != "none";
  if (use_syslog) {
    syslog.Open(s.syslog_socket.empty() ? syslog_sender::kDefaultSocket : s.syslog_socket,
                "agt-collector");
  }

  std::unique_ptr<listener::Listener> listener;
  if (!s.listen.empty()) {
    listener::Options listen_options;
    if (!ListenOptions(s, &listen_options, &err)) {
      logs::Error(err);
      return exit_status::kNoInput;
    }
    const std::string shim_sha256 = listen_options.shim.sha256();
    listener = std::make_unique<listener::Listener>();
    if (!listener->Init(std::move(listen_options), &out, &err)) {
      logs::Error(err);
      return exit_status::kCantCreate;
    }
    logs::Note("listening on " + s.listen +
               " (mode 0666); the shim is the executable with SHA-256 " + shim_sha256 +
               "; group commit: up to " + std::to_string(listener::kMaxRecordsPerSync) +
               " records of at most " + std::to_string(listener::kMaxMessageBytes) +
               " bytes per fdatasync, on a sync thread (in line when the last took under " +
               std::to_string(audit_file::AuditFileWriter::kQuickSyncNs / 1000) + " us, or under " +
               std::to_string(s.alone_sync_under_us) +
               " us for a record that came alone); an ACK waits for at most the sync in "
               "flight and its own");
  }
  std::unique_ptr<tail_engine::Engine> engine;
  if (!s.watch.empty()) {
    tail_engine::Options options;
    options.patterns = s.watch;
    options.state_dir = s.state_dir;
    options.append_only_logs = s.append_only;
    if (s.have_config) {
      options.limits = s.config.limits;
      options.quota = s.config.quota;
      options.config = &s.config;
    }
    engine = std::make_unique<tail_engine::Engine>();
    if (!engine->Init(options, &out, use_syslog ? &syslog : nullptr, &err)) {
      logs::Error(err);
      return exit_status::kIoErr;
    }
    engine->Scan();
    logs::Note(
        std::to_string(s.watch.size()) + " pattern(s), " + std::to_string(engine->stats().sources) +
        " sandbox(es) found, " + std::to_string(engine->stats().watches) +
        " inotify watch(es); writing " + s.out + "; checkpoints in " + s.state_dir +
        "; batch: up to " + std::to_string(options.max_entries_per_cycle) + " records or " +
        std::to_string(tail_engine::kCycleMs) +
        " ms per fdatasync, then the chain head and one frame of " + checkpoint_journal::kFileName +
        " holding the checkpoint of every source read (one fdatasync), on a "
        "commit thread while the next batch is read; a restart skips up to " +
        std::to_string(tail_engine::ReplayWindowEntries(options.max_entries_per_cycle)) +
        " entries already written (two batches and some); " + engine->AppendOnlySummary());
  } else {
    logs::Note("writing " + s.out);
  }
  if (state.ok() && !exits->Open(state.get(), &err)) {
    logs::Warning("exits on an I/O error are not counted: " + err);
  }
  // Declared after the engine, the socket and syslog it reads: destroyed before them.
  metrics::Registry registry;
  run_metrics::Parts parts;
  parts.engine = engine.get();
  parts.listener = listener.get();
  parts.syslog = use_syslog ? &syslog : nullptr;
  parts.forwarders = &s.forwarders;
  if (state.ok()) {
    parts.forward_destinations = s.forward_names;
    parts.state_dir_fd = state.get();
  }
  parts.out = &out;
  parts.io_error_exits = exits->count();
  parts.started_unix = static_cast<int64_t>(time(nullptr));
  run_metrics::Register(parts, &registry);
  for (const std::string& e : registry.errors()) {
    logs::Error("internal error: " + e);
    return exit_status::kSoftware;
  }
  run_metrics::Writer metrics(&registry, s.metrics_file,
                              static_cast<int64_t>(s.metrics_interval_s) * 1000);
  // run.status for `agt-collector status`, at the metrics' pace.
  run_status::Snapshot snapshot;
  snapshot.pid = getpid();
  snapshot.started_unix = parts.started_unix;
  snapshot.output = s.out;
  snapshot.forward = s.forward_names;
  bool status_failing = false;
  if (state.ok()) {
    metrics.AlsoWrite([&] {
      snapshot.written_unix = static_cast<int64_t>(time(nullptr));
      snapshot.last_problem_unix = logs::LastProblemTime();
      snapshot.last_problem = logs::LastProblem();
      const run_status::ListSources list_sources = [&](const run_status::SourceVisitor& visit) {
        if (engine != nullptr) engine->ListSourceLogs(visit);
      };
      std::string write_err;
      if (run_status::Write(s.state_dir, snapshot, list_sources, &write_err)) {
        status_failing = false;
      } else if (!status_failing) {
        status_failing = true;
        logs::Warning("status: " + write_err + "; retried every interval (said once)");
      }
    });
  }
  // Started: from here on, only what the loop needs (self_confine.h).
  self_confine::ConfineRun({s.out, s.state_dir, s.listen, s.key_file, args.get("--config"), s.watch,
                            !s.forwarders.empty(), s.metrics_file});
  service_notify::Notifier notifier;
  status = Loop(s, sfd.get(), engine.get(), listener.get(), &out, state.get(), &notifier, &metrics);
  notifier.Stopping();
  if (status == exit_status::kOk) status = Drain(engine.get(), listener.get());
  // A background sync still in flight is waited for: its failure is an I/O
  // error like any other (exit 74), not dropped on the way out.
  if (status == exit_status::kOk && !out.Close(&err)) {
    logs::Error(err);
    status = exit_status::kIoErr;
  }
  // Each forwarder keeps its own position: stopping it loses nothing.
  s.forwarders.StopAll(5000);
  if (status == exit_status::kOk && state.ok() &&
      !chain_head::Save(state.get(), out.durable_head(), &err)) {
    logs::Error("chain head in " + s.state_dir + ": " + err);
    status = exit_status::kIoErr;
  }
  snapshot.stopped = true;
  snapshot.exit_status = status;
  metrics.Write();  // the final numbers, as the audit file holds them
  std::string summary = "stopping: ";
  if (engine != nullptr) {
    engine->ReportRejectionsNotShown(true);
    const tail_engine::Stats& st = engine->stats();
    summary += std::to_string(st.entries_written) + " entries written, " +
               std::to_string(st.entries_already_present) + " already present (replayed), " +
               std::to_string(st.lines_rejected) + " lines rejected, " +
               std::to_string(st.lines_held) + " lines past a sandbox quota (in " +
               std::to_string(st.summaries_written) + " summary entries), " +
               std::to_string(st.logs_suppressed) + " log suppression(s) recorded (" +
               std::to_string(st.logs_restored) + " restored), " +
               std::to_string(syslog.dropped()) + " syslog messages dropped, " +
               std::to_string(st.sources) + " sandbox(es) watched";
  }
  if (listener != nullptr) {
    const listener::Stats& ls = listener->stats();
    summary += std::string(engine != nullptr ? "; " : "") +
               "socket: " + std::to_string(ls.attested) + " attested entries, " +
               std::to_string(ls.forged) + " forged messages in " +
               std::to_string(ls.forgery_entries) + " entries, " + std::to_string(ls.rejected) +
               " rejected, " + std::to_string(ls.refused) + " refused over a limit";
  }
  logs::Note(summary);
  return status;
}

}  // namespace

int Run(const cli_args::ParsedArgs& args) {
  io_error_exits::Counter exits;
  const int status = Serve(args, &exits);
  // The unit restarts run after this: counted first, in place (no new
  // block on a full disk), so the next start can say how often it happened.
  std::string err;
  if (status == exit_status::kIoErr && exits.open() && !exits.Add(&err)) {
    logs::Warning("exit on an I/O error not counted: " + err);
  }
  return status;
}

}  // namespace run_command
