#include "status_command.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <string>

#include <rapidjson/document.h>

#include "audit_file.h"
#include "exit_status.h"
#include "forward/forward_lag.h"
#include "io_error_exits.h"
#include "logs.h"
#include "run_status.h"
#include "tail/chain_head.h"
#include "tail/checkpoint_journal.h"
#include "tail/checkpoint_store.h"
#include "unique_fd.h"

namespace status_command {
namespace {

// run.status is small; anything past this is not one.
constexpr size_t kMaxStatusBytes = 1 << 20;

std::string Utc(int64_t unix_seconds) {
  const time_t t = static_cast<time_t>(unix_seconds);
  struct tm tm;
  char buf[32];
  gmtime_r(&t, &tm);
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string Bytes(uint64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

// Whether a process `pid` is an agt-collector now (by /proc, no signal).
bool Running(int64_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%lld/comm", static_cast<long long>(pid));
  const unique_fd::UniqueFd fd(open(path, O_RDONLY | O_CLOEXEC));
  if (!fd.ok()) return false;
  char comm[32] = {};
  const ssize_t n = read(fd.get(), comm, sizeof comm - 1);
  return n > 0 && std::string(comm, static_cast<size_t>(n)) == "agt-collector\n";
}

// run.status: kNone when there is none.
checkpoint_store::LoadResult ReadSnapshot(int dir, run_status::Snapshot* s, std::string* err) {
  const unique_fd::UniqueFd fd(
      openat(dir, run_status::kFileName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.ok()) {
    if (errno == ENOENT) return checkpoint_store::LoadResult::kNone;
    *err = logs::ErrnoReason("open", run_status::kFileName);
    return checkpoint_store::LoadResult::kError;
  }
  std::string text(kMaxStatusBytes + 1, '\0');
  size_t got = 0;
  for (ssize_t n; got < text.size() && (n = read(fd.get(), &text[got], text.size() - got)) != 0;) {
    if (n < 0) {
      *err = logs::ErrnoReason("read", run_status::kFileName);
      return checkpoint_store::LoadResult::kError;
    }
    got += static_cast<size_t>(n);
  }
  text.resize(got);
  if (got > kMaxStatusBytes || !run_status::Parse(text, s, err)) {
    if (got > kMaxStatusBytes) *err = "larger than " + Bytes(kMaxStatusBytes);
    *err = std::string(run_status::kFileName) + ": " + *err;
    return checkpoint_store::LoadResult::kCorrupt;
  }
  return checkpoint_store::LoadResult::kLoaded;
}

// Whether DIR holds anything run keeps (so an empty or unrelated directory
// is said to be one, not shown as a daemon with nothing to do).
bool LooksLikeStateDir(int dir) {
  if (faccessat(dir, run_status::kFileName, F_OK, AT_SYMLINK_NOFOLLOW) == 0 ||
      faccessat(dir, chain_head::kFileName, F_OK, AT_SYMLINK_NOFOLLOW) == 0 ||
      faccessat(dir, checkpoint_journal::kFileName, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
    return true;
  }
  std::vector<std::string> checkpoints;
  std::string err;
  return checkpoint_store::ListKeys(dir, &checkpoints, &err) && !checkpoints.empty();
}

// "entry 42, 2026-12-01T04:20:00Z, command_denied": the last complete line
// of the audit file's durable part.
std::string LastEntry(int fd, const std::string& path, const chain_head::ChainHead& head) {
  if (head.entries == 0 || head.size == 0) return "none yet";
  std::string line, err;
  uint64_t complete = 0;
  if (!audit_file::ReadLastLine(fd, path, head.size, &line, &complete, &err)) return err;
  rapidjson::Document d;
  d.Parse(line.data(), line.size());
  if (d.HasParseError() || !d.IsObject())
    return "entry " + std::to_string(head.entries) + ", not JSON";
  const auto text = [&d](const char* key) {
    const auto it = d.FindMember(key);
    return it != d.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString())
                                                       : std::string("?");
  };
  return "entry " + std::to_string(head.entries) + ", " + text("timestamp") + ", " +
         text("event_type");
}

bool SameFile(int fd, const chain_head::ChainHead& head) {
  struct stat st;
  return fstat(fd, &st) == 0 && file_id::FileId::Of(st) == head.file;
}

// The checkpoints as run would load them now. Read while run appends to
// the journal: a frame being written is the last one, and left out.
struct Checkpoints {
  checkpoint_journal::LoadResult loaded;
  checkpoint_journal::State state;
  checkpoint_journal::Found found;
  std::string err;
};

// "lag 12 bytes (read to offset 30 of 42)", from the checkpoint and the log as it is now.
std::string SourceLag(const Checkpoints& checkpoints, const std::string& sandbox_id,
                      const std::string& log) {
  struct stat st;
  if (lstat(log.c_str(), &st) != 0) return logs::ErrnoReason("stat", log);
  if (!S_ISREG(st.st_mode)) return "not a regular file now";
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (checkpoints.loaded == checkpoint_journal::LoadResult::kCorrupt ||
      checkpoints.loaded == checkpoint_journal::LoadResult::kError) {
    return "checkpoint unreadable: " + checkpoints.err;
  }
  const auto unusable = checkpoints.found.unusable.find(sandbox_id);
  if (unusable != checkpoints.found.unusable.end()) {
    return "checkpoint unreadable: " + unusable->second;
  }
  const auto text = checkpoints.state.find(sandbox_id);
  if (text == checkpoints.state.end()) return "lag " + Bytes(size) + " (no checkpoint yet)";
  checkpoint_store::Checkpoint c;
  std::string err;
  if (checkpoint_store::Parse(sandbox_id + "'s checkpoint", text->second, &c, &err) !=
      checkpoint_store::LoadResult::kLoaded) {
    return "checkpoint unreadable: " + err;
  }
  if (c.file != file_id::FileId::Of(st)) {
    return "lag " + Bytes(size) + " (the log was replaced since the checkpoint)";
  }
  const uint64_t lag = size > c.position.offset ? size - c.position.offset : 0;
  return "lag " + Bytes(lag) + " (read to offset " + std::to_string(c.position.offset) + " of " +
         std::to_string(size) + ")";
}

}  // namespace

int Status(const cli_args::ParsedArgs& args) {
  if (!args.has("--state-dir") || !args.positional.empty()) {
    logs::Error("needs --state-dir DIR and nothing else");
    return exit_status::kUsage;
  }
  const std::string state_dir = args.get("--state-dir");
  const unique_fd::UniqueFd dir(open(state_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.ok()) {
    logs::Error(logs::ErrnoReason("open state directory", state_dir));
    return exit_status::kNoInput;
  }
  if (!LooksLikeStateDir(dir.get())) {
    logs::Error(state_dir + " is not a state directory of agt-collector run (no " +
                run_status::kFileName + ", " + chain_head::kFileName + " or checkpoint in it)");
    return exit_status::kNoInput;
  }
  run_status::Snapshot snap;
  std::string err;
  const auto loaded = ReadSnapshot(dir.get(), &snap, &err);
  if (loaded == checkpoint_store::LoadResult::kError ||
      loaded == checkpoint_store::LoadResult::kCorrupt) {
    logs::Error(state_dir + ": " + err);
    return exit_status::kNoInput;
  }
  const bool have_snapshot = loaded == checkpoint_store::LoadResult::kLoaded;
  printf("state directory: %s\n", state_dir.c_str());
  if (!have_snapshot) {
    printf("daemon: no %s (written by this version's run; the files below still tell)\n",
           run_status::kFileName);
  } else if (snap.stopped) {
    printf("daemon: stopped at %s with exit status %d (started %s, pid %lld)\n",
           Utc(snap.written_unix).c_str(), snap.exit_status, Utc(snap.started_unix).c_str(),
           static_cast<long long>(snap.pid));
  } else if (Running(snap.pid)) {
    printf("daemon: running, pid %lld, since %s (this view as of %s)\n",
           static_cast<long long>(snap.pid), Utc(snap.started_unix).c_str(),
           Utc(snap.written_unix).c_str());
  } else {
    printf(
        "daemon: not running; pid %lld started %s was last seen %s and did not stop cleanly "
        "(killed, or crashed)\n",
        static_cast<long long>(snap.pid), Utc(snap.started_unix).c_str(),
        Utc(snap.written_unix).c_str());
  }

  chain_head::ChainHead head;
  const auto head_loaded = chain_head::Load(dir.get(), &head, &err);
  unique_fd::UniqueFd audit;
  if (have_snapshot) {
    audit.Reset(open(snap.output.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
    printf("audit file: %s\n", snap.output.c_str());
  }
  if (head_loaded != chain_head::LoadResult::kLoaded) {
    printf("last entry written: %s\n", head_loaded == chain_head::LoadResult::kNone
                                           ? "none (no chain head)"
                                           : ("chain head unreadable: " + err).c_str());
  } else if (!audit.ok() || !SameFile(audit.get(), head)) {
    printf("last entry written: entry %llu (%s)\n", static_cast<unsigned long long>(head.entries),
           audit.ok() ? "the audit file was rotated since" : "the audit file cannot be read here");
    audit.Reset();
  } else {
    printf("last entry written: %s\n", LastEntry(audit.get(), snap.output, head).c_str());
  }

  printf("sources: %zu\n", snap.sources.size());
  Checkpoints checkpoints;
  if (!snap.sources.empty()) {
    checkpoints.loaded = checkpoint_journal::Load(dir.get(), &checkpoints.state, &checkpoints.found,
                                                  &checkpoints.err);
  }
  for (const auto& [id, log] : snap.sources) {
    printf("  %s %s: %s\n", id.c_str(), log.c_str(), SourceLag(checkpoints, id, log).c_str());
  }
  if (!snap.forward.empty()) {
    printf("forwarding:\n");
    for (const std::string& name : snap.forward) {
      if (!audit.ok() || head_loaded != chain_head::LoadResult::kLoaded) {
        printf("  %s: lag unknown (no audit file or chain head)\n", name.c_str());
        continue;
      }
      forward_lag::Counter counter;
      const forward_lag::Lag lag = counter.Measure(dir.get(), name, audit.get(), head);
      printf("  %s: %llu entries (%s) not acknowledged yet%s\n", name.c_str(),
             static_cast<unsigned long long>(lag.entries), Bytes(lag.bytes).c_str(),
             lag.known ? "" : ", and the rest of a rotated audit file before them");
    }
  }
  uint64_t exits = 0;
  if (io_error_exits::Read(dir.get(), &exits, &err) && exits > 0) {
    printf("exits on an I/O error (status 74): %llu\n", static_cast<unsigned long long>(exits));
  }
  if (snap.last_problem_unix == 0) {
    printf("last error: none\n");
  } else {
    printf("last error: %s %s\n", Utc(snap.last_problem_unix).c_str(), snap.last_problem.c_str());
  }
  return exit_status::kOk;
}

}  // namespace status_command
