// The forwarder's loop. It reads the audit file (the outbox) from its own
// durable position, sends each entry, and moves that position only over
// entries the transport reports acknowledged, so a kill -9 at any moment
// re-sends (duplicates carry their entry_id) and never drops. A separate
// process from `run` (which starts it, or the operator does): a receiver
// down for an hour costs the forwarder nothing but its position, and the
// tailing and signing never wait for it.
#include "forward_command.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "audit_verifier.h"
#include "config.h"
#include "exit_status.h"
#include "forward/audit_follower.h"
#include "forward/cloud_event.h"
#include "forward/forward_destination.h"
#include "forward/forward_message.h"
#include "forward/forward_transport.h"
#include "logs.h"
#include "self_confine.h"
#include "tail/checkpoint_store.h"
#include "unique_fd.h"

namespace forward_command {
namespace {

// The position is made durable after this many newly acknowledged entries
// (and whenever the forwarder has caught up): at most this many plus one
// window are sent again after a kill -9.
constexpr uint64_t kPersistEvery = 256;
// Syslog has no acknowledgements: a polite close after this many proves
// them read (syslog_tcp_transport.h).
constexpr uint64_t kMessagesPerClose = 10000;
constexpr int kIdlePollMs = 50;
constexpr int kMaxBackoffMs = 30000;

struct Settings {
  std::string out, state_dir;
  forward_destination::Destination dest;
  bool until_caught_up = false;
  pid_t supervisor_pid = 0;  // run, when run started this forwarder
};

bool Resolve(const cli_args::ParsedArgs& args, Settings* s) {
  if (!args.positional.empty()) {
    logs::Error("unexpected argument \"" + args.positional.front() + "\"");
    return false;
  }
  s->out = args.get("--out");
  s->state_dir = args.get("--state-dir");
  s->until_caught_up = args.has("--until-caught-up");
  if (args.has("--supervisor-pid")) {
    const std::string pid = args.get("--supervisor-pid");
    char* end = nullptr;
    errno = 0;
    const long value = strtol(pid.c_str(), &end, 10);
    if (pid.empty() || *end != '\0' || errno != 0 || value <= 0 || value > INT32_MAX) {
      logs::Error("--supervisor-pid: \"" + pid + "\" is not a process id");
      return false;
    }
    s->supervisor_pid = static_cast<pid_t>(value);
  }
  std::string err;
  if (args.has("--forward")) {
    if (args.has("--destination")) {
      logs::Error("--forward and --destination exclude each other");
      return false;
    }
    if (!forward_destination::ParseUrl(args.get("--forward"), &s->dest, &err)) {
      logs::Error("--forward " + args.get("--forward") + ": " + err);
      return false;
    }
    s->dest.ca_file = args.get("--forward-ca");
    s->dest.cert_file = args.get("--forward-cert");
    s->dest.key_file = args.get("--forward-key");
    if (args.has("--forward-format")) {
      const std::string f = args.get("--forward-format");
      if (f == "cloudevents") {
        s->dest.format = forward_destination::Format::kCloudEvents;
      } else if (f != "rfc5424") {
        logs::Error("--forward-format: \"" + f + "\" is not rfc5424 or cloudevents");
        return false;
      }
    }
    if (!forward_destination::Check(&s->dest, &err)) {
      logs::Error("--forward " + s->dest.url + ": " + err);
      return false;
    }
  } else if (args.has("--forward-ca") || args.has("--forward-cert") || args.has("--forward-key") ||
             args.has("--forward-format")) {
    logs::Error(
        "--forward-ca, --forward-cert, --forward-key and --forward-format go with --forward URL");
    return false;
  }
  if (args.has("--config")) {
    config::Config cfg;
    std::vector<std::string> warnings;
    if (!config::LoadConfig(args.get("--config"), &cfg, &warnings, &err)) {
      logs::Error(err);
      return false;
    }
    for (const std::string& w : warnings) logs::Warning(w);
    if (s->out.empty()) s->out = cfg.output;
    if (s->state_dir.empty()) s->state_dir = cfg.state_dir;
    if (!args.has("--forward")) {
      const std::string name = args.get("--destination");
      const forward_destination::Destination* found = nullptr;
      for (const auto& d : cfg.forward) {
        if (name.empty() ? cfg.forward.size() == 1 : d.name == name) found = &d;
      }
      if (found == nullptr) {
        logs::Error(name.empty()
                        ? args.get("--config") + " has " + std::to_string(cfg.forward.size()) +
                              " forward destinations: name one with --destination"
                        : args.get("--config") + " has no forward destination named \"" + name +
                              "\"");
        return false;
      }
      s->dest = *found;
    }
  }
  if (s->out.empty() || s->state_dir.empty() || s->dest.url.empty()) {
    logs::Error(
        "--out, --state-dir and a destination (--forward URL, or forward in --config) "
        "are required");
    return false;
  }
  return true;
}

// Where the receiver has acknowledged up to, and the messages in flight.
class Forwarder {
 public:
  Forwarder(const Settings& s, int state_fd)
      : s_(s),
        state_fd_(state_fd),
        key_("forward." + s.dest.name),
        follower_(s.out),
        reader_(64 << 10, audit_verifier::kMaxEntryLineBytes),
        host_(forward_message::HostName()) {}

