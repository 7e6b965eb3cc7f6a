#include "run_metrics.h"

#include <time.h>

#include <memory>

#include "forward/forward_lag.h"
#include "logs.h"
#include "record_validator.h"

namespace run_metrics {

void Register(const Parts& parts, metrics::Registry* registry) {
  using metrics::Type;
  const tail_engine::Engine* engine = parts.engine;
  const syslog_sender::SyslogSender* syslog = parts.syslog;
  const int64_t started_unix = parts.started_unix;
  // --listen alone has no engine: its series read 0.
  static const tail_engine::Stats kNoEngine;
  const tail_engine::Stats& st = engine != nullptr ? engine->stats() : kNoEngine;
  registry->Add(Type::kCounter, "agt_collector_entries_written_total",
                "Signed audit entries appended to the output.",
                [&st] { return static_cast<double>(st.entries_written); });
  registry->Add(Type::kCounter, "agt_collector_entries_replayed_total",
                "Records read again after a restart whose entries were already in the output.",
                [&st] { return static_cast<double>(st.entries_already_present); });
  // Every reason is written, 0 included: a bounded set, and rate() sees the first one.
  for (size_t i = 1; i < st.rejected_by_problem.size(); ++i) {
    const auto problem = static_cast<record_validator::Problem>(i);
    registry->Add(Type::kCounter, "agt_collector_lines_rejected_total",
                  "Sandbox log lines rejected, by reason.",
                  [&st, i] { return static_cast<double>(st.rejected_by_problem[i]); },
                  {"reason", record_validator::ProblemLabel(problem)});
  }
  registry->Add(Type::kGauge, "agt_collector_sources", "Sandbox logs watched.",
                [&st] { return static_cast<double>(st.sources); });
  registry->Add(Type::kGauge, "agt_collector_inotify_watches",
                "inotify watches held (sandboxes beyond them are found by the scan).",
                [&st] { return static_cast<double>(st.watches); });
  // Each of the three series is one pass over the sources (an fstat per open log).
  const auto unread = [engine](uint64_t tail_engine::UnreadBytes::*field) {
    return [engine, field] {
      return engine != nullptr ? static_cast<double>(engine->Unread().*field) : 0.0;
    };
  };
  const char* const unread_help = "Bytes in the sandbox logs not read yet, by the file's state.";
  registry->Add(Type::kGauge, "agt_collector_unread_bytes", unread_help,
                unread(&tail_engine::UnreadBytes::open), {"state", "open"});
  registry->Add(Type::kGauge, "agt_collector_unread_bytes", unread_help,
                unread(&tail_engine::UnreadBytes::rotated), {"state", "rotated"});
  registry->Add(Type::kGauge, "agt_collector_unread_bytes", unread_help,
                unread(&tail_engine::UnreadBytes::closed), {"state", "closed"});
  registry->Add(Type::kGauge, "agt_collector_checkpoint_age_seconds",
                "Seconds since a checkpoint was last written (since the start before the first).",
                [&st, started_unix] {
                  const int64_t since =
                      st.last_checkpoint_unix ? st.last_checkpoint_unix : started_unix;
                  const int64_t age = static_cast<int64_t>(time(nullptr)) - since;
                  return static_cast<double>(age > 0 ? age : 0);
                });
  registry->Add(Type::kCounter, "agt_collector_syslog_dropped_total",
                "Syslog notices dropped (the socket was full or gone); the audit file has them.",
                [syslog] { return syslog ? static_cast<double>(syslog->dropped()) : 0.0; });
  registry->Add(
      Type::kCounter, "agt_collector_quota_summaries_total",
      "sandbox_quota_exceeded entries written (one per sandbox and window over its quota).",
      [&st] { return static_cast<double>(st.summaries_written); });
  registry->Add(Type::kCounter, "agt_collector_quota_lines_dropped_total",
                "Lines past a sandbox's quota: counted in a summary entry, not written one by one.",
                [&st] { return static_cast<double>(st.lines_held); });
  registry->Add(
      Type::kCounter, "agt_collector_log_suppressions_total",
      "denied_log_suppressed entries written (a sandbox replaced, removed or blocked its log).",
      [&st] { return static_cast<double>(st.logs_suppressed); });
  // The attested socket (--listen).
  const listener::Listener* listener = parts.listener;
  registry->Add(
      Type::kCounter, "agt_collector_attested_entries_total",
      "command_denied entries written from the attested socket (acknowledged).",
      [listener] { return listener ? static_cast<double>(listener->stats().attested) : 0.0; });
  registry->Add(
      Type::kCounter, "agt_collector_forged_messages_total",
      "Socket messages not from the genuine shim (refused, recorded as forgeries).",
      [listener] { return listener ? static_cast<double>(listener->stats().forged) : 0.0; });
  // Forwarding (--forward, forward in --config).
  const forward_supervisor::Supervisor* forwarders = parts.forwarders;
  registry->Add(
      Type::kCounter, "agt_collector_forward_exits_total",
      "Forwarder processes that stopped on their own (an error they could not get past).",
      [forwarders] { return forwarders ? static_cast<double>(forwarders->exits()) : 0.0; });
  registry->Add(Type::kCounter, "agt_collector_forward_restarts_total",
                "Forwarder processes started again after one stopped.", [forwarders] {
                  return forwarders ? static_cast<double>(forwarders->restarts()) : 0.0;
                });
  for (const std::string& name : parts.forward_destinations) {
    // One count serves both series of a destination (bytes first, as registered).
    auto counter = std::make_shared<forward_lag::Counter>();
    auto last = std::make_shared<forward_lag::Lag>();
    const int state_fd = parts.state_dir_fd;
    const audit_file::AuditFileWriter* out = parts.out;
    registry->Add(
        Type::kGauge, "agt_collector_forward_lag_bytes",
        "Bytes of the audit file's durable entries the receiver has not acknowledged yet.",
        [=] {
          *last = counter->Measure(state_fd, name, out->fd(), out->durable_head());
          return static_cast<double>(last->bytes);
        },
        {"destination", name});
    registry->Add(Type::kGauge, "agt_collector_forward_lag_entries",
                  "Audit entries the receiver has not acknowledged yet.",
                  [last] { return static_cast<double>(last->entries); }, {"destination", name});
  }
  const uint64_t io_error_exits = parts.io_error_exits;
  registry->Add(Type::kCounter, "agt_collector_io_error_exits_total",
                "Times run stopped with exit 74 (an I/O error on its own files, e.g. a full disk), "
                "counted in the state directory across restarts.",
                [io_error_exits] { return static_cast<double>(io_error_exits); });
  registry->Add(Type::kGauge, "agt_collector_last_error_timestamp_seconds",
                "Unix time of the last error or warning logged (a rejected line is one); 0: none.",
                [] { return static_cast<double>(logs::LastProblemTime()); });
}

void Writer::WriteIfDue(int64_t now_ms) {
  if (!enabled() || (!first_ && now_ms < next_ms_)) return;
  first_ = false;
  next_ms_ = now_ms + interval_ms_;
  Write();
}

void Writer::Write() {
  if (also_ != nullptr) also_();
  if (path_.empty()) return;
  std::string err;
  if (metrics::WriteAtomically(path_, registry_->Render(), &err)) {
    if (failing_) logs::Note("metrics: writing " + path_ + " again");
    failing_ = false;
  } else if (!failing_) {
    logs::Warning("metrics: " + err + "; retried every interval (said once)");
    failing_ = true;
  }
}

int64_t Writer::MsUntilDue(int64_t now_ms) const {
  if (!enabled()) return -1;
  if (first_) return 0;
  return next_ms_ > now_ms ? next_ms_ - now_ms : 0;
}

}  // namespace run_metrics
