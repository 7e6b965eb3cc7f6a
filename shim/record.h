// Builds the command_denied record: one compact JSON line, keys sorted,
// valid UTF-8 whatever bytes argv holds, secrets replaced by "[REDACTED]",
// at most kMaxRecordSize bytes.
//
// Size rule (the man page documents the same): each string taken from the
// sandbox (an argument, argv0, path, host) is escaped and then cut to at most
// kMaxFieldSize bytes, the cut text ending in "...[truncated]"; a cut never
// splits an escape, a UTF-8 character or a "[REDACTED]" marker. Arguments are
// then added in order while the line stays within kMaxRecordSize; the first
// that does not fit is dropped with all after it. Either sets
// "truncated":true. kMaxRecordSize leaves room for the human line and a log
// warning in the same 4096-byte (PIPE_BUF) stderr write.
#ifndef AGT_DENY_SHIM_RECORD_H_
#define AGT_DENY_SHIM_RECORD_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fixed_buffer.h"
#include "redact.h"

namespace record {

inline constexpr std::size_t kMaxRecordSize = 3584;
inline constexpr std::size_t kMaxFieldSize = 512;
inline constexpr std::string_view kCutMarker = "...[truncated]";
inline constexpr std::uint64_t kIssue = 2662;

struct Facts {
  int argc = 0;                       // as the kernel passed it (includes argv[0])
  const char* const* argv = nullptr;  // argv[0..argc)
  std::string_view exec_path;         // AT_EXECFN
  std::string_view binary;            // invocation::Attribute()
  std::string_view via;               // invocation::ViaName()
  std::string_view tool;              // whose options redaction applies (invocation::Attribution)
  std::string_view script;            // the script's path when via is "script", else ""
  bool confined = false;
  std::uint64_t pid = 0;
  std::uint64_t ppid = 0;
  std::uint64_t uid = 0;
  std::uint64_t gid = 0;
  std::string_view host;
  std::int64_t time_sec = 0;  // CLOCK_REALTIME
  std::uint32_t time_nsec = 0;
  std::string_view version;
};

// Appends `raw` as a quoted JSON string: escaped, `spans` replaced by the
// redaction marker, cut to `max_escaped` bytes between the quotes (sets *cut).
// Returns false (appending nothing) when `out` lacks room.
bool AppendField(std::string_view raw, const redact::Spans& spans, std::size_t max_escaped,
                 fixed_buffer::Buffer* out, bool* cut);

// "YYYY-MM-DDTHH:MM:SSZ" (UTC; seconds before 1970 count as 1970).
bool AppendTimestamp(std::int64_t time_sec, fixed_buffer::Buffer* out);

// Writes the record line (no newline) into `out`, which needs kMaxRecordSize
// bytes of room; returns false only when it has less.
bool Build(const Facts& facts, fixed_buffer::Buffer* out);

}  // namespace record

#endif  // AGT_DENY_SHIM_RECORD_H_
