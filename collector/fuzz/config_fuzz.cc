// libFuzzer harness: config::ParseConfig on any text. Properties: a refused
// config gets one line naming the file and never a control character from
// the text (it lands in a terminal or a journal); an accepted one holds only
// what the checks promise (limits in range, valid patterns, a plausible id
// per path source, exactly one of path or pattern), parses the same way
// twice, and gives every pattern's own paths their labels.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config.h"
#include "fuzz_check.h"
#include "watch_pattern.h"

namespace {

bool HasControlCharacter(std::string_view text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  }
  return false;
}

// A path the pattern matches, with the sandbox id "sb-1".
std::string PathOf(const std::string& pattern) {
  std::string path = pattern;
  const size_t at = path.find(watch_pattern::kPlaceholder);
  FUZZ_CHECK(at != std::string::npos);
  path.replace(at, watch_pattern::kPlaceholder.size(), "sb-1");
  return path;
}

void CheckLabelsFor(const config::Config& config, const std::string& pattern) {
  entry_mapper::SourceLabels labels;
  std::string err;
  FUZZ_CHECK(config::LabelsForPath(config, PathOf(pattern), &labels, &err));
  FUZZ_CHECK(watch_pattern::IsPlausibleSandboxId(labels.sandbox_id));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  config::Config config;
  std::vector<std::string> warnings;
  std::string err;
  if (!config::ParseConfig(text, "fuzz.json", &config, &warnings, &err)) {
    FUZZ_CHECK(err.rfind("fuzz.json", 0) ==
               0);  // a bare reason naming the file; logs adds the prefix
    FUZZ_CHECK(!HasControlCharacter(err));
    return 0;
  }
  FUZZ_CHECK(config.limits.max_line_bytes >= 256 && config.limits.max_line_bytes <= (16u << 20));
  FUZZ_CHECK(config.limits.max_argv_bytes >= 1 && config.limits.max_argv_bytes <= (16u << 20));
  FUZZ_CHECK(config.limits.max_argv_entries >= 1 && config.limits.max_argv_entries <= 1000000);
  for (const std::string& pattern : config.watch) {
    FUZZ_CHECK(watch_pattern::IsValidWatchPattern(pattern, &err));
    CheckLabelsFor(config, pattern);
  }
  for (const config::SourceConfig& source : config.sources) {
    FUZZ_CHECK(source.path.empty() != source.pattern.empty());
    if (!source.path.empty()) {
      FUZZ_CHECK(watch_pattern::IsPlausibleSandboxId(source.labels.sandbox_id));
    } else {
      FUZZ_CHECK(watch_pattern::IsValidWatchPattern(source.pattern, &err));
      CheckLabelsFor(config, source.pattern);
    }
  }

  config::Config twice;
  FUZZ_CHECK(config::ParseConfig(text, "fuzz.json", &twice, &warnings, &err));
  FUZZ_CHECK(twice.output == config.output && twice.key_file == config.key_file &&
             twice.state_dir == config.state_dir && twice.watch == config.watch &&
             twice.sources.size() == config.sources.size());
  return 0;
}
