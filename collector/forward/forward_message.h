// The forwarded message: RFC 5424 with the signed entry line, byte for byte,
// as the MSG, so a receiver can rebuild the audit file from the MSGs alone.
//
//   <37>1 TIMESTAMP HOST agt-collector - EVENT_TYPE [agt@32473 entry_id="..."
//       sandbox_id="..." resource="..." outcome="..." seq="N"
//       previous_hash="..." content_hash="..."] {"action": ...the line...}
//
// PRI 37 is auth.notice; TIMESTAMP the entry's own (RFC 3339); MSGID the
// entry's event_type; seq the entry's 1-based line in its audit file and
// previous_hash/content_hash its place in the chain. 32473 is the private
// enterprise number RFC 5612 sets aside for examples; the SD-ID is ours.
// An entry longer than the destination's limit is never cut: an
// `entry_oversized` message with the same structured data and a `size`
// parameter, and no MSG, takes its place (agt-collector(1)).
#ifndef AGT_COLLECTOR_FORWARD_FORWARD_MESSAGE_H_
#define AGT_COLLECTOR_FORWARD_FORWARD_MESSAGE_H_

#include <stddef.h>
#include <stdint.h>

#include <string>
#include <string_view>

namespace forward_message {

constexpr int kPriority = 4 * 8 + 5;  // LOG_AUTH, LOG_NOTICE
constexpr const char* kAppName = "agt-collector";
constexpr const char* kSdId = "agt@32473";
constexpr const char* kOversizedMsgId = "entry_oversized";

// The fields of a signed entry line the header and structured data carry.
struct EntryFacts {
  std::string entry_id, event_type, sandbox_id, resource, outcome, timestamp;
  std::string content_hash, previous_hash;
};

// Reads them from one line of the audit file (RapidJSON); false with a bare
// reason when the line is not an entry object with them as strings.
bool ParseEntry(std::string_view line, EntryFacts* out, std::string* err);

// This host's name as a syslog HOSTNAME ("-" when it has none printable).
std::string HostName();

// The RFC 5424 message for an entry, with `body` as the MSG (the line, or
// its CloudEvents envelope). When it would exceed max_bytes, the
// entry_oversized notice instead. `*out` is reused.
void Format(const EntryFacts& e, std::string_view host, uint64_t seq, std::string_view body,
            size_t max_bytes, std::string* out);

// The structured-data element alone ("[agt@32473 ...]"), for the local
// notice, which has no seq (0: left out; run does not count lines).
void AppendStructuredData(const EntryFacts& e, uint64_t seq, std::string* out);

// A PARAM-VALUE with '"', '\\' and ']' escaped (RFC 5424 6.3.3).
void AppendParamValue(std::string_view value, std::string* out);

}  // namespace forward_message

#endif  // AGT_COLLECTOR_FORWARD_FORWARD_MESSAGE_H_
