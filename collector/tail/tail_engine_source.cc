// Reading one sandbox's log: opening it without following links, resuming
// from its checkpoint (identity and hash checked), truncation, rotation
// (the old file drained first, kept open a while after the switch) and
// letting go of idle files when out of descriptors.
#include "tail/tail_engine.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "clock_ms.h"
#include "tail/append_only.h"
#include "tail/checkpoint_store.h"
#include "tail/secure_open.h"
#include "tail/tail_engine_support.h"

namespace tail_engine {
namespace {

// How long a log rotated away stays open after the switch (Fluent Bit's
// rotate_wait): appends by a writer that opened it before the rename are read.
constexpr int64_t kRotateWaitMs = 5000;

int64_t NowMs() { return clock_ms::Monotonic(); }

// A readable directory fd for an O_PATH one (O_PATH cannot be listed).
unique_fd::UniqueFd ReopenDirectory(int path_fd) {
  char proc_path[64];
  snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", path_fd);
  return unique_fd::UniqueFd(open(proc_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
}

// OpenRegular into an owned descriptor.
secure_open::Result OpenLogFile(int dir_fd, const std::string& relative, unique_fd::UniqueFd* fd,
                                std::string* err) {
  int raw = -1;
  const secure_open::Result r =
      secure_open::OpenRegular(dir_fd, relative, secure_open::Method::kAuto, &raw, err);
  fd->Reset(r == secure_open::Result::kOk ? raw : -1);
  return r;
}

// The inode at base_fd/relative now (0 when nothing is there): a refused
// object is remembered by it, so it is reported once until it is replaced.
uint64_t InodeAt(int base_fd, const std::string& relative) {
  struct stat st;
  return fstatat(base_fd, relative.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0
             ? static_cast<uint64_t>(st.st_ino)
             : 0;
}

}  // namespace

void Engine::OpenCurrent(Source* s) {
  const Pattern& p = patterns_[s->pattern];
  if (!p.base_fd.ok()) return;
  unique_fd::UniqueFd fd;
  std::string err;
  secure_open::Result r = OpenLogFile(p.base_fd.get(), LogRelative(*s), &fd, &err);
  if (r == secure_open::Result::kNoDescriptors) {
    if (ReleaseIdleFiles(s, 64) > 0) r = OpenLogFile(p.base_fd.get(), LogRelative(*s), &fd, &err);
    if (r == secure_open::Result::kNoDescriptors) {
      return;  // reported once for all (ReleaseIdleFiles); retried at the next scan
    }
  }
  if (r == secure_open::Result::kMissing && options_.append_only_logs) {
    ClaimLog(s);  // created (or put back) append-only, where it can be
    r = OpenLogFile(p.base_fd.get(), LogRelative(*s), &fd, &err);
  }
  if (r == secure_open::Result::kMissing) {
    ClearProblem(s);
    // Renamed away while stopped and no successor yet: finish the old file.
    if (s->resume_pending && ResumeFromRotated(s, file_id::FileId())) s->resume_pending = false;
    return;
  }
  if (r != secure_open::Result::kOk) {
    // A refused object is not looked at again until it is replaced (its
    // inode is remembered); an error (fd limit, permissions) is retried at
    // every scan, and either is reported once.
    const uint64_t ino =
        r == secure_open::Result::kRefused ? InodeAt(p.base_fd.get(), LogRelative(*s)) : 0;
    if (Report(s, err + (r == secure_open::Result::kRefused ? "; not read (reported once)" : ""),
               ino)) {
      RefusedAtPath(s, err);
    }
    return;
  }
  ProtectOpened(s, fd.get());
  if (!s->problem.empty()) {
    Note(LogPath(*s) + ": now a regular file; reading it");
    ClearProblem(s);
  }
  struct stat st;
  if (fstat(fd.get(), &st) != 0) return;
  const file_id::FileId id = file_id::FileId::Of(st);
  line_reader::Position start;
  if (s->have_committed && id == s->committed.file) {
    std::string why;
    if (checkpoint_store::StillValid(fd.get(), s->committed, &why)) {
      start = s->committed.position;
    } else if (s->resume_pending && ResumeFromRotated(s, id)) {
      // The inode was reused: the checkpointed file was rotated away and
      // deleted, and files rotated after it wait beside the log.
      s->resume_pending = false;
      return;
    } else {
      Note(s->sandbox_id + ": " + LogPath(*s) + ": reading from offset 0: " + why);
    }
  } else if (s->resume_pending) {
    if (ResumeFromRotated(s, id)) {
      s->resume_pending = false;
      return;  // the new file is opened again once the old one is drained
    }
    Note(s->sandbox_id + ": the checkpointed file " + s->committed.file.ToString() + " (offset " +
         std::to_string(s->committed.position.offset) + ") is gone; reading " + LogPath(*s) + " (" +
         id.ToString() + ") from offset 0");
  }
  s->resume_pending = false;
  s->current.fd = std::move(fd);
  s->current.id = id;
  s->current.pos = start;
  s->rotated_away = false;
  s->seen_size = -1;  // forces the size check in ValidateStillSame
  s->seen_mtime_ns = -1;
}

bool Engine::ResumeFromRotated(Source* s, file_id::FileId now_at_path) {
  // Rotated while the collector was stopped: the checkpointed inode may now
  // sit beside the log under another name (denied.log.1). Finish it first,
  // then every file rotated after the checkpoint (denied.log.2 -> .1 -> the
  // new denied.log: two rotations must not skip the middle file).
  const Pattern& p = patterns_[s->pattern];
  std::string rel = s->sandbox_id;
  if (!p.suffix_parent.empty()) rel += "/" + p.suffix_parent;
  int path_fd = -1;
  std::string err;
  if (secure_open::OpenDirectory(p.base_fd.get(), rel, secure_open::Method::kAuto, &path_fd,
                                 &err) != secure_open::Result::kOk) {
    return false;
  }
  const unique_fd::UniqueFd dfd = ReopenDirectory(unique_fd::UniqueFd(path_fd).get());
  if (!dfd.ok()) return false;
  unique_fd::UniqueFd list_fd(dup(dfd.get()));
  DIR* dir = list_fd.ok() ? fdopendir(list_fd.get()) : nullptr;
  if (!dir) return false;
  list_fd.Release();  // closedir closes it
  bool found = false;
  const checkpoint_store::Checkpoint& c = s->committed;
  std::vector<std::string> siblings;  // LOG.*: where rotated files go
  const std::string prefix = p.log_name + ".";
  while (struct dirent* e = readdir(dir)) {
    const std::string name = e->d_name;
    if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0) {
      siblings.push_back(name);
    }
    if (found || static_cast<uint64_t>(e->d_ino) != c.file.ino) continue;
    unique_fd::UniqueFd fd;
    if (OpenLogFile(dfd.get(), e->d_name, &fd, &err) != secure_open::Result::kOk) continue;
    struct stat st;
    std::string why;
    if (fstat(fd.get(), &st) != 0 || file_id::FileId::Of(st) != c.file ||
        !checkpoint_store::StillValid(fd.get(), c, &why)) {
      continue;
    }
    Note(s->sandbox_id + ": " + LogPath(*s) + " was rotated while stopped (now " +
         (now_at_path.ino == 0 ? std::string("missing") : now_at_path.ToString()) +
         "); finishing the previous file " + p.base + "/" + rel + "/" + e->d_name +
         " from offset " + std::to_string(c.position.offset) + " first");
    s->current.fd = std::move(fd);
    s->current.id = c.file;
    s->current.pos = c.position;
    s->rotated_away = true;
    s->seen_size = st.st_size;
    s->seen_mtime_ns = MtimeNs(st);
    found = true;
  }
  closedir(dir);
  const std::vector<std::string> unread = UnreadSiblings(*s, dfd.get(), siblings, now_at_path);
  if (!unread.empty()) {
    std::vector<std::string>& names = s->rotated().rotated_names;
    names.insert(names.begin(), unread.begin(), unread.end());
  }
  if (found || unread.empty()) return found;
  // The checkpointed file is gone (rotated out of reach, or deleted): what
  // it held past the checkpoint cannot be read, and is said so by name.
  // Files rotated after it are read from their start, oldest first.
  Warn(s->sandbox_id + ": the checkpointed file " + c.file.ToString() + " of " + LogPath(*s) +
       " is gone: any records it held past offset " + std::to_string(c.position.offset) +
       " are lost; reading the " + std::to_string(unread.size()) +
       " file(s) rotated since, then the current one");
  s->current = OpenLog();
  s->current.id = c.file;  // none open: TakeRotatedName opens the first
  s->rotated_away = true;
  return TakeRotatedName(s);
}

std::vector<std::string> Engine::UnreadSiblings(const Source& s, int dir_fd,
                                                const std::vector<std::string>& names,
                                                file_id::FileId now_at_path) {
  // Written after the checkpoint was (mtime past the checkpoint file's):
  // rotated after it, so never read. Oldest first.
  std::vector<std::string> unread;
  int64_t written_ns = s.committed.written_ns;
  if (written_ns == 0) {
    // An older version's checkpoint: its file's mtime says when.
    struct stat cst;
    const std::string checkpoint = s.sandbox_id + ".checkpoint";
    if (fstatat(state_fd_.get(), checkpoint.c_str(), &cst, AT_SYMLINK_NOFOLLOW) != 0) {
      return unread;
    }
    written_ns = MtimeNs(cst);
  }
  std::vector<std::pair<int64_t, std::string>> found;
  for (const std::string& name : names) {
    struct stat st;
    if (fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    const file_id::FileId id = file_id::FileId::Of(st);
    if (id == s.committed.file || id == now_at_path || MtimeNs(st) <= written_ns) continue;
    if (!S_ISREG(st.st_mode)) {
      Warn(LogPath(s) + ": " + name +
           " beside it changed after the last checkpoint but is not "
           "a regular file; not read");
      continue;
    }
    found.emplace_back(MtimeNs(st), name);
  }
  std::sort(found.begin(), found.end());
  for (auto& f : found) unread.push_back(std::move(f.second));
  return unread;
}

void Engine::ValidateStillSame(Source* s) {
  // Size, mtime and (where the file system reports it there) the
  // append-only attribute in one statx, where fstat and the ioctl took two
  // kernel entries: under a paced load a look finds a few lines per log,
  // so the calls per look are much of what a record costs.
  append_only::LogStat st;
  OpenLog& log = s->current;
  if (!append_only::StatLog(log.fd.get(), &st)) return;
  if (st.size == s->seen_size && st.mtime_ns == s->seen_mtime_ns) return;
  const uint64_t size = static_cast<uint64_t>(st.size);
  // The bytes before the offset are hashed to catch a copytruncate that
  // regrew past the offset between two looks. With the append-only
  // attribute set, the kernel refuses truncation (ftruncate, O_TRUNC,
  // fallocate's punch and collapse) to everyone, through descriptors opened
  // before it was set too, and only CAP_LINUX_IMMUTABLE, which a sandbox
  // lacks, clears it: set at the last look and now, with the collector's
  // own rotation (which clears it for a rename) counted as a gap, nothing
  // can have cut the file in between, so one ioctl replaces a read and a
  // SHA-256 of 4 KiB per look. An in-place write through a descriptor
  // opened before the attribute was set can only touch bytes already read
  // and signed, or bytes past the offset, which no hash before it covers.
  // The host's root can clear the attribute, cut the file and set it again
  // between two looks: the host is trusted (it holds the key), and any look
  // that finds the attribute off hashes as before.
  const bool held = st.held.has_value() ? *st.held : append_only::IsSet(log.fd.get());
  if (size < log.pos.offset) {
    Note(s->sandbox_id + ": " + LogPath(*s) + " truncated: size " + std::to_string(size) +
         " is below offset " + std::to_string(log.pos.offset) + "; reading from offset 0");
    log.pos = line_reader::Position();
  } else if (log.pos.offset > 0 && !(held && log.append_only_held)) {
    // Against the bytes as the last read left them (its hash, kept for the
    // checkpoint), which may be newer than the last checkpoint: a cycle
    // reads while the one before commits, so a rewrite between two looks
    // is caught whether or not a commit ended between them.
    const checkpoint_store::Checkpoint* before = nullptr;
    checkpoint_store::Checkpoint last_read;
    if (log.hashed_at == log.pos.offset && log.hashed_file == log.id) {
      last_read.file = log.id;
      last_read.position = log.pos;
      last_read.hash_len = log.hash_len;
      last_read.sha256_hex = log.sha256_hex;
      before = &last_read;
    } else if (s->have_committed && log.id == s->committed.file &&
               log.pos.offset == s->committed.position.offset) {
      before = &s->committed;
    }
    std::string why;
    if (before != nullptr && !checkpoint_store::StillValid(log.fd.get(), *before, &why)) {
      Note(s->sandbox_id + ": " + LogPath(*s) + ": " + why + "; reading from offset 0");
      log.pos = line_reader::Position();
    }
  }
  log.append_only_held = held;
  s->seen_size = st.size;
  s->seen_mtime_ns = st.mtime_ns;
}

bool Engine::NothingNew(const Source& s) {
  // An event for bytes an earlier look already read (its IN_MODIFY was
  // queued before that read and handled after it): under load, about one
  // look in six. The size ValidateStillSame just saw is the offset, and the
  // hash of the bytes before it, as the read that reached it saw them, is
  // at hand: no pread of the 4 KiB window and no SHA-256 of it to learn
  // that nothing follows. A line in progress (over-long, or a NUL run) is
  // read as before: its end is found by reading.
  const OpenLog& log = s.current;
  return s.seen_size >= 0 && static_cast<uint64_t>(s.seen_size) == log.pos.offset &&
         !log.pos.skipping_long_line && !log.pos.in_nul_run && log.hashed_at == log.pos.offset &&
         log.hashed_file == log.id;
}

void Engine::Look(uint32_t index) {
  Source* s = &sources_[index];
  s->dirty = false;
  const Pattern& p = patterns_[s->pattern];
  SummariseIfDue(s);
  SummariseSuppressions(s, false);
  if (!p.base_fd.ok()) return;
  // The path stated once, for the guard's mode check and for rotation:
  // unless the log's own directory is watched and, since the last look
  // stated it, only appends to the log were seen there (path_check_due).
  // Whatever else can change what the path names (a rename, unlink or
  // create of the log or of its directory, a chmod) raises an event on the
  // directory's watch or the base's; a deeper pattern's intermediate
  // directories are not watched, so its logs are stated at every look.
  // Under load this is one path walk saved per look (13% of the CPU at
  // 1,000 logs each appended to once or twice per look).
  // Skipped, the guard's checks are too: they need the path's mode, and
  // what they found last stays said once.
  const bool state_path = s->path_check_due || s->guard.dir_check_due || s->wd < 0 ||
                          !p.suffix_parent.empty() || !s->current.fd.ok() || s->rotated_away ||
                          s->lingering();
  struct stat pst;
  const bool present = state_path && fstatat(p.base_fd.get(), LogRelative(*s).c_str(), &pst,
                                             AT_SYMLINK_NOFOLLOW) == 0;
  if (state_path) {
    s->path_check_due = false;
    GuardLog(s, present ? &pst : nullptr);
  }
  if (!s->current.fd.ok()) {
    OpenCurrent(s);
    if (!s->current.fd.ok()) return;
  } else if (state_path) {
    s->rotated_away = !present || file_id::FileId::Of(pst) != s->current.id;
  }
  Touch(index);
  ReadLinger(index);
  // The old file drained, any skipped rotations, then the path's file.
  for (int steps = 0; steps < 2 + 64; ++steps) {  // bounded by rotated_names
    ValidateStillSame(s);
    std::string err;
    const line_reader::ReadResult rr =
        NothingNew(*s) ? line_reader::ReadResult::kEndOfData : ReadItems(s, &err);
    if (rr == line_reader::ReadResult::kError) {
      Report(s, LogRelative(*s) + ": " + err, s->current.id.ino);
      return;
    }
    if (rr == line_reader::ReadResult::kStopped) {
      MarkDirty(index);  // more to read next cycle
      return;
    }
    // The size and mtime seen stay those ValidateStillSame found before the
    // read: what was appended during it is read, and at worst the next scan
    // looks once more (one fstat less per look).
    if (!s->rotated_away) return;
    struct stat st {};
    if (fstat(s->current.fd.get(), &st) == 0) {
      s->seen_size = st.st_size;
      s->seen_mtime_ns = MtimeNs(st);
    }
    // Drained. A file rotated away before it was ever looked at comes next.
    if (TakeRotatedName(s)) continue;
    // Then whatever is at the path now.
    unique_fd::UniqueFd fd;
    std::string open_err;
    const secure_open::Result r = OpenLogFile(p.base_fd.get(), LogRelative(*s), &fd, &open_err);
    if (r != secure_open::Result::kOk) {
      if (r != secure_open::Result::kMissing && Report(s, open_err + "; not read (reported once)",
                                                       InodeAt(p.base_fd.get(), LogRelative(*s)))) {
        RefusedAtPath(s, open_err);
      }
      if (st.st_nlink == 0) NoticeRemoved(s, s->current);
      // Renamed away with no successor yet: keep reading it. Deleted: let go
      // once its position is checkpointed.
      if (st.st_nlink == 0) s->release_after_commit = true;
      return;
    }
    struct stat nst;
    if (fstat(fd.get(), &nst) != 0 || file_id::FileId::Of(nst) == s->current.id) {
      s->rotated_away = false;
      return;
    }
    ClearProblem(s);
    if (st.st_nlink == 0) NoticeRemoved(s, s->current);
    const file_id::FileId next = file_id::FileId::Of(nst);
    Note(s->sandbox_id + ": " + LogPath(*s) + " rotated: previous file " +
         s->current.id.ToString() + " read to its end (offset " +
         std::to_string(s->current.pos.offset) + "); now reading " + next.ToString() +
         " from offset 0");
    Source::Rotation& rotation = s->rotated();
    LetGo(s, rotation.linger);  // a previous rotation's file, still waiting
    rotation.linger = std::move(s->current);
    rotation.linger_until_ms = NowMs() + kRotateWaitMs;
    s->current.fd = std::move(fd);
    s->current.id = next;
    s->current.pos = line_reader::Position();
    s->rotated_away = false;
    s->release_after_commit = false;
    s->seen_size = -1;
    s->seen_mtime_ns = -1;
  }
}

bool Engine::LingerOn(Source* s, unique_fd::UniqueFd fd) {
  struct stat st;
  if (s->lingering() || fstat(fd.get(), &st) != 0) return false;
  Source::Rotation& r = s->rotated();
  r.linger = OpenLog();
  r.linger.fd = std::move(fd);
  r.linger.id = file_id::FileId::Of(st);
  r.linger_until_ms = NowMs() + kRotateWaitMs;
  return true;
}

void Engine::ReadLinger(uint32_t index) {
  // The file rotated away is kept open for kRotateWaitMs after the switch: a
  // writer that opened it before the rename may still append to it.
  Source* s = &sources_[index];
  if (!s->lingering()) return;
  Source::Rotation& r = *s->rotation;
  // ReadItems reads s->current: the lingering file takes its place for a moment.
  std::swap(s->current, r.linger);
  std::string err;
  const line_reader::ReadResult rr = ReadItems(s, &err);
  std::swap(s->current, r.linger);
  if (rr == line_reader::ReadResult::kStopped) {
    MarkDirty(index);
  } else if (rr == line_reader::ReadResult::kError || NowMs() >= r.linger_until_ms) {
    LetGo(s, r.linger);
    r.linger = OpenLog();
  }
}

line_reader::ReadResult Engine::ReadItems(Source* s, std::string* err) {
  line_reader::Budget budget;
  budget.max_bytes = options_.source_bytes_per_turn;
  budget.deadline_ns = turn_deadline_ns_;
  budget.keep_tail = true;
  OpenLog& log = s->current;
  ReadOrigin from;
  from.path = LogPath(*s);
  std::string reason;
  // Never fails: the run intake always knows the sandbox id (pipeline.h).
  pipeline::LabelsFor(options_.config, from.path, s->sandbox_id, &from.labels, &reason);
  log.hashed_at = UINT64_MAX;  // set again below only from what this read saw
  const line_reader::ReadResult rr = reader_->Read(
      log.fd.get(), &log.pos,
      [&](const line_reader::Item& item) {
        HandleItem(s, item, from);
        ++cycle_entries_;
        if (turn_items_left_ > 0) --turn_items_left_;
        return turn_items_left_ > 0 && cycle_entries_ < options_.max_entries_per_cycle &&
               fatal_.empty();
      },
      err, budget);
  std::string_view first, second;
  if (reader_->TailBefore(log.pos.offset, &first, &second)) {
    // The ring's last `window` bytes: of second, and the end of first.
    const size_t window = checkpoint_store::HashWindowAt(log.pos.offset, log.append_only_held);
    if (second.size() >= window) {
      first = {};
      second.remove_prefix(second.size() - window);
    } else if (first.size() + second.size() > window) {
      first.remove_prefix(first.size() + second.size() - window);
    }
    checkpoint_store::HashBytes(first, second, &log.hash_len, &log.sha256_hex);
    log.hashed_at = log.pos.offset;
    log.hashed_file = log.id;
  }
  return rr;
}

bool Engine::TakeRotatedName(Source* s) {
  const Pattern& p = patterns_[s->pattern];
  while (s->rotation != nullptr && !s->rotation->rotated_names.empty()) {
    std::vector<std::string>& names = s->rotation->rotated_names;
    const std::string name = names.front();
    names.erase(names.begin());
    std::string rel = s->sandbox_id + "/";
    if (!p.suffix_parent.empty()) rel += p.suffix_parent + "/";
    rel += name;
    unique_fd::UniqueFd fd;
    std::string err;
    if (OpenLogFile(p.base_fd.get(), rel, &fd, &err) != secure_open::Result::kOk) {
      continue;  // renamed again or removed since: out of reach
    }
    struct stat st, pst;
    const bool at_path =
        fstatat(p.base_fd.get(), LogRelative(*s).c_str(), &pst, AT_SYMLINK_NOFOLLOW) == 0;
    if (fstat(fd.get(), &st) != 0) continue;
    const file_id::FileId id = file_id::FileId::Of(st);
    if (id == s->current.id || (s->lingering() && id == s->rotation->linger.id) ||
        (at_path && file_id::FileId::Of(pst) == id)) {
      continue;  // the file just drained, or the one at the path: not a skipped one
    }
    line_reader::Position from;
    for (const LetGoLog& gone : s->rotation->let_go) {  // rotated_names: not null
      if (gone.id == id && gone.id != file_id::FileId()) from = gone.pos;
    }
    if (from.offset > 0) {
      // Read before and let go; its rename event came late. Anything
      // appended since is read on from where reading stopped.
      if (static_cast<uint64_t>(st.st_size) <= from.offset) continue;
      Note(s->sandbox_id + ": " + LogPath(*s) + " rotated file " + p.base + "/" + rel + " (" +
           id.ToString() + ") grew after it was let go; reading it on from offset " +
           std::to_string(from.offset) + " before the current file");
    } else {
      Note(s->sandbox_id + ": " + LogPath(*s) +
           " was rotated more than once between two looks; "
           "reading " +
           p.base + "/" + rel + " (" + id.ToString() + ") from offset 0 before the current file");
    }
    LetGo(s, s->current);
    s->current.fd = std::move(fd);
    s->current.id = id;
    s->current.pos = from;
    s->rotated_away = true;
    s->seen_size = -1;
    s->seen_mtime_ns = -1;
    return true;
  }
  return false;
}

void Engine::LetGo(Source* s, const OpenLog& log) {
  if (!log.fd.ok()) return;
  Source::Rotation& r = s->rotated();
  r.let_go[r.let_go_next] = {log.id, log.pos};
  r.let_go_next = static_cast<uint8_t>((r.let_go_next + 1) % kLetGoRemembered);
}

size_t Engine::ReleaseIdleFiles(const Source* except, size_t want) {
  // Out of fds: let go of logs that are fully read and checkpointed. Each is
  // reopened on its next event or scan, and resumes from its checkpoint
  // (identity and hash checked; a rotation meanwhile is found like one that
  // happened while stopped).
  size_t released = 0;
  for (size_t n = 0; n < sources_.size() && released < want; ++n) {
    Source& s = sources_[release_cursor_++ % sources_.size()];
    if (&s == except || s.retired || !s.current.fd.ok() || s.lingering() || s.dirty ||
        s.rotated_away || s.release_after_commit || s.touched || !s.AtCheckpoint()) {
      continue;
    }
    s.current.fd.Reset();
    s.resume_pending = true;
    ++released;
  }
  if (!fd_pressure_reported_) {
    fd_pressure_reported_ = true;
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    Warn("open file limit reached (RLIMIT_NOFILE " + std::to_string(rl.rlim_cur) + ", " +
         std::to_string(sources_.size()) +
         " sandboxes): idle logs are closed and reopened on "
         "demand (raise the limit to keep one fd per log)");
  }
  return released;
}

}  // namespace tail_engine
