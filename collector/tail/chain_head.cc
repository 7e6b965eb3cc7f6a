#include "tail/chain_head.h"

#include <stdio.h>
#include <string.h>

#include "tail/checkpoint_store.h"

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

std::string Body(const ChainHead& head) {
  char line[256];
  snprintf(line, sizeof line, "dev=%llu ino=%llu entries=%llu size=%llu content_hash=%s\n",
           static_cast<unsigned long long>(head.file.dev),
           static_cast<unsigned long long>(head.file.ino),
           static_cast<unsigned long long>(head.entries),
           static_cast<unsigned long long>(head.size), head.content_hash.c_str());
  return std::string(kMagic) + line;
}

}  // namespace

LoadResult Load(int state_dir_fd, ChainHead* out, std::string* err) {
  std::string body;
  switch (checkpoint_store::ReadStateFile(state_dir_fd, kFileName, kMagic, &body, err)) {
    case checkpoint_store::LoadResult::kLoaded: break;
    case checkpoint_store::LoadResult::kNone: return LoadResult::kNone;
    case checkpoint_store::LoadResult::kCorrupt: return LoadResult::kCorrupt;
    case checkpoint_store::LoadResult::kError: return LoadResult::kError;
  }
  unsigned long long dev, ino, entries, size;
  char hash[65] = "";
  int used = 0;
  // "content_hash=" may be empty (no entry yet): %n marks where the value starts.
  int hash_at = 0;
  if (sscanf(body.c_str(), "dev=%llu ino=%llu entries=%llu size=%llu content_hash=%n", &dev, &ino,
             &entries, &size, &hash_at) != 4 ||
      hash_at == 0) {
    *err = std::string(kFileName) + ": malformed chain head";
    return LoadResult::kCorrupt;
  }
  const char* rest = body.c_str() + hash_at;
  if (sscanf(rest, "%64[0-9a-f]%n", hash, &used) != 1) used = 0;
  if (strcmp(rest + used, "\n") != 0 || strlen(body.c_str()) != body.size() ||
      !IsHashOrEmpty(hash) || (entries == 0) != (hash[0] == 0) || (entries == 0 && size != 0)) {
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
  return checkpoint_store::ReplaceDurably(state_dir_fd, kFileName, Body(head), err);
}

bool Stage(int state_dir_fd, const ChainHead& head, bool sync_file, std::string* err) {
  return checkpoint_store::StageFile(state_dir_fd, checkpoint_store::TmpName(kFileName), Body(head),
                                     sync_file, err);
}

bool Publish(int state_dir_fd, std::string* err) {
  return checkpoint_store::PublishFile(state_dir_fd, kFileName, false, err);
}

}  // namespace chain_head
