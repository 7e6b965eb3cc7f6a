// The collector's JSON configuration. Closed vocabulary: every key is a row
// of one table (config.cc, kConfigSchema) with its type and help text; an
// unknown key is an error naming its JSON path with a did-you-mean hint.
#ifndef AGT_COLLECTOR_CONFIG_H_
#define AGT_COLLECTOR_CONFIG_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "entry_mapper.h"
#include "forward/forward_destination.h"
#include "record_validator.h"
#include "tail/sandbox_quota.h"

namespace config {

// One configured source: a fixed `path` (with its labels.sandbox_id) or a
// `pattern` with one {sandbox_id} placeholder (the id comes from the path).
// `agent_did` may contain {sandbox_id}; absent, it defaults to
// "did:agt:sandbox:{sandbox_id}".
struct SourceConfig {
  std::string path;
  std::string pattern;
  entry_mapper::SourceLabels labels;  // sandbox_id empty for patterns
  std::string agent_did_template;     // empty: the default
  bool agent_did_null = false;        // "agent_did": null given explicitly
};

struct Config {
  std::string file;                // where it was read from
  std::string output;              // audit JSONL path ("" when not set)
  std::string key_file;            // "" when not set
  std::string state_dir;           // run mode's checkpoint directory
  std::vector<std::string> watch;  // run mode's patterns (default labels)
  // run mode's attested socket (agt-collector(1), LISTEN); "" when not set.
  std::string listen, shim, shim_sha256, cgroup_pattern;
  std::string metrics_file;         // run mode's Prometheus text file ("" when not set)
  uint32_t metrics_interval_s = 0;  // 0 when not set (run's default applies)
  std::vector<SourceConfig> sources;
  record_validator::Limits limits;
  sandbox_quota::Limits quota;                            // run mode, per sandbox
  std::vector<forward_destination::Destination> forward;  // checked (forward_destination::Check)
};

// Run mode's metrics interval, in seconds (--metrics-interval, metrics_interval).
constexpr uint32_t kMetricsIntervalDefault = 15;
constexpr uint32_t kMetricsIntervalMax = 3600;

// One row per key the config may hold. `key` is the JSON path with "[]" for
// any array index, e.g. "sources[].sandbox_id".
enum class ValueType {
  kObject,
  kString,
  kNullableString,
  kStringArray,
  kObjectArray,
  kSize,
  kCount
};
struct SchemaRow {
  const char* key;
  ValueType type;
  const char* help;
};
// The table itself (for --help and the man page's tests).
const SchemaRow* Schema(size_t* count);

// Parses and checks a config text. Warnings (non-fatal) are appended.
bool ParseConfig(std::string_view text, const std::string& file, Config* out,
                 std::vector<std::string>* warnings, std::string* err);
// Reads `path` and parses it; warns when the file is writable by group/others.
bool LoadConfig(const std::string& path, Config* out, std::vector<std::string>* warnings,
                std::string* err);

// Sizes with explicit units: a bare integer is bytes; strings take
// B, KB/MB/GB (powers of 1000) or KiB/MiB/GiB (powers of 1024), e.g. "64KiB".
bool ParseSize(std::string_view text, uint64_t* bytes, std::string* err);

// The labels for a log `path`: a source whose `path` equals it, else the first
// source `pattern` or `watch` pattern it matches. False with *err when none.
bool LabelsForPath(const Config& config, std::string_view path, entry_mapper::SourceLabels* labels,
                   std::string* err);

// Labels for a bare --sandbox-id (agent_did defaulted, the rest null).
entry_mapper::SourceLabels LabelsForSandboxId(std::string_view sandbox_id);

}  // namespace config

#endif  // AGT_COLLECTOR_CONFIG_H_