  int Run() {
    std::string err;
    if (!Start(&err)) {
      logs::Error(err);
      return exit_status::kIoErr;
    }
    int backoff_ms = 0;
    bool refused_said = false;
    for (;;) {
      if (!transport_->connected()) {
        const auto r = transport_->Connect(&err);
        if (r != forward_transport::ConnectResult::kOk) {
          // Said once per outage, not once per try.
          if (r == forward_transport::ConnectResult::kRefusedPeer) {
            if (!refused_said) logs::Error(err + "; nothing is sent to it");
            refused_said = true;
          } else if (backoff_ms == 0) {
            logs::Warning(err + "; retrying");
          }
          backoff_ms = backoff_ms == 0 ? 250 : std::min(backoff_ms * 2, kMaxBackoffMs);
          poll(nullptr, 0, backoff_ms);
          continue;
        }
        if (backoff_ms != 0) logs::Note("connected to " + s_.dest.url);
        backoff_ms = 0;
        refused_said = false;
        in_flight_.clear();
        read_offset_ = acked_offset_;
        read_seq_ = acked_seq_;
        sent_this_connection_ = 0;
      }
      bool at_end = false;
      if (!SendSome(&at_end, &err)) {
        logs::Warning(err + "; reconnecting and sending again from entry " +
                      std::to_string(acked_seq_) + " of the file");
        transport_->Abort();
        backoff_ms = 250;
        poll(nullptr, 0, backoff_ms);
        continue;
      }
      const bool batch_done = !s_.dest.relp() && sent_this_connection_ >= kMessagesPerClose;
      if ((at_end || batch_done) && !in_flight_.empty()) {
        if (!transport_->Close(&err)) {
          logs::Warning(err + "; sending again what was not acknowledged");
          transport_->Abort();
          continue;
        }
        AckAll();
      }
      if (acked_since_persist_ >= kPersistEvery || (at_end && acked_since_persist_ > 0)) {
        if (!Persist(&err)) {
          logs::Error(err);
          return exit_status::kIoErr;
        }
      }
      if (!at_end) continue;
      std::string note;
      if (follower_.SwitchIfRotated(acked_offset_, &note, &err)) {
        logs::Note(note);
        acked_offset_ = read_offset_ = follower_.start_offset();
        acked_seq_ = read_seq_ = follower_.start_seq();
        if (!Persist(&err)) {
          logs::Error(err);
          return exit_status::kIoErr;
        }
        continue;
      }
      if (!err.empty()) {
        logs::Error(err);
        return exit_status::kIoErr;
      }
      if (s_.until_caught_up && in_flight_.empty()) {
        logs::Note(std::to_string(forwarded_) + " entries forwarded to " + s_.dest.url +
                   "; caught up at entry " + std::to_string(acked_seq_ - 1) + " of " + s_.out);
        return exit_status::kOk;
      }
      poll(nullptr, 0, kIdlePollMs);
    }
  }

