#include "tail/chain_head.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string_view>

#include "tail/checkpoint_store.h"
#include "unique_fd.h"

namespace chain_head {
namespace {

constexpr char kMagicV1[] = "agt-collector chain head 1\n";
constexpr char kMagic[] = "agt-collector chain head 2\n";
constexpr size_t kSlotBytes = 512;
constexpr off_t kSlotOffset[2] = {0, 4096};
constexpr size_t kMaxFileBytes = 4096 + kSlotBytes;

bool IsHashOrEmpty(const char* s) {
  const size_t n = strlen(s);
  if (n != 0 && n != 64) return false;
  for (size_t i = 0; i < n; ++i) {
    const char c = s[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// "dev=D ino=I entries=E size=S content_hash=HEX\n", the head's one line in
// both versions.
std::string FieldsLine(const ChainHead& head) {
  char line[256];
  snprintf(line, sizeof line, "dev=%llu ino=%llu entries=%llu size=%llu content_hash=%s\n",
           static_cast<unsigned long long>(head.file.dev),
           static_cast<unsigned long long>(head.file.ino),
           static_cast<unsigned long long>(head.entries),
           static_cast<unsigned long long>(head.size), head.content_hash.c_str());
  return line;
}

// The fields line, exactly: nothing before or after it, every number and
// the hash well-formed and consistent (no entries: no hash, size 0).
bool ParseFieldsLine(const std::string& line, ChainHead* out) {
  unsigned long long dev, ino, entries, size;
  char hash[65] = "";
  int used = 0;
  // "content_hash=" may be empty (no entry yet): %n marks where the value starts.
  int hash_at = 0;
  if (sscanf(line.c_str(), "dev=%llu ino=%llu entries=%llu size=%llu content_hash=%n", &dev, &ino,
             &entries, &size, &hash_at) != 4 ||
      hash_at == 0) {
    return false;
  }
  const char* rest = line.c_str() + hash_at;
  if (sscanf(rest, "%64[0-9a-f]%n", hash, &used) != 1) used = 0;
  if (strcmp(rest + used, "\n") != 0 || strlen(line.c_str()) != line.size() ||
      !IsHashOrEmpty(hash) || (entries == 0) != (hash[0] == 0) || (entries == 0 && size != 0)) {
    return false;
  }
  out->file = {dev, ino};
  out->entries = entries;
  out->size = size;
  out->content_hash = hash;
  return true;
}

// One slot's bytes: its text, then NULs to kSlotBytes.
std::string SlotBytes(const ChainHead& head, uint64_t seq) {
  std::string text = std::string(kMagic) + "seq=" + std::to_string(seq) + "\n" + FieldsLine(head);
  text += "sha256=" + checkpoint_store::Sha256Hex(text) + "\n";
  text.resize(kSlotBytes, '\0');
  return text;
}

// A slot's text (up to its first NUL) as a head; false when it is empty,
// cut short or fails its hash.
bool ParseSlot(std::string_view slot, ChainHead* out, uint64_t* seq) {
  const size_t end = slot.find('\0');
  const std::string_view text = slot.substr(0, end);
  const size_t magic_len = strlen(kMagic);
  if (text.size() < magic_len || text.substr(0, magic_len) != kMagic) return false;
  const size_t hash_line = text.rfind("sha256=");
  if (hash_line == std::string_view::npos || hash_line < magic_len ||
      text.size() != hash_line + strlen("sha256=") + 64 + 1 || text.back() != '\n' ||
      text.substr(hash_line + strlen("sha256="), 64) !=
          checkpoint_store::Sha256Hex(text.substr(0, hash_line))) {
    return false;
  }
  // Hashed: the lines were written as they are; still parsed strictly.
  const std::string_view lines = text.substr(magic_len, hash_line - magic_len);
  const size_t seq_end = lines.find('\n');
  unsigned long long n = 0;
  int used = 0;
  const std::string seq_line(lines.substr(0, seq_end == std::string_view::npos ? 0 : seq_end + 1));
  if (seq_end == std::string_view::npos ||
      sscanf(seq_line.c_str(), "seq=%llu\n%n", &n, &used) != 1 ||
      static_cast<size_t>(used) != seq_line.size()) {
    return false;
  }
  if (!ParseFieldsLine(std::string(lines.substr(seq_end + 1)), out)) return false;
  *seq = n;
  return true;
}

enum class Version { kNone, kOne, kTwo, kUnreadable };

// Reads the file: which version it is, and for version 2 its newest slot
// that passes (*seq). kUnreadable: neither slot passes, or a version 1 file
// that is not one.
LoadResult Read(int fd, ChainHead* out, Version* version, uint64_t* seq, std::string* err) {
  std::string bytes(kMaxFileBytes + 1, '\0');
  size_t have = 0;
  while (have < bytes.size()) {
    const ssize_t n = pread(fd, &bytes[have], bytes.size() - have, static_cast<off_t>(have));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *err = std::string("read ") + kFileName + ": " + strerror(errno);
      return LoadResult::kError;
    }
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  bytes.resize(have);
  *version = Version::kUnreadable;
  const auto malformed = [err]() {
    *err = std::string(kFileName) + ": malformed chain head";
    return LoadResult::kCorrupt;
  };
  if (have > kMaxFileBytes) return malformed();
  const size_t v1_len = strlen(kMagicV1);
  if (bytes.compare(0, v1_len, kMagicV1) == 0) {
    if (!ParseFieldsLine(bytes.substr(v1_len), out)) return malformed();
    *version = Version::kOne;
    *seq = 0;
    return LoadResult::kLoaded;
  }
  bool found = false;
  for (const off_t at : kSlotOffset) {
    if (static_cast<size_t>(at) >= have) continue;
    ChainHead slot;
    uint64_t slot_seq = 0;
    if (!ParseSlot(std::string_view(bytes).substr(static_cast<size_t>(at), kSlotBytes), &slot,
                   &slot_seq) ||
        (found && slot_seq <= *seq)) {
      continue;
    }
    *out = slot;
    *seq = slot_seq;
    found = true;
  }
  if (!found) return malformed();
  *version = Version::kTwo;
  return LoadResult::kLoaded;
}

// *error: open's errno, 0 when it opened.
unique_fd::UniqueFd Open(int state_dir_fd, int flags, int* error) {
  unique_fd::UniqueFd fd(openat(state_dir_fd, kFileName, flags | O_CLOEXEC | O_NOFOLLOW));
  *error = fd.ok() ? 0 : errno;
  return fd;
}

std::string OpenFailed(int error) {
  return std::string("open ") + kFileName + ": " + strerror(error);
}

// A new file: slot 0 only, sequence 0, put in place atomically.
bool Create(int state_dir_fd, const ChainHead& head, std::string* err) {
  return checkpoint_store::ReplaceDurably(state_dir_fd, kFileName, SlotBytes(head, 0), err);
}

}  // namespace

LoadResult Load(int state_dir_fd, ChainHead* out, std::string* err) {
  int error = 0;
  const unique_fd::UniqueFd fd = Open(state_dir_fd, O_RDONLY, &error);
  if (error == ENOENT) return LoadResult::kNone;
  if (!fd.ok()) {
    *err = OpenFailed(error);
    return LoadResult::kError;
  }
  Version version = Version::kNone;
  uint64_t seq = 0;
  return Read(fd.get(), out, &version, &seq, err);
}

bool Save(int state_dir_fd, const ChainHead& head, std::string* err) {
  int error = 0;
  const unique_fd::UniqueFd fd = Open(state_dir_fd, O_RDWR, &error);
  if (error == ENOENT) return Create(state_dir_fd, head, err);
  if (!fd.ok()) {
    *err = OpenFailed(error);
    errno = error;
    return false;
  }
  ChainHead current;
  Version version = Version::kNone;
  uint64_t seq = 0;
  std::string why;
  const LoadResult read = Read(fd.get(), &current, &version, &seq, &why);
  if (read == LoadResult::kError) {
    *err = why;
    return false;
  }
  // An older build's file, or one no slot of which passes (a start that
  // found it so was told to go on: run --new-chain): a new file.
  if (version != Version::kTwo) return Create(state_dir_fd, head, err);
  const uint64_t next = seq + 1;
  const std::string slot = SlotBytes(head, next);
  const off_t at = kSlotOffset[next % 2];
  size_t done = 0;
  while (done < slot.size()) {
    const ssize_t n =
        pwrite(fd.get(), slot.data() + done, slot.size() - done, at + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = n < 0 ? errno : EIO;
      *err = std::string("write ") + kFileName + ": " + strerror(e);
      errno = e;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  if (fdatasync(fd.get()) != 0) {
    const int e = errno;
    *err = std::string("fdatasync ") + kFileName + ": " + strerror(e);
    errno = e;
    return false;
  }
  return true;
}

}  // namespace chain_head
