#include "tail/checkpoint_store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <utility>
#include <vector>

#include "hex.h"
#include "unique_fd.h"

namespace checkpoint_store {
namespace {

constexpr char kMagic[] = "agt-collector checkpoint 1\n";

std::string FileName(const std::string& key) { return key + ".checkpoint"; }

bool WriteAll(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = write(fd, s.data() + done, s.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

bool IsHex64(const std::string& s) {
  if (s.size() != 64) return false;
  for (char ch : s) {
    if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))) return false;
  }
  return true;
}

}  // namespace

bool StageFile(int state_dir_fd, const std::string& tmp, const std::string& body, bool sync_file,
               std::string* err, int64_t known_size) {
  // Overwritten in place, not truncated first: for a checkpoint, the file
  // left behind by the last swap (Publish) keeps its block, and ext4
  // neither frees and reallocates it nor flushes the file on close, as it
  // does after a truncation to 0. A longer previous body is cut after the
  // write.
  const unique_fd::UniqueFd fd(
      openat(state_dir_fd, tmp.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.ok()) {
    *err = "open " + tmp + ": " + strerror(errno);
    return false;
  }
  if (!WriteAll(fd.get(), body)) {
    *err = "write " + tmp + ": " + strerror(errno);
    return false;
  }
  if (known_size < 0) {
    struct stat st;
    if (fstat(fd.get(), &st) != 0) {
      *err = "fstat " + tmp + ": " + strerror(errno);
      return false;
    }
    known_size = st.st_size;
  }
  if (static_cast<uint64_t>(known_size) > body.size() &&
      ftruncate(fd.get(), static_cast<off_t>(body.size())) != 0) {
    *err = "truncate " + tmp + ": " + strerror(errno);
    return false;
  }
  if (sync_file && fsync(fd.get()) != 0) {
    *err = "fsync " + tmp + ": " + strerror(errno);
    return false;
  }
  return true;
}

bool ReplaceDurably(int state_dir_fd, const std::string& name, const std::string& body,
                    std::string* err) {
  return StageFile(state_dir_fd, TmpName(name), body, true, err) &&
         PublishFile(state_dir_fd, name, false, err) && SyncDirectory(state_dir_fd, err);
}

bool PublishFile(int state_dir_fd, const std::string& name, bool swap, std::string* err,
                 bool* swapped) {
  const std::string tmp = TmpName(name);
  if (swapped != nullptr) *swapped = false;
  if (swap &&
      renameat2(state_dir_fd, tmp.c_str(), state_dir_fd, name.c_str(), RENAME_EXCHANGE) == 0) {
    if (swapped != nullptr) *swapped = true;
    return true;
  }
  // Not swapped: ENOENT, the first one; EINVAL, a filesystem that cannot swap.
  if ((swap && errno != ENOENT && errno != EINVAL) ||
      renameat(state_dir_fd, tmp.c_str(), state_dir_fd, name.c_str()) != 0) {
    *err = "rename " + tmp + " -> " + name + ": " + strerror(errno);
    return false;
  }
  return true;
}

LoadResult ReadStateFile(int state_dir_fd, const std::string& name, const char* magic,
                         std::string* body, std::string* err) {
  const unique_fd::UniqueFd fd(
      openat(state_dir_fd, name.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.ok()) {
    if (errno == ENOENT) return LoadResult::kNone;
    *err = "open " + name + ": " + strerror(errno);
    return LoadResult::kError;
  }
  char buf[1024];
  const ssize_t n = read(fd.get(), buf, sizeof buf - 1);
  const int e = errno;
  if (n < 0) {
    *err = "read " + name + ": " + strerror(e);
    return LoadResult::kError;
  }
  const size_t magic_len = strlen(magic);
  // The record ends with '\n': a file cut anywhere (even just before it) is refused.
  if (static_cast<size_t>(n) < magic_len || memcmp(buf, magic, magic_len) != 0 ||
      buf[n - 1] != '\n') {
    *err = name + ": not a file of this version";
    return LoadResult::kCorrupt;
  }
  body->assign(buf + magic_len, static_cast<size_t>(n) - magic_len);
  return LoadResult::kLoaded;
}

LoadResult LoadText(int state_dir_fd, const std::string& key, std::string* text, std::string* err) {
  return ReadStateFile(state_dir_fd, FileName(key), kMagic, text, err);
}

LoadResult Load(int state_dir_fd, const std::string& key, Checkpoint* out, std::string* err) {
  std::string body;
  const LoadResult r = LoadText(state_dir_fd, key, &body, err);
  if (r != LoadResult::kLoaded) return r;
  return Parse(FileName(key), body, out, err);
}

LoadResult Parse(const std::string& name, const std::string& body, Checkpoint* out,
                 std::string* err) {
  unsigned long long dev, ino, offset;
  unsigned skipping, hash_len;
  char hex[65];
  int used = 0;
  if (sscanf(body.c_str(), "dev=%llu ino=%llu offset=%llu skipping=%u hash_len=%u sha256=%64s%n",
             &dev, &ino, &offset, &skipping, &hash_len, hex, &used) != 6 ||
      used == 0) {
    *err = name + ": malformed checkpoint";
    return LoadResult::kCorrupt;
  }
  // Fields added later, each optional: a checkpoint without them reads as before.
  unsigned long long run_start = skipping == 1 ? offset : 0;  // unknown: from here
  unsigned long long held_lines = 0, held_bytes = 0;
  long long held_since = 0;
  unsigned long long audit_dev = 0, audit_ino = 0, audit_size = 0;
  bool has_audit = false;
  long long written_ns = 0;
  std::vector<Checkpoint::Gone> gone;
  unsigned long long gone_dev = 0, gone_ino = 0, gone_offset = 0;
  const char* at = body.c_str() + used;
  for (;;) {
    int n_used = 0;
    if (sscanf(at, " run_start=%llu%n", &run_start, &n_used) == 1 && n_used > 0) {
    } else if (sscanf(at, " held=%llu,%llu,%lld%n", &held_lines, &held_bytes, &held_since,
                      &n_used) == 3 &&
               n_used > 0) {
    } else if (sscanf(at, " audit=%llu,%llu,%llu%n", &audit_dev, &audit_ino, &audit_size,
                      &n_used) == 3 &&
               n_used > 0) {
      has_audit = true;
    } else if (sscanf(at, " written=%lld%n", &written_ns, &n_used) == 1 && n_used > 0 &&
               written_ns > 0) {
    } else if (gone.size() < kGoneKept &&
               sscanf(at, " gone=%llu,%llu,%llu%n", &gone_dev, &gone_ino, &gone_offset, &n_used) ==
                   3 &&
               n_used > 0) {
      gone.push_back({{gone_dev, gone_ino}, gone_offset});
    } else {
      break;
    }
    at += n_used;
  }
  if (strcmp(at, "\n") != 0 || skipping > 2 || hash_len > kHashWindow || hash_len > offset ||
      run_start > offset || !IsHex64(hex)) {
    *err = name + ": malformed checkpoint";
    return LoadResult::kCorrupt;
  }
  out->file = {dev, ino};
  out->position.offset = offset;
  out->position.skipping_long_line = skipping == 1;
  out->position.in_nul_run = skipping == 2;
  out->position.run_start = skipping == 0 ? 0 : run_start;
  out->held = {held_lines, held_bytes, held_since};
  out->hash_len = hash_len;
  out->sha256_hex = hex;
  out->has_audit = has_audit;
  out->audit_file = {audit_dev, audit_ino};
  out->audit_size = audit_size;
  out->gone = std::move(gone);
  out->written_ns = written_ns;
  return LoadResult::kLoaded;
}

namespace {

// Appends " name=" (no space for the first) and the number: to_chars, not
// snprintf, because the commit formats every moving source's checkpoint.
template <typename Number>
void AppendField(std::string* out, std::string_view name, Number n) {
  if (!out->empty()) out->push_back(' ');
  out->append(name);
  out->push_back('=');
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof digits, n);
  out->append(digits, r.ptr);
}

template <typename Number>
void AppendNext(std::string* out, Number n) {
  out->push_back(',');
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof digits, n);
  out->append(digits, r.ptr);
}

}  // namespace

