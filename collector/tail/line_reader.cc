#include "tail/line_reader.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace line_reader {

const char* Describe(Rejection rejection) {
  switch (rejection) {
    case Rejection::kTooLong: return "line longer than the limit";
    case Rejection::kNul: return "NUL bytes";
    case Rejection::kNone: break;
  }
  return "not rejected";
}

namespace {
constexpr size_t kMinChunk = 64;
}

Reader::Reader(size_t chunk_bytes, size_t max_line_bytes)
    : buffer_(std::max(chunk_bytes, kMinChunk)),
      max_line_bytes_(max_line_bytes) {}

uint64_t Reader::PendingBytes(int fd, const Position& pos) {
  struct stat st;
  if (pos.skipping_long_line || fstat(fd, &st) != 0) return 0;
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  return size > pos.offset ? size - pos.offset : 0;
}

ReadResult Reader::Read(int fd, Position* pos, const ItemCallback& on_item, std::string* err) {
  for (;;) {
    ssize_t n = pread(fd, buffer_.data(), buffer_.size(), static_cast<off_t>(pos->offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      if (err) *err = std::string("pread: ") + strerror(errno);
      return ReadResult::kError;
    }
    if (n == 0) return ReadResult::kEndOfData;
    const size_t len = static_cast<size_t>(n);
    const char* buf = buffer_.data();
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
        item.rejection = Rejection::kNul;
        item.ends_line = false;  // the line goes on after the run (maybe just its '\n')
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
          item.rejection = Rejection::kTooLong;
        } else if (memchr(p, '\0', line_len) != nullptr) {
          item.kind = Item::Kind::kRejected;
          item.length = line_len;
          item.rejection = Rejection::kNul;
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
        item.rejection = Rejection::kTooLong;
        at += rest;
        pos->offset += rest;
        pos->skipping_long_line = true;
        item.end = pos->offset;
        if (!on_item(item)) return ReadResult::kStopped;
        continue;
      }
      // A partial line: leave it in the file; re-read from its start.
      if (at == 0) {
        if (len < buffer_.size()) return ReadResult::kEndOfData;  // nothing more complete yet
        // The buffer is full of one line that may still be within the
        // limit: grow it and read the line again.
        buffer_.resize(std::min(2 * buffer_.size(), max_line_bytes_ + 1));  // size <= max here
        break;
      }
      break;
    }
  }
}

}  // namespace line_reader
