#include "forward/audit_follower.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "logs.h"

namespace audit_follower {
namespace {

std::string DirName(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A file beside `path` whose name starts with its base name ("audit.jsonl.1",
// "audit.jsonl-20260601") and whose identity is `id`: where logrotate put it.
unique_fd::UniqueFd FindRotated(const std::string& path, const file_id::FileId& id,
                                std::string* found) {
  const std::string dir = DirName(path), base = BaseName(path);
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return unique_fd::UniqueFd();
  unique_fd::UniqueFd result;
  while (struct dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() <= base.size() || name.compare(0, base.size(), base) != 0) continue;
    unique_fd::UniqueFd fd(openat(dirfd(d), name.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    struct stat st;
    if (!fd.ok() || fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (file_id::FileId::Of(st) == id) {
      *found = dir + "/" + name;
      result = std::move(fd);
      break;
    }
  }
  closedir(d);
  return result;
}

}  // namespace

Follower::Follower(std::string path) : path_(std::move(path)) {}

bool CountLines(int fd, uint64_t offset, uint64_t* lines, std::string* err) {
  char buf[64 << 10];
  uint64_t at = 0, n = 0;
  while (at < offset) {
    const size_t want = offset - at < sizeof buf ? static_cast<size_t>(offset - at) : sizeof buf;
    const ssize_t got = pread(fd, buf, want, static_cast<off_t>(at));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      *err = got < 0 ? strerror(errno) : "file shorter than the position";
      return false;
    }
    for (ssize_t i = 0; i < got; ++i) n += buf[i] == '\n';
    at += static_cast<uint64_t>(got);
  }
  *lines = n;
  return true;
}

bool Follower::OpenPath(std::string* err) {
  unique_fd::UniqueFd fd(open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY));
  if (!fd.ok()) {
    if (errno != ENOENT) *err = logs::ErrnoReason("open", path_);
    return false;
  }
  struct stat st;
  if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    *err = path_ + ": not a regular file";
    return false;
  }
  fd_ = std::move(fd);
  id_ = file_id::FileId::Of(st);
  start_offset_ = 0;
  start_seq_ = 1;
  return true;
}

bool Follower::Start(const checkpoint_store::Checkpoint* resume, std::vector<std::string>* notes,
                     std::string* err) {
  err->clear();
  if (resume != nullptr) {
    std::string where = path_;
    unique_fd::UniqueFd fd(open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY));
    struct stat st;
    if (!fd.ok() || fstat(fd.get(), &st) != 0 || file_id::FileId::Of(st) != resume->file) {
      fd = FindRotated(path_, resume->file, &where);
    }
    std::string why;
    if (!fd.ok()) {
      notes->push_back("the file forwarding stopped in (" + resume->file.ToString() + ", offset " +
                       std::to_string(resume->position.offset) +
                       ") is gone: entries after that offset in it were not forwarded; starting "
                       "at the start of " +
                       path_);
    } else if (!checkpoint_store::StillValid(fd.get(), *resume, &why)) {
      notes->push_back(where + ": " + why + "; forwarding it again from the start");
      fd_ = std::move(fd);
      id_ = resume->file;
      start_offset_ = 0;
      start_seq_ = 1;
      return true;
    } else {
      uint64_t lines = 0;
      if (!CountLines(fd.get(), resume->position.offset, &lines, &why)) {
        *err = where + ": " + why;
        return false;
      }
      fd_ = std::move(fd);
      id_ = resume->file;
      start_offset_ = resume->position.offset;
      start_seq_ = lines + 1;
      if (where != path_) notes->push_back("finishing the rotated file " + where + " first");
      return true;
    }
  }
  return OpenPath(err);
}

line_reader::ReadResult Follower::Read(
    line_reader::Reader* reader, uint64_t from,
    const std::function<bool(std::string_view line, uint64_t end)>& on_line, std::string* err) {
  line_reader::Position pos;
  pos.offset = from;
  return reader->Read(
      fd_.get(), &pos,
      [&](const line_reader::Item& item) {
        // A line too long for the reader is handed over empty: the
        // forwarder sends an entry_unreadable notice, never a cut line.
        return on_line(item.kind == line_reader::Item::Kind::kLine ? item.line : std::string_view(),
                       item.end);
      },
      err);
}

bool Follower::SwitchIfRotated(uint64_t offset, std::string* note, std::string* err) {
  struct stat st;
  if (stat(path_.c_str(), &st) == 0 && file_id::FileId::Of(st) == id_) return false;
  // Renamed away (or deleted). Finished only once its writer let it go.
  if (flock(fd_.get(), LOCK_SH | LOCK_NB) != 0) return false;
  flock(fd_.get(), LOCK_UN);
  struct stat cur;
  if (fstat(fd_.get(), &cur) != 0) {
    *err = logs::ErrnoReason("fstat", path_);
    return false;
  }
  if (static_cast<uint64_t>(cur.st_size) > offset) {
    // Bytes after the last complete line, with no writer left: a torn line.
    line_reader::Position pos;
    pos.offset = offset;
    if (line_reader::Reader::PendingBytes(fd_.get(), pos) == 0) return false;  // more lines to read
    *note = "the rotated file (" + id_.ToString() + ") ends in " +
            std::to_string(static_cast<uint64_t>(cur.st_size) - offset) +
            " bytes without a newline (a torn write); they are not an entry";
  }
  const file_id::FileId old = id_;
  unique_fd::UniqueFd keep = std::move(fd_);
  if (!OpenPath(err)) {
    fd_ = std::move(keep);  // the new file is not there yet: stay
    return false;
  }
  *note += std::string(note->empty() ? "" : "; ") + "finished the rotated file (" + old.ToString() +
           "); now forwarding " + path_ + " (" + id_.ToString() + ")";
  return true;
}

}  // namespace audit_follower