std::string Text(const Checkpoint& c) {
  // skipping: 0 at a line start, 1 inside an over-long line, 2 inside a NUL
  // run; run_start: where that line or run began (its report gives its length).
  const unsigned skipping = c.position.skipping_long_line ? 1u : c.position.in_nul_run ? 2u : 0u;
  std::string body;
  body.reserve(256 + c.sha256_hex.size());
  AppendField(&body, "dev", c.file.dev);
  AppendField(&body, "ino", c.file.ino);
  AppendField(&body, "offset", c.position.offset);
  AppendField(&body, "skipping", skipping);
  AppendField(&body, "hash_len", c.hash_len);
  body += " sha256=";
  body += c.sha256_hex;
  AppendField(&body, "run_start", skipping == 0 ? uint64_t{0} : c.position.run_start);
  AppendField(&body, "held", c.held.lines);
  AppendNext(&body, c.held.bytes);
  AppendNext(&body, static_cast<int64_t>(c.held.since));
  AppendField(&body, "audit", c.audit_file.dev);
  AppendNext(&body, c.audit_file.ino);
  AppendNext(&body, c.audit_size);
  if (c.written_ns > 0) AppendField(&body, "written", c.written_ns);
  for (size_t i = 0; i < c.gone.size() && i < kGoneKept; ++i) {
    AppendField(&body, "gone", c.gone[i].file.dev);
    AppendNext(&body, c.gone[i].file.ino);
    AppendNext(&body, c.gone[i].offset);
  }
  body += '\n';
  return body;
}