 private:
  struct InFlight {
    uint64_t end, seq;
  };

  bool Start(std::string* err) {
    transport_ = forward_transport::Make(s_.dest, err);
    if (transport_ == nullptr) return false;
    checkpoint_store::Checkpoint c;
    const auto loaded = checkpoint_store::Load(state_fd_, key_, &c, err);
    if (loaded == checkpoint_store::LoadResult::kError) return false;
    if (loaded == checkpoint_store::LoadResult::kCorrupt) {
      logs::Warning(*err + "; forwarding " + s_.out + " from its start (duplicates, not losses)");
    }
    for (;;) {
      std::vector<std::string> notes;
      if (follower_.Start(loaded == checkpoint_store::LoadResult::kLoaded ? &c : nullptr, &notes,
                          err)) {
        for (const std::string& n : notes) logs::Warning(n);
        break;
      }
      if (!err->empty()) return false;
      poll(nullptr, 0, 200);  // no audit file yet: run has not written one
    }
    acked_offset_ = read_offset_ = follower_.start_offset();
    acked_seq_ = read_seq_ = follower_.start_seq();
    // A first position at once, naming the file by identity: a rotation
    // before anything is acknowledged (the receiver down, then a kill) is
    // then finished first at the next start, not skipped.
    if (loaded != checkpoint_store::LoadResult::kLoaded && !Persist(err)) return false;
    logs::Note("forwarding " + s_.out + " to " + s_.dest.url + " from entry " +
               std::to_string(acked_seq_) + " (position " + key_ + " in " + s_.state_dir + ")");
    return true;
  }

  // Sends what the file holds after read_offset_, a batch at a time.
  bool SendSome(bool* at_end, std::string* err) {
    std::string send_err;
    bool failed = false;
    uint64_t n = 0;
    const auto r = follower_.Read(
        &reader_, read_offset_,
        [&](std::string_view line, uint64_t end) {
          BuildMessage(line, read_seq_);
          if (!transport_->Send(message_, &send_err)) {
            failed = true;
            return false;
          }
          in_flight_.push_back({end, read_seq_});
          read_offset_ = end;
          ++read_seq_;
          ++sent_this_connection_;
          AckUpTo(transport_->Acknowledged());
          return ++n < kPersistEvery;
        },
        err);
    if (failed) {
      *err = send_err;
      return false;
    }
    if (r == line_reader::ReadResult::kError) {
      *err = s_.out + ": " + *err;
      return false;
    }
    *at_end = r == line_reader::ReadResult::kEndOfData;
    err->clear();
    return true;
  }

  void BuildMessage(std::string_view line, uint64_t seq) {
    std::string why;
    if (line.empty() || !forward_message::ParseEntry(line, &facts_, &why)) {
      // Not an entry (a corrupt audit file): sent anyway, marked, so the
      // receiver's verify sees the break where it is.
      facts_ = forward_message::EntryFacts();
      facts_.event_type = "entry_unreadable";
    }
    std::string_view body = line;
    if (s_.dest.format == forward_destination::Format::kCloudEvents && !line.empty()) {
      if (cloud_event::FromEntryLine(line, &envelope_, &why)) body = envelope_;
    }
    forward_message::Format(facts_, host_, seq, body, s_.dest.max_message_bytes, &message_);
  }

