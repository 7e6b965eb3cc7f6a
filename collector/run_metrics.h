// The run mode's metrics (agt-collector(1), METRICS): every series the
// daemon writes to --metrics-file, one registry line each.
#ifndef AGT_COLLECTOR_RUN_METRICS_H_
#define AGT_COLLECTOR_RUN_METRICS_H_

#include <stdint.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "audit_file.h"
#include "forward/forward_supervisor.h"
#include "listen/listener.h"
#include "metrics.h"
#include "tail/syslog_sender.h"
#include "tail/tail_engine.h"

namespace run_metrics {

// What the series read; each part may be null (not configured: its series
// read 0, except the forward lag, which has a series per destination).
// All must outlive the registry's last Render().
struct Parts {
  const tail_engine::Engine* engine = nullptr;
  const listener::Listener* listener = nullptr;
  const syslog_sender::SyslogSender* syslog = nullptr;
  const forward_supervisor::Supervisor* forwarders = nullptr;
  // The forward lag: each destination's position file in the state
  // directory against the audit file's durable end.
  std::vector<std::string> forward_destinations;
  int state_dir_fd = -1;
  const audit_file::AuditFileWriter* out = nullptr;
  uint64_t io_error_exits = 0;  // counted before this start (io_error_exits.h)
  int64_t started_unix = 0;     // the checkpoint age before the first checkpoint
};

void Register(const Parts& parts, metrics::Registry* registry);

// Writes the registry to the metrics file every interval, and with it
// anything else kept at that pace (AlsoWrite: run.status); a failed write
// is warned about once until a write succeeds again (the daemon goes on).
class Writer {
 public:
  Writer(const metrics::Registry* registry, std::string path, int64_t interval_ms)
      : registry_(registry), path_(std::move(path)), interval_ms_(interval_ms) {}
  // Called at each write, after the metrics file (or alone without one).
  void AlsoWrite(std::function<void()> also) { also_ = std::move(also); }
  bool enabled() const { return !path_.empty() || also_ != nullptr; }
  // Writes now when due (the first call always is); `now_ms` is monotonic.
  void WriteIfDue(int64_t now_ms);
  // Writes now, whatever the time (on the way out).
  void Write();
  // Milliseconds until the next write is due; -1 when disabled.
  int64_t MsUntilDue(int64_t now_ms) const;

 private:
  const metrics::Registry* registry_;
  std::string path_;
  int64_t interval_ms_;
  int64_t next_ms_ = 0;
  bool first_ = true;
  bool failing_ = false;
  std::function<void()> also_;
};

}  // namespace run_metrics

#endif  // AGT_COLLECTOR_RUN_METRICS_H_