bool Stage(int state_dir_fd, const std::string& key, const Checkpoint& c, bool sync_file,
           std::string* err, FileSizes* sizes) {
  const std::string body = kMagic + Text(c);
  if (!StageFile(state_dir_fd, TmpName(FileName(key)), body, sync_file, err,
                 sizes != nullptr ? sizes->tmp : -1)) {
    if (sizes != nullptr) *sizes = FileSizes();  // a failed write leaves them unknown
    return false;
  }
  if (sizes != nullptr) sizes->tmp = static_cast<int64_t>(body.size());
  return true;
}

bool Publish(int state_dir_fd, const std::string& key, std::string* err, FileSizes* sizes) {
  // Swapped with the checkpoint it replaces, so the old one's inode is the
  // next Stage()'s: rename over it would free an inode and Stage() allocate
  // one each time, and ext4 spends most of a busy cycle looking for an
  // inode that was not recently deleted. The swap is as atomic as rename.
  bool swapped = false;
  if (!PublishFile(state_dir_fd, FileName(key), true, err, &swapped)) {
    if (sizes != nullptr) *sizes = FileSizes();
    return false;
  }
  if (sizes != nullptr) {
    // Swapped: the two sizes swap. Renamed: no .tmp left, the next Stage makes one.
    *sizes = swapped ? FileSizes{sizes->published, sizes->tmp} : FileSizes{-1, sizes->tmp};
  }
  return true;
}

bool Save(int state_dir_fd, const std::string& key, const Checkpoint& c, std::string* err) {
  return Stage(state_dir_fd, key, c, true, err) && Publish(state_dir_fd, key, err);
}

