// run --listen: the attested unix socket, the collector's third front end.
//
// A SOCK_SEQPACKET socket bound at the operator's path; one connection per
// denial, one message (the shim's record line), one byte back: ACK (0x06)
// once the entry is durable (after the audit file's Sync), NAK (0x15) when no
// command_denied entry was written for it. The sender is judged from what
// the kernel says (peer_attestation.h), at accept, usually before its
// record has come: the genuine shim's records go through the same pipeline
// as file lines (pipeline::Ingest::Line, with the attestation in the
// Origin); anything else becomes forgery evidence (forgery_report.h), never
// a command_denied entry.
//
// Group commit: the entries of one Pump are flushed and handed to a sync
// thread (audit_file.h, SyncInBackground); the loop goes on accepting,
// attesting and appending while it runs, and everything appended meanwhile
// is covered by the next sync, started as soon as it ends (before its
// ACKs are sent). Each connection gets
// its ACK once the sync covering its entry has ended (ack_queue.h). The
// batch bound: at most kMaxRecordsPerSync records wait for one sync (then
// the socket is not read until it ends: the senders wait in the kernel's
// queue), each at most kMaxMessageBytes long; a record waits for at most
// the sync in flight when it arrived plus its own.
//
// Limits, so one container cannot starve the others: connections held in
// all and per container (cgroup), connections per second per container (a
// token bucket), bytes of executables hashed per second per container
// (exe_identity::HashBudget), and a read timeout. Every descriptor is non-blocking; the
// run loop polls fd() beside its own.
#ifndef AGT_COLLECTOR_LISTEN_LISTENER_H_
#define AGT_COLLECTOR_LISTEN_LISTENER_H_

#include <stdint.h>
#include <sys/types.h>

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "audit_file.h"
#include "listen/ack_queue.h"
#include "listen/cgroup_by_id.h"
#include "listen/cgroup_sandbox_id.h"
#include "listen/exe_identity.h"
#include "listen/forgery_report.h"
#include "listen/peer_attestation.h"
#include "pipeline.h"
#include "unique_fd.h"

namespace listener {

constexpr unsigned char kAck = 0x06;
constexpr unsigned char kNak = 0x15;
// The longest message taken: the shim's record size limit.
constexpr size_t kMaxMessageBytes = 3584;
// The group commit's batch: records appended while a sync is in flight, all
// covered by the next one (and so the most a sync covers).
constexpr size_t kMaxRecordsPerSync = 1024;

// Default of Options::alone_sync_in_line_under_us: about what a denial's
// sender waits for besides the sync (agt-collector(1), LISTEN).
constexpr int64_t kAloneSyncInLineUnderUs = 2000;

struct Options {
  std::string path;
  mode_t mode = 0666;  // the sandbox user must connect (agt-collector(1))
  exe_identity::ShimReference shim;
  std::string cgroup_pattern;  // empty: the built-in layouts
  record_validator::Limits limits;
  size_t max_connections = 4096;
  size_t max_connections_per_container = 64;
  uint32_t connections_per_second_per_container = 2000;  // also the burst
  int64_t read_timeout_ms = 1000;
  int64_t forgery_interval_ms = 10000;
  // A message that came alone is synced in line when the last fdatasync
  // took under this (--alone-sync-under; 0: never for that reason).
  int64_t alone_sync_in_line_under_us = kAloneSyncInLineUnderUs;
};

struct Stats {
  uint64_t attested = 0;         // command_denied entries written (acknowledged)
  uint64_t forged = 0;           // messages judged not from the genuine shim
  uint64_t forgery_entries = 0;  // denial_record_forged entries written
  uint64_t refused = 0;          // over a limit (NAK without a look)
  uint64_t rejected = 0;         // from the shim, but not a valid record / no sandbox id
};

class Listener {
 public:
  Listener();
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // Creates the socket fresh (a stale socket at the path is unlinked;
  // anything else there is an error), binds, sets the mode, listens.
  bool Init(Options options, audit_file::AuditFileWriter* out, std::string* err);
  // An epoll descriptor: readable when there is something to accept or read.
  int fd() const { return epoll_.get(); }
  // True while the batch waiting for the next sync is full: fd() is not
  // worth polling until the audit file's sync_done_fd() is readable.
  bool BatchFull();
  // Takes a finished sync and ACKs what it made durable; accepts and serves
  // what is ready, appends the entries and starts their sync when none is
  // in flight. False only on a fatal output error (*err).
  bool Pump(std::string* err);
  // ACKs every connection whose entry is durable now (after a Sync() by
  // someone else, e.g. the file channel's commit).
  void AnswerDurable();
  // Milliseconds until a read timeout or a forgery summary is due (-1: none).
  int64_t MsUntilDue() const;
  // On the way out: pending forgery summaries written and synced.
  bool Finish(std::string* err);

