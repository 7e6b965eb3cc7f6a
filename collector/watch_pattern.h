// Watch patterns: a log path with exactly one "{sandbox_id}" placeholder,
// e.g. /var/log/agt/sandboxes/{sandbox_id}/denied.log. The placeholder
// matches exactly one path component, which becomes the entry's sandbox_id.
#ifndef AGT_COLLECTOR_WATCH_PATTERN_H_
#define AGT_COLLECTOR_WATCH_PATTERN_H_

#include <string>
#include <string_view>

namespace watch_pattern {

constexpr std::string_view kPlaceholder = "{sandbox_id}";

// An absolute path with one placeholder, which fills a whole path component.
bool IsValidWatchPattern(std::string_view pattern, std::string* err);

// 1-128 bytes of [A-Za-z0-9._-], not "." or "..": safe as a path component
// and inside a DID.
bool IsPlausibleSandboxId(std::string_view sandbox_id);

// True when `path` matches `pattern` (valid) with a plausible sandbox id.
bool MatchWatchPattern(std::string_view pattern, std::string_view path, std::string* sandbox_id);

// The directory part before the placeholder, e.g. "/var/log/agt/sandboxes".
std::string_view PatternBaseDir(std::string_view pattern);

}  // namespace watch_pattern

#endif  // AGT_COLLECTOR_WATCH_PATTERN_H_
