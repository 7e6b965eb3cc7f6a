// A message on the socket that did not come from the genuine shim is
// evidence too: one signed `denial_record_forged` entry with what the kernel
// said about the sender and a bounded, escaped prefix of what it sent.
// Repeats from the same peer (executable identity + cgroup) are counted and
// summarised: the first is written at once, the rest as one entry per
// interval carrying the count, so a flood costs a counter, not a disk.
#ifndef AGT_COLLECTOR_LISTEN_FORGERY_REPORT_H_
#define AGT_COLLECTOR_LISTEN_FORGERY_REPORT_H_

#include <stdint.h>

#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "audit_entry.h"
#include "listen/peer_attestation.h"

namespace forgery_report {

// At most this many bytes of a message are kept, escaped (agt-audit-jsonl(5)).
constexpr size_t kPrefixBytes = 256;

// "\xNN" for every byte outside printable ASCII and for '\', so any bytes
// become readable ASCII text; at most `limit` input bytes.
std::string EscapedPrefix(std::string_view message, size_t limit);

// One entry to write: its fields, ready for AuditFileWriter::AppendNew.
struct Due {
  audit_entry::AuditEntryFields fields;
};

class Reporter {
 public:
  // `socket_path` names the channel in the entries; repeats from one peer
  // are summarised every `interval_ms`; at most `max_peers` are tracked
  // (more are summarised together under the last slot).
  Reporter(std::string socket_path, int64_t interval_ms, size_t max_peers);

  // A forgery seen at `now_ms` (CLOCK_REALTIME milliseconds for the entry's
  // time; the interval is measured on the same clock). Appends to *due an
  // entry when this is the peer's first in its interval.
  void Seen(const peer_attestation::Peer& peer, std::string_view reason, std::string_view message,
            int64_t now_ms, std::vector<Due>* due);
  // The summaries whose interval has ended (count > 0), and forgets peers
  // quiet for a whole interval.
  void Flush(int64_t now_ms, std::vector<Due>* due);
  // All pending summaries, whatever their interval (on the way out).
  void FlushAll(int64_t now_ms, std::vector<Due>* due);
  // Milliseconds until the next summary is due (-1: none pending).
  int64_t MsUntilDue(int64_t now_ms) const;

  uint64_t seen() const { return seen_; }

 private:
  using Key = std::tuple<uint64_t, uint64_t, std::string>;  // exe dev, ino, cgroup
  struct Tally {
    peer_attestation::Peer last;
    std::string reason;
    std::string prefix;
    size_t message_bytes = 0;
    uint64_t count = 0;  // since the last entry
    int64_t window_start_ms = 0;
  };
  void Write(const Tally& t, uint64_t count, int64_t now_ms, std::vector<Due>* due) const;

  std::string socket_path_;
  int64_t interval_ms_;
  size_t max_peers_;
  std::map<Key, Tally> tallies_;
  uint64_t seen_ = 0;
};

}  // namespace forgery_report

#endif  // AGT_COLLECTOR_LISTEN_FORGERY_REPORT_H_
