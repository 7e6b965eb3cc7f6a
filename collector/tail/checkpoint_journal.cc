#include "tail/checkpoint_journal.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "hex.h"
#include "tail/checkpoint_store.h"

namespace checkpoint_journal {
namespace {

constexpr char kTmpName[] = "checkpoints.journal.tmp";
constexpr char kFrameWord[] = "frame ";
// "frame " + 20 digits + ' ' + 64 hex + '\n', with room to spare.
constexpr size_t kMaxFrameLine = 128;

bool ValidKey(std::string_view key) {
  if (key.empty() || key.size() > 255 || key == "." || key == "..") return false;
  for (char c : key) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
          c == '_' || c == '-')) {
      return false;
    }
  }
  return true;
}

bool WriteAll(int fd, std::string_view s) {
  while (!s.empty()) {
    const ssize_t n = write(fd, s.data(), s.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    s.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Up to `n` bytes at `offset` into *out (fewer only at the end of the file).
bool ReadAt(int fd, uint64_t offset, size_t n, std::string* out, std::string* err) {
  out->resize(n);
  size_t got = 0;
  while (got < n) {
    const ssize_t r = pread(fd, &(*out)[got], n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      *err = std::string("read ") + kFileName + ": " + strerror(errno);
      return false;
    }
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  out->resize(got);
  return true;
}

std::string At(uint64_t offset) {
  return std::string(kFileName) + ": offset " + std::to_string(offset) + ": ";
}

// One payload's lines into *state; false (*err) on a line that is not
// "KEY TEXT\n".
bool ApplyPayload(std::string_view payload, uint64_t offset, State* state, std::string* err) {
  while (!payload.empty()) {
    const size_t end = payload.find('\n');
    const size_t space = payload.find(' ');
    if (end == std::string_view::npos || space == std::string_view::npos || space > end ||
        !ValidKey(payload.substr(0, space)) || space + 1 == end) {
      *err = At(offset) + "a frame's line is not a checkpoint";
      return false;
    }
    (*state)[std::string(payload.substr(0, space))] =
        std::string(payload.substr(space + 1, end - space));
    payload.remove_prefix(end + 1);
  }
  return true;
}

// The journal's frames over *state, read one frame at a time (not the
// whole file: before a compaction it is several times the state). `size`:
// the file's size when opened; what is appended since is not read.
// *good_end: past the last whole frame.
LoadResult ApplyJournal(int fd, uint64_t size, State* state, uint64_t* good_end, std::string* err) {
  const std::string_view header(kHeader);
  std::string bytes;
  if (!ReadAt(fd, 0, static_cast<size_t>(std::min<uint64_t>(size, header.size())), &bytes, err)) {
    return LoadResult::kError;
  }
  if (bytes.size() < header.size()) {
    // Created and cut short before its header was durable: empty.
    if (header.substr(0, bytes.size()) == bytes) return LoadResult::kLoaded;
    *err = std::string(kFileName) + ": not a checkpoint journal of this version";
    return LoadResult::kCorrupt;
  }
  if (bytes != header) {
    *err = std::string(kFileName) + ": not a checkpoint journal of this version";
    return LoadResult::kCorrupt;
  }
  uint64_t at = header.size();
  *good_end = at;
  while (at < size) {
    if (!ReadAt(fd, at, static_cast<size_t>(std::min<uint64_t>(size - at, kMaxFrameLine)), &bytes,
                err)) {
      return LoadResult::kError;
    }
    if (bytes.empty()) return LoadResult::kLoaded;  // cut since the fstat
    const size_t nl = bytes.find('\n');
    if (nl == std::string::npos) {
      // A frame line cut short is the last thing in the file: a crash.
      if (bytes.size() < kMaxFrameLine) return LoadResult::kLoaded;
      *err = At(at) + "not a frame";
      return LoadResult::kCorrupt;
    }
    const std::string line = bytes.substr(0, nl);
    unsigned long long len = 0;
    char hex[65] = "";
    int used = 0;
    if (line.compare(0, strlen(kFrameWord), kFrameWord) != 0 ||
        sscanf(line.c_str(), "frame %llu %64[0-9a-f]%n", &len, hex, &used) != 2 ||
        static_cast<size_t>(used) != line.size() || strlen(hex) != 64 || len > kMaxFrameBytes) {
      *err = At(at) + "not a frame";
      return LoadResult::kCorrupt;
    }
    const uint64_t payload_at = at + nl + 1;
    if (payload_at + len > size) return LoadResult::kLoaded;  // cut short: a crash
    if (!ReadAt(fd, payload_at, static_cast<size_t>(len), &bytes, err)) return LoadResult::kError;
    if (bytes.size() < len) return LoadResult::kLoaded;  // cut since the fstat
    const uint64_t next = payload_at + len;
    if (checkpoint_store::Sha256Hex(bytes) != hex) {
      // The last frame, its fdatasync never returned: a crash. Anything
      // after it was written by a commit that followed a completed one.
      if (next == size) return LoadResult::kLoaded;
      *err = At(at) + "a frame fails its SHA-256 and frames follow it (damaged)";
      return LoadResult::kCorrupt;
    }
    if (!ApplyPayload(bytes, at, state, err)) return LoadResult::kCorrupt;
    at = next;
    *good_end = at;
  }
  return LoadResult::kLoaded;
}

}  // namespace

LoadResult Load(int state_dir_fd, State* state, Found* found, std::string* err) {
  state->clear();
  *found = Found();
  // The per-source files of an older version first: the journal, written
  // since, is newer for every key it names.
  std::vector<std::string> keys;
  if (!checkpoint_store::ListKeys(state_dir_fd, &keys, err)) return LoadResult::kError;
  for (const std::string& key : keys) {
    if (!ValidKey(key)) continue;
    std::string text, why;
    switch (checkpoint_store::LoadText(state_dir_fd, key, &text, &why)) {
      case checkpoint_store::LoadResult::kLoaded: (*state)[key] = std::move(text); break;
      case checkpoint_store::LoadResult::kNone: break;  // removed since the listing
      case checkpoint_store::LoadResult::kCorrupt:
        // As before the journal: that source alone is read from its start.
        found->unusable[key] = why;
        break;
      case checkpoint_store::LoadResult::kError: *err = why; return LoadResult::kError;
    }
  }
  const unique_fd::UniqueFd fd(openat(state_dir_fd, kFileName, O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.ok()) {
    if (errno != ENOENT) {
      *err = std::string("open ") + kFileName + ": " + strerror(errno);
      return LoadResult::kError;
    }
    return state->empty() && found->unusable.empty() ? LoadResult::kNone : LoadResult::kLoaded;
  }
  struct stat st;
  if (fstat(fd.get(), &st) != 0) {
    *err = std::string("fstat ") + kFileName + ": " + strerror(errno);
    return LoadResult::kError;
  }
  found->exists = true;
  found->file_size = static_cast<uint64_t>(st.st_size);
  const LoadResult r = ApplyJournal(fd.get(), found->file_size, state, &found->good_end, err);
  if (r != LoadResult::kLoaded) return r;
  for (const auto& [key, text] : *state) found->unusable.erase(key);
  return LoadResult::kLoaded;
}

FrameBuilder::FrameBuilder() : buf_(kLineRoom, ' ') {}

void FrameBuilder::Reserve(size_t entries, size_t entry_bytes) {
  buf_.reserve(kLineRoom + entries * entry_bytes);
}

void FrameBuilder::Add(std::string_view key, std::string_view text) {
  buf_ += key;
  buf_ += ' ';
  buf_ += text;
}

std::string FrameBuilder::Finish() {
  const std::string_view payload = std::string_view(buf_).substr(kLineRoom);
  const std::string line = kFrameWord + std::to_string(payload.size()) + " " +
                           checkpoint_store::Sha256Hex(payload) + "\n";
  const size_t at = kLineRoom - line.size();
  buf_.replace(at, line.size(), line);
  buf_.erase(0, at);  // in place: no second buffer
  return std::move(buf_);
}

bool Writer::Open(int state_dir_fd, const Found& found, std::string* err) {
  dir_fd_ = state_dir_fd;
  broken_ = false;
  if (!found.exists || found.good_end == 0) return Create(err);
  fd_.Reset(openat(dir_fd_, kFileName, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW));
  if (!fd_.ok()) {
    *err = std::string("open ") + kFileName + ": " + strerror(errno);
    return false;
  }
  size_ = found.good_end;
  if (found.file_size > found.good_end) {
    // The frame a crash cut short goes, durably, before any frame follows it.
    if (ftruncate(fd_.get(), static_cast<off_t>(size_)) != 0 || fdatasync(fd_.get()) != 0) {
      *err = std::string("cut ") + kFileName + " back to its last whole frame: " + strerror(errno);
      fd_.Reset();
      return false;
    }
  }
  return true;
}

bool Writer::Create(std::string* err) {
  // Written whole to a temporary name and renamed, like a compaction: the
  // journal's name never holds less than its header.
  return CompactTo(std::string(), err);
}

bool Writer::Failed(const char* what, int error, std::string* err, int* error_number) {
  if (error_number != nullptr) *error_number = error;
  *err = std::string(what) + " " + kFileName + ": " + strerror(error);
  return false;
}

bool Writer::EndAppend(int write_errno, uint64_t frame_bytes, std::string* err, int* error_number) {
  if (write_errno != 0) {
    // Cut back, or the next frame would follow one cut short: damage.
    if (ftruncate(fd_.get(), static_cast<off_t>(size_)) != 0) broken_ = true;
    return Failed("write", write_errno, err, error_number);
  }
  size_ += frame_bytes;
  if (fdatasync(fd_.get()) != 0) {
    broken_ = true;  // what is on disk is unknown: the next start loads it
    return Failed("fdatasync", errno, err, error_number);
  }
  return true;
}

bool Writer::AppendEntries(const std::function<void(const EntrySink& add)>& each, std::string* err,
                           int* error_number) {
  if (!fd_.ok() || broken_) return Failed("append to", EIO, err, error_number);
  // Pass 1: the payload's length and hash, for the frame line before it.
  uint64_t len = 0;
  std::string hex;
  {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    bool ok = ctx != nullptr && EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) == 1;
    each([&](std::string_view key, std::string_view text) {
      len += EntryBytes(key, text);
      ok = ok && EVP_DigestUpdate(ctx, key.data(), key.size()) == 1 &&
           EVP_DigestUpdate(ctx, " ", 1) == 1 &&
           EVP_DigestUpdate(ctx, text.data(), text.size()) == 1;
    });
    ok = ok && EVP_DigestFinal_ex(ctx, md, &md_len) == 1;
    EVP_MD_CTX_free(ctx);
    if (!ok) return Failed("hash a frame of", ENOMEM, err, error_number);
    hex = hex::Encode(md, md_len);
  }
  // Pass 2: the frame, through a buffer of about kChunk bytes.
  constexpr size_t kChunk = 64 * 1024;
  std::string buf = kFrameWord + std::to_string(len) + " " + hex + "\n";
  const uint64_t frame_bytes = buf.size() + len;
  buf.reserve(kChunk + kMaxFrameLine);
  uint64_t written = 0;
  int write_errno = 0;
  const auto flush = [&]() {
    if (write_errno == 0 && !WriteAll(fd_.get(), buf)) write_errno = errno;
    written += buf.size();
    buf.clear();
  };
  each([&](std::string_view key, std::string_view text) {
    buf += key;
    buf += ' ';
    buf += text;
    if (buf.size() >= kChunk) flush();
  });
  flush();
  if (write_errno == 0 && written != frame_bytes) write_errno = EIO;  // entries changed: never
  return EndAppend(write_errno, frame_bytes, err, error_number);
}

bool Writer::ShouldCompact(uint64_t state_bytes) const {
  return size_ > kCompactAtLeastBytes && size_ > kCompactAtStateMultiple * state_bytes;
}

bool Writer::CompactTo(const std::string& frame, std::string* err) {
  unique_fd::UniqueFd tmp(openat(
      dir_fd_, kTmpName, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!tmp.ok()) {
    *err = std::string("open ") + kTmpName + ": " + strerror(errno);
    return false;
  }
  if (!WriteAll(tmp.get(), kHeader) || !WriteAll(tmp.get(), frame) || fsync(tmp.get()) != 0) {
    *err = std::string("write ") + kTmpName + ": " + strerror(errno);
    return false;
  }
  if (renameat(dir_fd_, kTmpName, dir_fd_, kFileName) != 0) {
    *err = std::string("rename ") + kTmpName + " -> " + kFileName + ": " + strerror(errno);
    return false;
  }
  if (fsync(dir_fd_) != 0) {
    *err = std::string("fsync state directory: ") + strerror(errno);
    return false;
  }
  fd_ = std::move(tmp);  // the journal now
  size_ = strlen(kHeader) + frame.size();
  broken_ = false;
  return true;
}

}  // namespace checkpoint_journal
