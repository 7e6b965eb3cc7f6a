#include "run_metrics.h"

#include <time.h>

#include "logs.h"
#include "record_validator.h"

namespace run_metrics {

void Register(const tail_engine::Engine* engine, const syslog_sender::SyslogSender* syslog,
              int64_t started_unix, metrics::Registry* registry) {
  using metrics::Type;
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
  registry->Add(Type::kGauge, "agt_collector_sources",
                "Sandbox logs watched.", [&st] { return static_cast<double>(st.sources); });
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
                  const int64_t since = st.last_checkpoint_unix ? st.last_checkpoint_unix
                                                                : started_unix;
                  const int64_t age = static_cast<int64_t>(time(nullptr)) - since;
                  return static_cast<double>(age > 0 ? age : 0);
                });
  registry->Add(Type::kCounter, "agt_collector_syslog_dropped_total",
                "Syslog notices dropped (the socket was full or gone); the audit file has them.",
                [syslog] { return syslog ? static_cast<double>(syslog->dropped()) : 0.0; });
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
  if (!enabled()) return;
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
