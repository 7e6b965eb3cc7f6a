// The collector's metrics: one small registry, rendered in Prometheus' text
// exposition format (0.0.4) and written atomically for node_exporter's
// textfile collector (`run --metrics-file`).
//
// Adding a metric is one line, where its value is kept, e.g.
//   registry->Add(metrics::Type::kCounter, "agt_collector_forward_errors_total",
//                 "Entries the receiver refused.", [this] { return errors_; });
// The value is read at each write; the registry stores no numbers of its own.
// Names follow Prometheus' conventions: the agt_collector_ prefix, base
// units (_seconds, _bytes), counters ending in _total. List each new one in
// agt-collector(1), METRICS (a test compares the two).
#ifndef AGT_COLLECTOR_METRICS_H_
#define AGT_COLLECTOR_METRICS_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace metrics {

enum class Type { kCounter, kGauge };

// At most one label per series: enough for a bounded set such as a reason
// or a state. Never a sandbox id or a path (unbounded).
struct Label {
  std::string name, value;
};

class Registry {
 public:
  using Reader = std::function<double()>;

  // Registers one series. Several series of one name (different label
  // values) share its HELP and TYPE. A bad name (not [a-zA-Z_:][a-zA-Z0-9_:]*,
  // a counter without _total, a repeated series, a type or help differing
  // from the name's first series) is a programming error: the series is
  // left out and errors() says why.
  void Add(Type type, const std::string& name, const std::string& help, Reader read,
           Label label = {});

  // Every series, grouped by name in registration order.
  std::string Render() const;

  const std::vector<std::string>& errors() const { return errors_; }

 private:
  struct Series {
    Type type;
    std::string name, help;
    Label label;
    Reader read;
  };
  std::vector<Series> series_;
  std::vector<std::string> errors_;
};

// Replaces `path` with `text`: written to "PATH.tmp" in the same directory
// (a name the textfile collector ignores, as it reads *.prom only), then
// renamed over it, so a reader sees the old file or the new one, never a
// part. Not fsynced: the numbers are rewritten every interval and lose
// nothing that matters in a crash. False with *err (a bare reason).
bool WriteAtomically(const std::string& path, const std::string& text, std::string* err);

// The same, for a text given in pieces: `fill` calls `put` with each piece
// in order, and each is written as it comes, so a large file (run.status at
// 10,000 sandboxes) is never held whole. A failed write is reported once
// `fill` returns; the pieces after it are dropped.
using Put = std::function<void(std::string_view piece)>;
bool WriteAtomically(const std::string& path, const std::function<void(const Put& put)>& fill,
                     std::string* err);

}  // namespace metrics

#endif  // AGT_COLLECTOR_METRICS_H_
