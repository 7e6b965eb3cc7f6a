#include "listen/listener.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "clock_ms.h"
#include "listen/peer_attestation.h"
#include "logs.h"

namespace listener {
namespace {

// Events taken per epoll_wait, and connections accepted per Pump: a flood
// waits its turn with everyone else's.
constexpr int kEventsPerPump = 256;
constexpr int kAcceptsPerPump = 1024;
// Warnings about one kind of trouble: at most this many per second.
constexpr uint64_t kWarningsPerSecond = 20;

// NAK to a connection refused without a look. A message already there is
// discarded first: closing a unix socket with unread data resets the
// connection, and the sender would see that instead of the NAK.
void Refuse(int fd) {
  (void)recv(fd, nullptr, 0, MSG_DONTWAIT | MSG_TRUNC);
  const unsigned char nak = kNak;
  (void)send(fd, &nak, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

}  // namespace

Listener::Listener() = default;

Listener::~Listener() = default;

bool Listener::Init(Options options, audit_file::AuditFileWriter* out, std::string* err) {
  options_ = std::move(options);
  out_ = out;
  if (options_.path.empty() || options_.path.size() >= sizeof(sockaddr_un::sun_path)) {
    *err = "--listen: the path must be 1 to " + std::to_string(sizeof(sockaddr_un::sun_path) - 1) +
           " bytes";
    return false;
  }
  if (!peer_attestation::KernelSupportsPeerPidfd(err)) {
    *err = "--listen: " + *err;
    return false;
  }
  if (!cgroups_.Init(options_.cgroup_pattern, err)) return false;
  // Fresh at every start: a socket left by an earlier run is replaced;
  // anything else at the path is the operator's, and is left alone.
  struct stat st;
  if (lstat(options_.path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      *err = "--listen " + options_.path + ": exists and is not a socket (not replaced)";
      return false;
    }
    if (unlink(options_.path.c_str()) != 0) {
      *err = "--listen: " + logs::ErrnoReason("unlink stale socket", options_.path);
      return false;
    }
  }
  socket_.Reset(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!socket_.ok()) {
    *err = std::string("socket(AF_UNIX, SOCK_SEQPACKET): ") + strerror(errno);
    return false;
  }
  struct sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  memcpy(addr.sun_path, options_.path.data(), options_.path.size());
  if (bind(socket_.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    *err = "--listen: " + logs::ErrnoReason("bind", options_.path);
    return false;
  }
  if (chmod(options_.path.c_str(), options_.mode) != 0 || listen(socket_.get(), 4096) != 0) {
    *err = "--listen: " + logs::ErrnoReason("chmod/listen", options_.path);
    return false;
  }
  diag_.sockfs_mnt = peer_attestation::SockfsMountId(socket_.get());
  epoll_.Reset(epoll_create1(EPOLL_CLOEXEC));
  struct epoll_event ev = {};
  ev.events = EPOLLIN;
  ev.data.fd = socket_.get();
  if (!epoll_.ok() || epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, socket_.get(), &ev) != 0) {
    *err = std::string("epoll: ") + strerror(errno);
    return false;
  }
  hashes_ = std::make_unique<exe_identity::HashCache>(&options_.shim);
  forgeries_.emplace(options_.path, options_.forgery_interval_ms, 1024);
  // No replay set: a message is never read twice (the sender falls back to
  // its log when it gets no ACK), so there is nothing to skip on restart.
  ingest_.emplace(options_.limits, out_, nullptr);
  buf_.resize(kMaxMessageBytes + 1);
  return true;
}

void Listener::WarnLimited(const std::string& what) {
  const int64_t second = clock_ms::Monotonic() / 1000;
  if (second != warn_second_) {
    warn_second_ = second;
    warnings_this_second_ = 0;
  }
  if (++warnings_this_second_ <= kWarningsPerSecond) logs::Warning(options_.path + ": " + what);
}

void Listener::Close(int fd) {
  const auto it = conns_.find(fd);
  if (it == conns_.end()) return;
  if (it->second.container != nullptr) --it->second.container->held;
  // Closing the only descriptor of the connection takes it out of the epoll
  // set too: no EPOLL_CTL_DEL.
  conns_.erase(it);
}

void Listener::Answer(int fd, unsigned char byte) {
  // Non-blocking; one byte always fits an empty socket's buffer.
  (void)send(fd, &byte, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
  Close(fd);
}

void Listener::Accept(int64_t now_ms) {
  for (int i = 0; i < kAcceptsPerPump; ++i) {
    unique_fd::UniqueFd fd(accept4(socket_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!fd.ok()) {
      if (errno == EMFILE || errno == ENFILE) WarnLimited("accept: out of descriptors");
      return;  // EAGAIN: nothing more waiting
    }
    HandOverDeferredSync();
    if (conns_.size() >= options_.max_connections) {
      ++stats_.refused;
      Refuse(fd.get());
      WarnLimited("connection refused: " + std::to_string(conns_.size()) +
                  " connections held (the limit)");
      continue;
    }
    // The container, for its limits: the cgroup of the pid the kernel
    // recorded at connect(), read once (by its cgroup id when seen before);
    // Attest uses it (its pidfd check covers this read too).
    peer_attestation::PeerCgroup peer_cgroup =
        peer_attestation::ReadPeerCgroup(fd.get(), cgroups_, &cgroup_ids_);
    const std::string& cgroup = peer_cgroup.cgroup;
    if (containers_.size() > 4 * options_.max_connections) {
      // Forget containers with nothing held and a full bucket.
      for (auto it = containers_.begin(); it != containers_.end();) {
        it = it->second.held == 0 ? containers_.erase(it) : std::next(it);
      }
    }
    const double rate = options_.connections_per_second_per_container;
    auto [it, fresh] = containers_.try_emplace(cgroup);
    Container* c = &it->second;
    if (fresh) {
      c->tokens = rate;
      c->refill_ms = now_ms;
    } else {
      c->tokens += (now_ms - c->refill_ms) * rate / 1000.0;
      if (c->tokens > rate) c->tokens = rate;
      c->refill_ms = now_ms;
    }
    if (c->tokens < 1 || c->held >= options_.max_connections_per_container) {
      ++stats_.refused;
      Refuse(fd.get());
      WarnLimited("connection refused: cgroup " + cgroup +
                  (c->tokens < 1
                       ? " is over its rate (" +
                             std::to_string(options_.connections_per_second_per_container) +
                             " connections/s)"
                       : " holds " + std::to_string(c->held) + " connections (the limit)"));
      continue;
    }
    c->tokens -= 1;
    ++c->held;
    const int raw = fd.get();
    Conn& conn = conns_[raw];
    conn.fd = std::move(fd);
    conn.container = c;
    conn.generation = ++generation_;
    // Judged now, whether or not the record is here: the shim connects first
    // and confines itself and builds its record meanwhile, so this runs
    // beside that work instead of after it. What is judged cannot change
    // before the record comes: a process judged the genuine shim runs only
    // the shim's code, which never execs and never hands its socket on, and
    // a tracer that attaches afterwards could as well have left before the
    // send, which no check after it would see either (peer_attestation.h).
    c->hash_budget.Refill(now_ms);
    conn.verdict = peer_attestation::Attest(raw, options_.shim, hashes_.get(), &c->hash_budget,
                                            peer_cgroup, &diag_, &conn.peer, &conn.attest_error);
    if (conn.verdict == peer_attestation::Verdict::kNotHashed) {
      // Not judged, so not a forgery: refused as over a limit (a genuine
      // shim falls back to its log).
      ++stats_.refused;
      WarnLimited("connection refused: cgroup " + cgroup + " is over its hashing budget (" +
                  std::to_string(exe_identity::HashBudget::kBytesPerSecond >> 20) +
                  " MiB/s of executables not hashed before)");
      Refuse(raw);
      Close(raw);
      continue;
    }
    deadlines_.push_back({now_ms + options_.read_timeout_ms, raw, conn.generation});
    // When the record is here already (the check took longer than the shim
    // took to send) it is served now, and the connection never enters the
    // epoll set. Otherwise it is watched, as when the batch is full.
    if (BatchFull()) {
      Arm(raw);
    } else {
      Serve(raw);
    }
  }
}

bool Listener::Judge(const Conn& conn, std::string_view message,
                     const std::string& reason_override) {
  const peer_attestation::Verdict v = conn.verdict;
  if (v == peer_attestation::Verdict::kGenuine && reason_override.empty()) return true;
  std::string reason = reason_override.empty() ? peer_attestation::Describe(v) : reason_override;
  if (v == peer_attestation::Verdict::kNoCredentials) reason += " (" + conn.attest_error + ")";
  ++stats_.forged;
  forgeries_->Seen(conn.peer, reason, message, clock_ms::Realtime(), &due_);
  return false;
}

void Listener::Arm(int fd) {
  // One shot: the one message's event disarms it, so a connection waiting
  // for its sync needs no EPOLL_CTL_DEL (armed again when it was not served).
  const auto it = conns_.find(fd);
  if (it == conns_.end()) return;
  struct epoll_event ev = {};
  ev.events = EPOLLIN | EPOLLONESHOT;
  ev.data.fd = fd;
  const int op = it->second.watched ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
  if (epoll_ctl(epoll_.get(), op, fd, &ev) != 0) {
    Close(fd);
    return;
  }
  it->second.watched = true;
}

void Listener::Serve(int fd) {
  const auto it = conns_.find(fd);
  if (it == conns_.end()) return;
  const Conn& conn = it->second;
  const ssize_t n = recv(fd, &buf_[0], buf_.size(), MSG_DONTWAIT | MSG_TRUNC);
  if (n < 0) {
    if (errno == EAGAIN || errno == EINTR) {
      Arm(fd);
      return;
    }
    Close(fd);
    return;
  }
  if (n == 0) {  // closed without a message
    Judge(conn, {}, "the sender closed the connection without sending a record");
    Close(fd);
    return;
  }
  const std::string_view message(
      buf_.data(), static_cast<size_t>(n) < buf_.size() ? static_cast<size_t>(n) : buf_.size());
  if (!Judge(conn, message, {})) {
    Answer(fd, kNak);
    return;
  }
  const peer_attestation::Peer& peer = conn.peer;
  // Said only when something is refused: not built for every denial.
  const auto who = [&peer] {
    return "pid " + std::to_string(peer.pid) + " (cgroup " + peer.cgroup + ")";
  };
  if (static_cast<size_t>(n) > kMaxMessageBytes) {
    ++stats_.rejected;
    WarnLimited(who() + ": rejected: message of " + std::to_string(n) + " bytes (limit " +
                std::to_string(kMaxMessageBytes) + ")");
    Answer(fd, kNak);
    return;
  }
  if (peer.sandbox_id.empty()) {
    ++stats_.rejected;
    WarnLimited(who() +
                ": not acknowledged: the cgroup names no sandbox (built-in layouts or "
                "--cgroup-pattern); the shim falls back to its log");
    Answer(fd, kNak);
    return;
  }
  entry_mapper::SourceLabels labels;
  std::string reason;
  pipeline::LabelsFor(nullptr, options_.path, peer.sandbox_id, &labels, &reason);
  attestation_.clear();
  peer_attestation::AppendAttestationJson(peer, true, &attestation_);
  pipeline::Origin origin{options_.path, {}, sequence_++, &labels, {}};
  origin.attestation = attestation_;
  switch (ingest_->Line(message, origin, &reason)) {
    case pipeline::Outcome::kAppended:
    case pipeline::Outcome::kAlreadyPresent:
    case pipeline::Outcome::kValid:
      acks_.Add(fd, out_->entries_appended());
      // Stays open (and out of the timeout's reach; its one-shot event is
      // spent) until durable.
      it->second.generation = 0;
      // With no sync in flight, one starts as soon as the Pump has anything
      // else to do (the next connection or event: HandOverDeferredSync), not
      // after every connection waiting at accept is served: the next batch
      // fills while it runs (serving and syncing overlap) instead of all
      // senders in one batch. When nothing else came, the Pump syncs in line
      // at its end. A quick disk is synced in line there anyway, once for
      // all it served (audit_file.h, SyncInBackground).
      if (!out_->sync_is_quick()) sync_deferred_ = true;
      return;
    case pipeline::Outcome::kRejected:
      ++stats_.rejected;
      WarnLimited(who() + ": rejected: " + reason);
      Answer(fd, kNak);
      return;
    case pipeline::Outcome::kOutputFailed:
      fatal_ = reason;
      Close(fd);  // no byte: not delivered
      return;
  }
}

void Listener::Expire(int64_t now_ms) {
  while (!deadlines_.empty() && deadlines_.front().at_ms <= now_ms) {
    const Deadline d = deadlines_.front();
    deadlines_.pop_front();
    const auto it = conns_.find(d.fd);
    if (it == conns_.end() || it->second.generation != d.generation) continue;
    Judge(
        it->second, {},
        "no record within the read timeout (" + std::to_string(options_.read_timeout_ms) + " ms)");
    Answer(d.fd, kNak);
  }
}

bool Listener::AppendDue(std::string* err) {
  for (forgery_report::Due& d : due_) {
    bool appended = false;
    if (!out_->AppendNew(&d.fields, nullptr, &appended, err)) return false;
    ++stats_.forgery_entries;
  }
  due_.clear();
  return true;
}

void Listener::HandOverDeferredSync() {
  if (!sync_deferred_) return;
  sync_deferred_ = false;
  std::string reason;
  if (fatal_.empty() && !out_->SyncInBackground(&reason)) fatal_ = reason;
}

bool Listener::BatchFull() {
  return acks_.Uncovered(out_->sync_requested_appended()) >= kMaxRecordsPerSync;
}

void Listener::AnswerDurable() {
  durable_.clear();
  acks_.TakeDurable(out_->durable_appended(), &durable_);
  for (const int fd : durable_) {
    ++stats_.attested;
    Answer(fd, kAck);
  }
}

bool Listener::Pump(std::string* err) {
  if (!out_->SyncFinished(false, err)) return false;
  // The next sync starts before the acknowledgements of the last one go
  // out: it covers what was appended while that one ran, and the disk
  // works while the ACKs are sent and their senders wake (they would
  // otherwise wait for all of that, and for the serving below, first).
  if (!out_->SyncInBackground(err)) return false;
  AnswerDurable();
  const int64_t now = clock_ms::Monotonic();
  Expire(now);
  struct epoll_event events[kEventsPerPump];
  const int n = BatchFull() ? 0 : epoll_wait(epoll_.get(), events, kEventsPerPump, 0);
  for (int i = 0; i < n && fatal_.empty(); ++i) {
    HandOverDeferredSync();
    const int fd = events[i].data.fd;
    if (fd == socket_.get()) {
      Accept(now);
    } else if (conns_.count(fd) != 0) {
      if (BatchFull()) {
        Arm(fd);  // its one shot is spent: armed again, it is said again later
      } else {
        Serve(fd);
      }
    }
  }
  forgeries_->Flush(clock_ms::Realtime(), &due_);
  if (fatal_.empty() && !AppendDue(err)) fatal_ = *err;
  if (!fatal_.empty()) {
    *err = fatal_;
    return false;
  }
  // Durable first, then the acknowledgements: the sync starts now unless one
  // is in flight (then the next Pump after it ends starts it). An entry that
  // came alone (nothing else to do since it was appended, none in flight)
  // is synced here in line on a disk whose last sync was brief: handing it
  // over would only add two thread switches to its sender's wait.
  const bool alone = sync_deferred_ && !out_->sync_in_flight() &&
                     out_->entries_appended() != out_->durable_appended();
  sync_deferred_ = false;
  if (alone && out_->last_sync_under(options_.alone_sync_in_line_under_us * 1000)) {
    if (!out_->Sync(err)) return false;
  } else if (!out_->SyncInBackground(err)) {
    return false;
  }
  if (!out_->background_sync_problem().empty() && !warned_sync_) {
    warned_sync_ = true;
    logs::Warning("--listen: syncing in line, one sync at a time: " +
                  out_->background_sync_problem());
  }
  AnswerDurable();  // when it synced in line
  return true;
}

int64_t Listener::MsUntilDue() const {
  int64_t wait = forgeries_->MsUntilDue(clock_ms::Realtime());
  if (!deadlines_.empty()) {
    const int64_t left = deadlines_.front().at_ms - clock_ms::Monotonic();
    const int64_t d = left < 0 ? 0 : left;
    if (wait < 0 || d < wait) wait = d;
  }
  return wait;
}

bool Listener::Finish(std::string* err) {
  forgeries_->FlushAll(clock_ms::Realtime(), &due_);
  if (!AppendDue(err) || !out_->Sync(err)) return false;
  AnswerDurable();
  return true;
}

}  // namespace listener