  const Stats& stats() const { return stats_; }
  size_t connections() const { return conns_.size(); }

 private:
  struct Container {
    uint32_t held = 0;
    double tokens = 0;
    int64_t refill_ms = 0;
    exe_identity::HashBudget hash_budget;  // bytes of executables it may have hashed
  };
  struct Conn {
    unique_fd::UniqueFd fd;
    Container* container = nullptr;
    uint64_t generation = 0;  // tells a reused fd number from the one timed
    bool watched = false;     // in the epoll set (served at accept when not)
    // The kernel's facts and the verdict on them, taken at accept (Attest):
    // the shim connects before it confines itself and builds its record, so
    // the check runs while it does, not after the record arrives. (The
    // pidfd Attest checked is not kept: nothing asks it again.)
    peer_attestation::Peer peer;
    peer_attestation::Verdict verdict = peer_attestation::Verdict::kNoCredentials;
    std::string attest_error;  // for kNoCredentials
  };
  struct Deadline {
    int64_t at_ms;
    int fd;
    uint64_t generation;
  };

  void Accept(int64_t now_ms);
  void Serve(int fd);
  void Arm(int fd);  // its one-shot read event (added, or again)
  void Expire(int64_t now_ms);
  // The verdict on `conn`'s peer: true for the genuine shim; otherwise, or
  // whenever `reason_override` is given (a connection without a message),
  // records a forgery with that reason or the verdict's.
  bool Judge(const Conn& conn, std::string_view message, const std::string& reason_override);
  void Answer(int fd, unsigned char byte);  // sends it and closes
  void Close(int fd);
  bool AppendDue(std::string* err);
  // Starts the sync that Serve deferred (sync_deferred_) on the sync thread:
  // called when the Pump has something else to do.
  void HandOverDeferredSync();
  void WarnLimited(const std::string& what);

  Options options_;
  audit_file::AuditFileWriter* out_ = nullptr;
  unique_fd::UniqueFd socket_, epoll_;
  cgroup_sandbox_id::Matcher cgroups_;
  cgroup_by_id::Cache cgroup_ids_;  // the answers by the kernel's cgroup id
  std::unique_ptr<exe_identity::HashCache> hashes_;
  peer_attestation::DiagSockets diag_;
  std::optional<forgery_report::Reporter> forgeries_;
  std::optional<pipeline::Ingest> ingest_;
  std::unordered_map<int, Conn> conns_;
  std::deque<Deadline> deadlines_;  // in accept order (one timeout for all)
  uint64_t generation_ = 0;
  std::unordered_map<std::string, Container> containers_;
  ack_queue::AckQueue acks_;  // appended, ACK once durable
  std::vector<int> durable_;  // scratch: taken from acks_
  std::vector<forgery_report::Due> due_;
  std::string buf_;
  std::string attestation_;
  uint64_t sequence_ = 0;
  std::string fatal_;
  Stats stats_;
  bool warned_sync_ = false;
  // An entry this Pump appended waits for a sync that has not started: it
  // starts on the sync thread as soon as the Pump has anything else to do,
  // or in line at the Pump's end when nothing else came (see Pump).
  bool sync_deferred_ = false;
  int64_t warn_second_ = 0;
  uint64_t warnings_this_second_ = 0;
};

}  // namespace listener

#endif  // AGT_COLLECTOR_LISTEN_LISTENER_H_