bool ListKeys(int state_dir_fd, std::vector<std::string>* keys, std::string* err) {
  keys->clear();
  unique_fd::UniqueFd fd(openat(state_dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  DIR* dir = fd.ok() ? fdopendir(fd.get()) : nullptr;
  if (dir == nullptr) {
    *err = std::string("list state directory: ") + strerror(errno);
    return false;
  }
  fd.Release();  // the DIR owns it now
  const std::string suffix = FileName("");
  while (const struct dirent* d = readdir(dir)) {
    const std::string name = d->d_name;
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      keys->push_back(name.substr(0, name.size() - suffix.size()));
    }
  }
  closedir(dir);
  return true;
}

bool SyncDirectory(int state_dir_fd, std::string* err) {
  if (fsync(state_dir_fd) != 0) {
    *err = std::string("fsync state directory: ") + strerror(errno);
    return false;
  }
  return true;
}

namespace {

// SHA-256 fetched once and one context reused, per thread: EVP_Digest with
// EVP_sha256() looks the algorithm up in the provider store and allocates
// a context at every call, which at a checkpoint per source per cycle
// costs a measurable share of the run mode's CPU.
class Sha256 {
 public:
  Sha256() : md_(EVP_MD_fetch(nullptr, "SHA256", nullptr)), ctx_(EVP_MD_CTX_new()) {}
  ~Sha256() {
    EVP_MD_CTX_free(ctx_);
    EVP_MD_free(md_);
  }
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  // Hex of the digest of first then second; "" if OpenSSL failed (an
  // allocation), which no checkpoint matches.
  std::string Hex(std::string_view first, std::string_view second) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    if (md_ == nullptr || ctx_ == nullptr || EVP_DigestInit_ex(ctx_, md_, nullptr) != 1 ||
        EVP_DigestUpdate(ctx_, first.data(), first.size()) != 1 ||
        EVP_DigestUpdate(ctx_, second.data(), second.size()) != 1 ||
        EVP_DigestFinal_ex(ctx_, md, &md_len) != 1) {
      return std::string();
    }
    return hex::Encode(md, md_len);
  }

 private:
  EVP_MD* md_;
  EVP_MD_CTX* ctx_;
};

}  // namespace

void HashBytes(std::string_view first, std::string_view second, uint32_t* hash_len,
               std::string* sha256_hex) {
  static thread_local Sha256 sha256;
  *sha256_hex = sha256.Hex(first, second);
  *hash_len = static_cast<uint32_t>(first.size() + second.size());
}

std::string Sha256Hex(std::string_view bytes) {
  uint32_t len = 0;
  std::string hex;
  HashBytes(bytes, {}, &len, &hex);
  return hex;
}

bool HashBefore(int fd, uint64_t offset, uint32_t* hash_len, std::string* sha256_hex,
                std::string* err, uint32_t window) {
  window = std::min(window, kHashWindow);
  const uint32_t len = offset < window ? static_cast<uint32_t>(offset) : window;
  char bytes[kHashWindow];  // on the stack: called at every look after a checkpoint
  size_t got = 0;
  while (got < len) {
    ssize_t n = pread(fd, bytes + got, len - got, static_cast<off_t>(offset - len + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *err = std::string("pread: ") + strerror(errno);
      return false;
    }
    if (n == 0) {
      *err = "file ends before the checkpoint offset";
      return false;
    }
    got += static_cast<size_t>(n);
  }
  HashBytes(std::string_view(bytes, len), {}, hash_len, sha256_hex);
  return true;
}

bool StillValid(int fd, const Checkpoint& c, std::string* why) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    *why = std::string("fstat: ") + strerror(errno);
    return false;
  }
  if (file_id::FileId::Of(st) != c.file) {
    *why = "a different file (device:inode " + file_id::FileId::Of(st).ToString() +
           ", checkpoint has " + c.file.ToString() + ")";
    return false;
  }
  const uint64_t offset = c.position.offset;
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size < offset) {
    *why = "truncated: size " + std::to_string(size) + " is below the checkpoint offset " +
           std::to_string(offset);
    return false;
  }
  // Either window (HashWindowAt), whichever the checkpoint was written with.
  if (c.hash_len < HashWindowAt(offset, true)) {
    *why = "its hash covers " + std::to_string(c.hash_len) + " bytes before offset " +
           std::to_string(offset) + ", fewer than any checkpoint is written with";
    return false;
  }
  uint32_t len = 0;
  std::string hex, err;
  if (!HashBefore(fd, offset, &len, &hex, &err, c.hash_len)) {
    *why = "cannot hash the bytes before offset " + std::to_string(offset) + ": " + err;
    return false;
  }
  if (len != c.hash_len || hex != c.sha256_hex) {
    *why = "rewritten: the " + std::to_string(c.hash_len) + " bytes before offset " +
           std::to_string(offset) + " changed (size now " + std::to_string(size) +
           "; copytruncate or shrink-and-regrow)";
    return false;
  }
  return true;
}

}  // namespace checkpoint_store
