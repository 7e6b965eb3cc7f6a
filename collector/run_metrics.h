// The run mode's metrics (agt-collector(1), METRICS): every series the
// daemon writes to --metrics-file, one registry line each.
#ifndef AGT_COLLECTOR_RUN_METRICS_H_
#define AGT_COLLECTOR_RUN_METRICS_H_

#include <stdint.h>

#include <string>
#include <utility>

#include "metrics.h"
#include "tail/syslog_sender.h"
#include "tail/tail_engine.h"

namespace run_metrics {

// Registers the engine's and syslog's series; `engine` may be null (--listen
// alone: its series read 0), and `syslog` (none configured: its drops read 0). `started_unix` is when the daemon started
// (the checkpoint age before the first checkpoint). Both must outlive the
// registry's last Render().
void Register(const tail_engine::Engine* engine, const syslog_sender::SyslogSender* syslog,
              int64_t started_unix, metrics::Registry* registry);

// Writes the registry to the metrics file every interval; a failed write is
// warned about once until a write succeeds again (the daemon goes on).
class Writer {
 public:
  Writer(const metrics::Registry* registry, std::string path, int64_t interval_ms)
      : registry_(registry), path_(std::move(path)), interval_ms_(interval_ms) {}
  bool enabled() const { return !path_.empty(); }
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
};

}  // namespace run_metrics

#endif  // AGT_COLLECTOR_RUN_METRICS_H_