  // The first `acked` messages of this connection are acknowledged.
  void AckUpTo(uint64_t acked) {
    while (acked > acked_this_connection_ && !in_flight_.empty()) {
      Ack(in_flight_.front());
      in_flight_.pop_front();
      ++acked_this_connection_;
    }
  }
  void AckAll() {
    while (!in_flight_.empty()) {
      Ack(in_flight_.front());
      in_flight_.pop_front();
    }
    acked_this_connection_ = 0;
    sent_this_connection_ = 0;
  }
  void Ack(const InFlight& f) {
    acked_offset_ = f.end;
    acked_seq_ = f.seq + 1;
    ++acked_since_persist_;
    ++forwarded_;
  }

  bool Persist(std::string* err) {
    checkpoint_store::Checkpoint c;
    c.file = follower_.id();
    c.position.offset = acked_offset_;
    if (!checkpoint_store::HashBefore(follower_.fd(), acked_offset_, &c.hash_len, &c.sha256_hex,
                                      err) ||
        !checkpoint_store::Save(state_fd_, key_, c, err)) {
      *err = "forward position in " + s_.state_dir + ": " + *err;
      return false;
    }
    acked_since_persist_ = 0;
    return true;
  }

  const Settings& s_;
  int state_fd_;
  std::string key_;
  audit_follower::Follower follower_;
  line_reader::Reader reader_;
  std::string host_;
  std::unique_ptr<forward_transport::Transport> transport_;
  std::deque<InFlight> in_flight_;
  uint64_t read_offset_ = 0, read_seq_ = 1;
  uint64_t acked_offset_ = 0, acked_seq_ = 1;
  uint64_t acked_since_persist_ = 0, forwarded_ = 0;
  uint64_t sent_this_connection_ = 0, acked_this_connection_ = 0;
  forward_message::EntryFacts facts_;
  std::string message_, envelope_;
};

// Started by run: SIGTERM when run ends, however it ends. Checked after the
// request, so a run that died before it cannot be missed.
bool StopWithSupervisor(pid_t supervisor) {
  if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) != 0) {
    logs::Error(logs::ErrnoReason("prctl(PR_SET_PDEATHSIG)", ""));
    return false;
  }
  if (getppid() != supervisor) {
    logs::Error("run (pid " + std::to_string(supervisor) +
                "), which started this forwarder, has ended: not forwarding");
    return false;
  }
  return true;
}

// One forwarder per destination and state directory: two would race over
// the same position file and send everything twice.
unique_fd::UniqueFd LockDestination(int state_fd, const Settings& s) {
  const std::string name = "forward." + s.dest.name + ".lock";
  unique_fd::UniqueFd lock(
      openat(state_fd, name.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!lock.ok()) {
    logs::Error(logs::ErrnoReason("open", s.state_dir + "/" + name));
  } else if (flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      logs::Error("another forwarder is sending to " + s.dest.name + " (it holds " + s.state_dir +
                  "/" + name + ")");
    } else {
      logs::Error(logs::ErrnoReason("flock", s.state_dir + "/" + name));
    }
    lock.Reset(-1);
  }
  return lock;
}

}  // namespace

int Forward(const cli_args::ParsedArgs& args) {
  Settings s;
  if (!Resolve(args, &s)) return exit_status::kUsage;
  if (s.supervisor_pid != 0 && !StopWithSupervisor(s.supervisor_pid)) return exit_status::kTempFail;
  signal(SIGPIPE, SIG_IGN);
  if (mkdir(s.state_dir.c_str(), 0700) != 0 && errno != EEXIST) {
    logs::Error(logs::ErrnoReason("mkdir", s.state_dir));
    return exit_status::kIoErr;
  }
  const unique_fd::UniqueFd state_fd(open(s.state_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!state_fd.ok()) {
    logs::Error(logs::ErrnoReason("open", s.state_dir));
    return exit_status::kIoErr;
  }
  const unique_fd::UniqueFd lock = LockDestination(state_fd.get(), s);
  if (!lock.ok()) return exit_status::kTempFail;
  // From here on it reads, connects and writes its positions: nothing else.
  self_confine::ConfineForward(s.state_dir);
  Forwarder f(s, state_fd.get());
  return f.Run();
}

}  // namespace forward_command
