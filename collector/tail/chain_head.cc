#include "tail/chain_head.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tail/checkpoint_store.h"
#include "unique_fd.h"

namespace chain_head {
namespace {

constexpr char kMagic[] = "agt-collector chain head 1\n";

bool IsHashOrEmpty(const char* s) {
  const size_t n = strlen(s);
  if (n != 0 && n != 64) return false;
  for (size_t i = 0; i < n; ++i) {
    const char c = s[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

LoadResult Load(int state_dir_fd, ChainHead* out, std::string* err) {
  const unique_fd::UniqueFd fd(openat(state_dir_fd, kFileName, O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.ok()) {
    if (errno == ENOENT) return LoadResult::kNone;
    *err = std::string("open ") + kFileName + ": " + strerror(errno);
    return LoadResult::kError;
  }
  char buf[512];
  const ssize_t n = read(fd.get(), buf, sizeof buf - 1);
  if (n < 0) {
    *err = std::string("read ") + kFileName + ": " + strerror(errno);
    return LoadResult::kError;
  }
  buf[n] = '\0';
  const size_t magic_len = sizeof kMagic - 1;
  if (static_cast<size_t>(n) < magic_len || memcmp(buf, kMagic, magic_len) != 0 ||
      buf[n - 1] != '\n') {
    *err = std::string(kFileName) + ": not a chain head of this version";
    return LoadResult::kCorrupt;
  }
  unsigned long long dev, ino, entries, size;
  char hash[65] = "";
  int used = 0;
  // "content_hash=" may be empty (no entry yet): %n marks where the value starts.
  int hash_at = 0;
  if (sscanf(buf + magic_len, "dev=%llu ino=%llu entries=%llu size=%llu content_hash=%n", &dev,
             &ino, &entries, &size, &hash_at) != 4 ||
      hash_at == 0) {
    *err = std::string(kFileName) + ": malformed chain head";
    return LoadResult::kCorrupt;
  }
  const char* rest = buf + magic_len + hash_at;
  if (sscanf(rest, "%64[0-9a-f]%n", hash, &used) != 1) used = 0;
  if (strcmp(rest + used, "\n") != 0 || !IsHashOrEmpty(hash) || (entries == 0) != (hash[0] == 0) ||
      (entries == 0 && size != 0)) {
    *err = std::string(kFileName) + ": malformed chain head";
    return LoadResult::kCorrupt;
  }
  out->file = {dev, ino};
  out->entries = entries;
  out->size = size;
  out->content_hash = hash;
  return LoadResult::kLoaded;
}

bool Save(int state_dir_fd, const ChainHead& head, std::string* err) {
  char line[256];
  snprintf(line, sizeof line, "dev=%llu ino=%llu entries=%llu size=%llu content_hash=%s\n",
           static_cast<unsigned long long>(head.file.dev),
           static_cast<unsigned long long>(head.file.ino),
           static_cast<unsigned long long>(head.entries),
           static_cast<unsigned long long>(head.size), head.content_hash.c_str());
  return checkpoint_store::ReplaceDurably(state_dir_fd, kFileName, std::string(kMagic) + line, err);
}

}  // namespace chain_head
