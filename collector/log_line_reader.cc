#include "log_line_reader.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>

namespace log_line_reader {

namespace {
constexpr size_t kReadChunk = 64 * 1024;
constexpr size_t kInitialBuffer = 256 * 1024;
}

LineReader::LineReader(int fd, uint64_t start_offset, size_t max_line_bytes)
    : fd_(fd),
      max_line_bytes_(max_line_bytes),
      // Grown on demand up to max_line_bytes + 1 + kReadChunk: a generous
      // limit costs memory only when a line that long comes along.
      buffer_(std::min(max_line_bytes + 1 + kReadChunk, kInitialBuffer)),
      consumed_offset_(start_offset) {}

uint64_t LineReader::pending_bytes() const {
  return (skipping_ ? skip_length_ : 0) + (end_ - begin_);
}

ReadResult LineReader::Next(Line* line, std::string* err) {
  for (;;) {
    char* const base = buffer_.data();
    if (!skipping_) {
      const char* nl = static_cast<const char*>(
          memchr(base + begin_ + scan_, '\n', end_ - begin_ - scan_));
      if (nl != nullptr) {
        const size_t len = static_cast<size_t>(nl - (base + begin_));
        line->offset = consumed_offset_;
        line->length = len;
        line->number = ++line_number_;
        const bool too_long = len > max_line_bytes_;
        line->text = too_long ? std::string_view() : std::string_view(base + begin_, len);
        begin_ += len + 1;
        consumed_offset_ += len + 1;
        scan_ = 0;
        return too_long ? ReadResult::kTooLong : ReadResult::kLine;
      }
      scan_ = end_ - begin_;
      if (scan_ > max_line_bytes_) {
        // Known to be too long: stop buffering it and skip to its newline.
        skipping_ = true;
        skip_start_ = consumed_offset_;
        skip_length_ = scan_;
        begin_ = end_ = scan_ = 0;
      }
    } else {
      const char* nl = static_cast<const char*>(memchr(base + begin_, '\n', end_ - begin_));
      if (nl != nullptr) {
        const size_t len = static_cast<size_t>(nl - (base + begin_));
        skip_length_ += len;
        begin_ += len + 1;
        line->text = std::string_view();
        line->offset = skip_start_;
        line->length = skip_length_;
        line->number = ++line_number_;
        consumed_offset_ = skip_start_ + skip_length_ + 1;
        skipping_ = false;
        skip_length_ = 0;
        scan_ = 0;
        return ReadResult::kTooLong;
      }
      skip_length_ += end_ - begin_;
      begin_ = end_ = 0;
    }
    // Need more bytes: move the partial line to the front, then read.
    if (begin_ > 0) {
      memmove(base, base + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    const size_t full = max_line_bytes_ + 1 + kReadChunk;
    if (buffer_.size() - end_ < kReadChunk && buffer_.size() < full) {
      buffer_.resize(std::min(full, 2 * buffer_.size()));
    }
    ssize_t n;
    do {
      n = read(fd_, buffer_.data() + end_, buffer_.size() - end_);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      *err = std::string("read: ") + strerror(errno);
      return ReadResult::kError;
    }
    if (n == 0) return ReadResult::kEof;
    end_ += static_cast<size_t>(n);
  }
}

}  // namespace log_line_reader
