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

#include "tail/checkpoint_store.h"
#include "tail/secure_open.h"
#include "tail/tail_engine_support.h"

namespace tail_engine {
namespace {

// How long a log rotated away stays open after the switch (Fluent Bit's
// rotate_wait): appends by a writer that opened it before the rename are read.
constexpr int64_t kRotateWaitMs = 5000;

int64_t NowMs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

std::string Identity(uint64_t dev, uint64_t ino) {
  return std::to_string(dev) + ":" + std::to_string(ino);
}

// A readable directory fd for an O_PATH one (O_PATH cannot be listed).
int ReopenDirectory(int path_fd) {
  char proc_path[64];
  snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", path_fd);
  return open(proc_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

}  // namespace

void Engine::OpenCurrent(Source* s) {
  const Pattern& p = patterns_[s->pattern];
  if (p.base_fd < 0) return;
  int fd = -1;
  std::string err;
  secure_open::Result r = secure_open::OpenRegular(p.base_fd, LogRelative(*s),
                                                   secure_open::Method::kAuto, &fd, &err);
  if (r == secure_open::Result::kError && err.find("open file limit") != std::string::npos) {
    if (ReleaseIdleFiles(s, 64) > 0) {
      r = secure_open::OpenRegular(p.base_fd, LogRelative(*s), secure_open::Method::kAuto, &fd,
                                   &err);
    }
    if (r == secure_open::Result::kError && err.find("open file limit") != std::string::npos) {
      return;  // reported once for all (ReleaseIdleFiles); retried at the next scan
    }
  }
  if (r == secure_open::Result::kMissing) {
    ClearProblem(s);
    // Renamed away while stopped and no successor yet: finish the old file.
    if (s->resume_pending && ResumeFromRotated(s, 0, 0)) s->resume_pending = false;
    return;
  }
  if (r != secure_open::Result::kOk) {
    // A refused object is not looked at again until it is replaced (its
    // inode is remembered); an error (fd limit, permissions) is retried at
    // every scan, and either is reported once.
    struct stat pst;
    uint64_t ino = r == secure_open::Result::kRefused &&
                           fstatat(p.base_fd, LogRelative(*s).c_str(), &pst, AT_SYMLINK_NOFOLLOW) == 0
                       ? static_cast<uint64_t>(pst.st_ino)
                       : 0;
    Report(s, err + (r == secure_open::Result::kRefused ? "; not read (reported once)" : ""), ino);
    return;
  }
  if (!s->problem.empty() && s->problem != "two patterns") {
    Note(LogPath(*s) + ": now a regular file; reading it");
    ClearProblem(s);
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return;
  }
  const uint64_t dev = static_cast<uint64_t>(st.st_dev), ino = static_cast<uint64_t>(st.st_ino);
  line_reader::Position start;
  if (s->have_committed && dev == s->c_dev && ino == s->c_ino) {
    std::string why;
    if (checkpoint_store::StillValid(fd, s->CommittedCheckpoint(), &why)) {
      start = s->committed;
    } else {
      Note(s->sandbox_id + ": " + LogPath(*s) + ": reading from offset 0: " + why);
    }
  } else if (s->resume_pending) {
    if (ResumeFromRotated(s, dev, ino)) {
      s->resume_pending = false;
      close(fd);  // the new file is opened again once the old one is drained
      return;
    }
    Note(s->sandbox_id + ": the checkpointed file " + Identity(s->c_dev, s->c_ino) +
         " (offset " + std::to_string(s->committed.offset) + ") is gone; reading " + LogPath(*s) +
         " (" + Identity(dev, ino) + ") from offset 0");
  }
  s->resume_pending = false;
  s->fd = fd;
  s->dev = dev;
  s->ino = ino;
  s->pos = start;
  s->rotated_away = false;
  s->seen_size = -1;  // forces the size check in ValidateStillSame
  s->seen_mtime_ns = -1;
}

bool Engine::ResumeFromRotated(Source* s, uint64_t new_dev, uint64_t new_ino) {
  // Rotated while the collector was stopped: the checkpointed inode may now
  // sit beside the log under another name (denied.log.1). Finish it first.
  const Pattern& p = patterns_[s->pattern];
  std::string rel = s->sandbox_id;
  if (!p.suffix_parent.empty()) rel += "/" + p.suffix_parent;
  int path_fd = -1;
  std::string err;
  if (secure_open::OpenDirectory(p.base_fd, rel, secure_open::Method::kAuto, &path_fd, &err) !=
      secure_open::Result::kOk) {
    return false;
  }
  int dfd = ReopenDirectory(path_fd);
  close(path_fd);
  if (dfd < 0) return false;
  int list_fd = dup(dfd);
  DIR* dir = list_fd >= 0 ? fdopendir(list_fd) : nullptr;
  if (!dir) {
    if (list_fd >= 0) close(list_fd);
    close(dfd);
    return false;
  }
  bool found = false;
  while (struct dirent* e = readdir(dir)) {
    if (static_cast<uint64_t>(e->d_ino) != s->c_ino) continue;
    int fd = -1;
    if (secure_open::OpenRegular(dfd, e->d_name, secure_open::Method::kAuto, &fd, &err) !=
        secure_open::Result::kOk) {
      continue;
    }
    struct stat st;
    const checkpoint_store::Checkpoint c = s->CommittedCheckpoint();
    std::string why;
    if (fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_dev) != s->c_dev ||
        static_cast<uint64_t>(st.st_ino) != s->c_ino || !checkpoint_store::StillValid(fd, c, &why)) {
      close(fd);
      continue;
    }
    Note(s->sandbox_id + ": " + LogPath(*s) + " was rotated while stopped (now " +
         (new_ino == 0 ? std::string("missing") : Identity(new_dev, new_ino)) +
         "); finishing the previous file " + p.base + "/" + rel + "/" + e->d_name +
         " from offset " + std::to_string(c.offset) + " first");
    s->fd = fd;
    s->dev = c.dev;
    s->ino = c.ino;
    s->pos = s->committed;
    s->rotated_away = true;
    s->seen_size = st.st_size;
    s->seen_mtime_ns = MtimeNs(st);
    found = true;
    break;
  }
  closedir(dir);
  close(dfd);
  return found;
}

void Engine::ValidateStillSame(Source* s) {
  struct stat st;
  if (fstat(s->fd, &st) != 0) return;
  if (st.st_size == s->seen_size && MtimeNs(st) == s->seen_mtime_ns) return;
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size < s->pos.offset) {
    Note(s->sandbox_id + ": " + LogPath(*s) + " truncated: size " + std::to_string(size) +
         " is below offset " + std::to_string(s->pos.offset) + "; reading from offset 0");
    s->pos = line_reader::Position();
  } else if (s->have_committed && s->dev == s->c_dev && s->ino == s->c_ino &&
             s->pos.offset == s->committed.offset && s->pos.offset > 0) {
    std::string why;
    if (!checkpoint_store::StillValid(s->fd, s->CommittedCheckpoint(), &why)) {
      Note(s->sandbox_id + ": " + LogPath(*s) + ": " + why + "; reading from offset 0");
      s->pos = line_reader::Position();
    }
  }
  s->seen_size = st.st_size;
  s->seen_mtime_ns = MtimeNs(st);
}

void Engine::Look(uint32_t index) {
  Source* s = &sources_[index];
  s->dirty = false;
  const Pattern& p = patterns_[s->pattern];
  if (p.base_fd < 0) return;
  if (s->fd < 0) {
    OpenCurrent(s);
    if (s->fd < 0) return;
  } else {
    struct stat pst;
    const bool present =
        fstatat(p.base_fd, LogRelative(*s).c_str(), &pst, AT_SYMLINK_NOFOLLOW) == 0;
    s->rotated_away = !present || static_cast<uint64_t>(pst.st_dev) != s->dev ||
                      static_cast<uint64_t>(pst.st_ino) != s->ino;
  }
  if (std::find(touched_.begin(), touched_.end(), index) == touched_.end()) {
    touched_.push_back(index);
  }
  ReadLinger(index);
  // The old file drained, any skipped rotations, then the path's file.
  for (int steps = 0; steps < 2 + 64; ++steps) {  // bounded by rotated_names
    ValidateStillSame(s);
    std::string err;
    const line_reader::ReadResult rr = ReadItems(s, &err);
    if (rr == line_reader::ReadResult::kError) {
      Report(s, LogRelative(*s) + ": " + err, s->ino);
      return;
    }
    if (rr == line_reader::ReadResult::kStopped) {
      MarkDirty(index);  // more to read next cycle
      return;
    }
    struct stat st;
    if (fstat(s->fd, &st) == 0) {
      s->seen_size = st.st_size;
      s->seen_mtime_ns = MtimeNs(st);
    }
    if (!s->rotated_away) return;
    // Drained. A file rotated away before it was ever looked at comes next.
    if (TakeRotatedName(s)) continue;
    // Then whatever is at the path now.
    int fd = -1;
    std::string open_err;
    const secure_open::Result r = secure_open::OpenRegular(
        p.base_fd, LogRelative(*s), secure_open::Method::kAuto, &fd, &open_err);
    if (r != secure_open::Result::kOk) {
      if (r != secure_open::Result::kMissing) {
        struct stat pst;
        uint64_t ino = fstatat(p.base_fd, LogRelative(*s).c_str(), &pst, AT_SYMLINK_NOFOLLOW) == 0
                           ? static_cast<uint64_t>(pst.st_ino)
                           : 0;
        Report(s, open_err + "; not read (reported once)", ino);
      }
      // Renamed away with no successor yet: keep reading it. Deleted: let go
      // once its position is checkpointed.
      if (st.st_nlink == 0) s->release_after_commit = true;
      return;
    }
    struct stat nst;
    if (fstat(fd, &nst) != 0 || (static_cast<uint64_t>(nst.st_dev) == s->dev &&
                                 static_cast<uint64_t>(nst.st_ino) == s->ino)) {
      close(fd);
      s->rotated_away = false;
      return;
    }
    ClearProblem(s);
    Note(s->sandbox_id + ": " + LogPath(*s) + " rotated: previous file " +
         Identity(s->dev, s->ino) + " read to its end (offset " + std::to_string(s->pos.offset) +
         "); now reading " + Identity(nst.st_dev, nst.st_ino) + " from offset 0");
    if (s->linger_fd >= 0) close(s->linger_fd);
    s->linger_fd = s->fd;
    s->linger_dev = s->dev;
    s->linger_ino = s->ino;
    s->linger_pos = s->pos;
    s->linger_until_ms = NowMs() + kRotateWaitMs;
    s->fd = fd;
    s->dev = static_cast<uint64_t>(nst.st_dev);
    s->ino = static_cast<uint64_t>(nst.st_ino);
    s->pos = line_reader::Position();
    s->rotated_away = false;
    s->release_after_commit = false;
    s->seen_size = -1;
    s->seen_mtime_ns = -1;
  }
}

void Engine::ReadLinger(uint32_t index) {
  // The file rotated away is kept open for kRotateWaitMs after the switch: a
  // writer that opened it before the rename may still append to it.
  Source* s = &sources_[index];
  if (s->linger_fd < 0) return;
  std::swap(s->fd, s->linger_fd);
  std::swap(s->dev, s->linger_dev);
  std::swap(s->ino, s->linger_ino);
  std::swap(s->pos, s->linger_pos);
  std::string err;
  const line_reader::ReadResult rr = ReadItems(s, &err);
  std::swap(s->fd, s->linger_fd);
  std::swap(s->dev, s->linger_dev);
  std::swap(s->ino, s->linger_ino);
  std::swap(s->pos, s->linger_pos);
  if (rr == line_reader::ReadResult::kStopped) {
    MarkDirty(index);
  } else if (rr == line_reader::ReadResult::kError || NowMs() >= s->linger_until_ms) {
    close(s->linger_fd);
    s->linger_fd = -1;
  }
}

line_reader::ReadResult Engine::ReadItems(Source* s, std::string* err) {
  return reader_->Read(
      s->fd, &s->pos,
      [&](const line_reader::Item& item) {
        if (item.kind == line_reader::Item::Kind::kRejected) {
          Reject(s, item.offset,
                 std::string(item.reason) + " (" + std::to_string(item.length) + " bytes" +
                     (item.reason[0] == 'l'
                          ? ", limit " + std::to_string(reader_->max_line_bytes())
                          : std::string()) +
                     ")");
        } else {
          HandleLine(s, item);
        }
        ++cycle_entries_;
        return cycle_entries_ < options_.max_entries_per_cycle && fatal_.empty();
      },
      err);
}

bool Engine::TakeRotatedName(Source* s) {
  const Pattern& p = patterns_[s->pattern];
  while (!s->rotated_names.empty()) {
    const std::string name = s->rotated_names.front();
    s->rotated_names.erase(s->rotated_names.begin());
    std::string rel = s->sandbox_id + "/";
    if (!p.suffix_parent.empty()) rel += p.suffix_parent + "/";
    rel += name;
    int fd = -1;
    std::string err;
    if (secure_open::OpenRegular(p.base_fd, rel, secure_open::Method::kAuto, &fd, &err) !=
        secure_open::Result::kOk) {
      continue;  // renamed again or removed since: out of reach
    }
    struct stat st, pst;
    const bool at_path =
        fstatat(p.base_fd, LogRelative(*s).c_str(), &pst, AT_SYMLINK_NOFOLLOW) == 0;
    if (fstat(fd, &st) != 0 ||
        (static_cast<uint64_t>(st.st_dev) == s->dev && static_cast<uint64_t>(st.st_ino) == s->ino) ||
        (s->linger_fd >= 0 && static_cast<uint64_t>(st.st_dev) == s->linger_dev &&
         static_cast<uint64_t>(st.st_ino) == s->linger_ino) ||
        (at_path && pst.st_dev == st.st_dev && pst.st_ino == st.st_ino)) {
      close(fd);  // the file just drained, or the one at the path: not a skipped one
      continue;
    }
    Note(s->sandbox_id + ": " + LogPath(*s) + " was rotated more than once between two looks; "
         "reading " + p.base + "/" + rel + " (" + Identity(st.st_dev, st.st_ino) +
         ") from offset 0 before the current file");
    close(s->fd);
    s->fd = fd;
    s->dev = static_cast<uint64_t>(st.st_dev);
    s->ino = static_cast<uint64_t>(st.st_ino);
    s->pos = line_reader::Position();
    s->rotated_away = true;
    s->seen_size = -1;
    s->seen_mtime_ns = -1;
    return true;
  }
  return false;
}

size_t Engine::ReleaseIdleFiles(const Source* except, size_t want) {
  // Out of fds: let go of logs that are fully read and checkpointed. Each is
  // reopened on its next event or scan, and resumes from its checkpoint
  // (identity and hash checked; a rotation meanwhile is found like one that
  // happened while stopped).
  size_t released = 0;
  for (size_t n = 0; n < sources_.size() && released < want; ++n) {
    Source& s = sources_[release_cursor_++ % sources_.size()];
    if (&s == except || s.retired || s.fd < 0 || s.linger_fd >= 0 || s.dirty || s.rotated_away ||
        s.release_after_commit || !s.AtCheckpoint()) {
      continue;
    }
    if (std::find(touched_.begin(), touched_.end(),
                  static_cast<uint32_t>(&s - sources_.data())) != touched_.end()) {
      continue;
    }
    close(s.fd);
    s.fd = -1;
    s.resume_pending = true;
    ++released;
  }
  if (!fd_pressure_reported_) {
    fd_pressure_reported_ = true;
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    Warn("open file limit reached (RLIMIT_NOFILE " + std::to_string(rl.rlim_cur) + ", " +
         std::to_string(sources_.size()) + " sandboxes): idle logs are closed and reopened on "
         "demand (raise the limit to keep one fd per log)");
  }
  return released;
}

}  // namespace tail_engine
