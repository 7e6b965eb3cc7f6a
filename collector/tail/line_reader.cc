#include "tail/line_reader.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

namespace line_reader {

Reader::Reader(char* buffer, size_t buffer_size, size_t max_line_bytes)
    : buffer_(buffer),
      buffer_size_(buffer_size),
      max_line_bytes_(max_line_bytes < buffer_size ? max_line_bytes : buffer_size - 1) {}

ReadResult Reader::Read(int fd, Position* pos, const ItemCallback& on_item, std::string* err) {
  for (;;) {
    ssize_t n = pread(fd, buffer_, buffer_size_, static_cast<off_t>(pos->offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      if (err) *err = std::string("pread: ") + strerror(errno);
      return ReadResult::kError;
    }
    if (n == 0) return ReadResult::kEndOfData;
    const size_t len = static_cast<size_t>(n);
    const char* buf = buffer_;
    size_t at = 0;  // consumed bytes of this chunk; pos->offset tracks it
    while (at < len) {
      const char* p = buf + at;
      const size_t rest = len - at;
      if (pos->skipping_long_line) {
        const char* nl = static_cast<const char*>(memchr(p, '\n', rest));
        size_t used = nl ? static_cast<size_t>(nl - p) + 1 : rest;
        at += used;
        pos->offset += used;
        if (nl) pos->skipping_long_line = false;
        continue;
      }
      if (*p == '\0') {
        // A run of NULs at a line start is its own rejected item, so the
        // record that follows the hole is still read.
        size_t run = 0;
        while (run < rest && p[run] == '\0') ++run;
        Item item;
        item.kind = Item::Kind::kRejected;
        item.offset = pos->offset;
        item.reason = "NUL bytes";
        at += run;
        pos->offset += run;
        if (at == len) {
          // The run reaches the end of the chunk: a sparse file's hole reads
          // as NULs, and a sandbox can make one terabytes long. Jump to the
          // next data instead of reading zeros.
          const off_t data = lseek(fd, static_cast<off_t>(pos->offset), SEEK_DATA);
          if (data > static_cast<off_t>(pos->offset)) {
            pos->offset = static_cast<uint64_t>(data);
          } else if (data < 0 && errno == ENXIO) {
            struct stat st;
            if (fstat(fd, &st) == 0 && static_cast<uint64_t>(st.st_size) > pos->offset) {
              pos->offset = static_cast<uint64_t>(st.st_size);  // a hole up to the end
            }
          }
        }
        item.length = pos->offset - item.offset;
        item.end = pos->offset;
        if (!on_item(item)) return ReadResult::kStopped;
        if (at == len) break;  // read on from the (possibly advanced) offset
        continue;
      }
      const char* nl = static_cast<const char*>(memchr(p, '\n', rest));
      if (nl) {
        const size_t line_len = static_cast<size_t>(nl - p);
        Item item;
        item.offset = pos->offset;
        item.end = pos->offset + line_len + 1;
        if (line_len > max_line_bytes_) {
          item.kind = Item::Kind::kRejected;
          item.length = line_len;
          item.reason = "line longer than the limit";
        } else if (memchr(p, '\0', line_len) != nullptr) {
          item.kind = Item::Kind::kRejected;
          item.length = line_len;
          item.reason = "NUL bytes";
        } else {
          item.kind = Item::Kind::kLine;
          item.line = std::string_view(p, line_len);
        }
        at += line_len + 1;
        pos->offset = item.end;
        if (!on_item(item)) return ReadResult::kStopped;
        continue;
      }
      // No newline in the rest of this chunk.
      if (rest > max_line_bytes_) {
        Item item;
        item.kind = Item::Kind::kRejected;
        item.offset = pos->offset;
        item.length = rest;
        item.reason = "line longer than the limit";
        at += rest;
        pos->offset += rest;
        pos->skipping_long_line = true;
        item.end = pos->offset;
        if (!on_item(item)) return ReadResult::kStopped;
        continue;
      }
      // A partial line: leave it in the file; re-read from its start.
      if (at == 0) return ReadResult::kEndOfData;  // nothing more complete yet
      break;
    }
  }
}

}  // namespace line_reader
