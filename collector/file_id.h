// A file's identity: its device and inode (Fluent Bit's st_dev:st_ino). A
// path can name another file at any moment; this cannot, while it is open.
#ifndef AGT_COLLECTOR_FILE_ID_H_
#define AGT_COLLECTOR_FILE_ID_H_

#include <stdint.h>
#include <sys/stat.h>

#include <string>

namespace file_id {

struct FileId {
  uint64_t dev = 0;
  uint64_t ino = 0;

  static FileId Of(const struct stat& st) {
    return {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
  }
  bool operator==(const FileId& other) const { return dev == other.dev && ino == other.ino; }
  bool operator!=(const FileId& other) const { return !(*this == other); }
  // "DEV:INO", as messages show it.
  std::string ToString() const { return std::to_string(dev) + ":" + std::to_string(ino); }
};

}  // namespace file_id

#endif  // AGT_COLLECTOR_FILE_ID_H_
