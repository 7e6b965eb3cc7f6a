#include "tail/line_reader.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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

int64_t MonotonicNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

namespace {
constexpr size_t kMinChunk = 64;
}

Reader::Reader(size_t chunk_bytes, size_t max_line_bytes)
    : buffer_(std::max(chunk_bytes, kMinChunk)), max_line_bytes_(max_line_bytes) {}

uint64_t Reader::PendingBytes(int fd, const Position& pos) {
  struct stat st;
  if (fstat(fd, &st) != 0) return 0;
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  // An over-long line without its newline yet is pending from its start.
  const uint64_t from = pos.skipping_long_line ? pos.run_start : pos.offset;
  return size > from ? size - from : 0;
}

size_t Reader::TailReset(int fd, uint64_t offset, bool keep) {
  tail_valid_ = keep;
  tail_head_ = 0;
  tail_len_ = 0;
  tail_end_ = offset;
  if (!keep) return 0;
  tail_.resize(kTailWindow);
  // The bytes before the position, read now: with what this Read consumes
  // after them, the window is what this Read saw. Where the buffer has room
  // for them and a chunk, they come with the first chunk (TailFill): one
  // pread instead of two.
  const uint64_t want = std::min<uint64_t>(offset, kTailWindow);
  if (want > 0 && buffer_.size() >= 2 * want) return static_cast<size_t>(want);
  size_t got = 0;
  while (got < want) {
    const ssize_t n =
        pread(fd, tail_.data() + got, want - got, static_cast<off_t>(offset - want + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  if (got < want) {
    tail_valid_ = false;  // the file ends before the position: nothing to vouch for
    return 0;
  }
  tail_len_ = want;
  tail_head_ = want % kTailWindow;
  return 0;
}

void Reader::TailFill(const char* p, size_t n) {
  memcpy(tail_.data(), p, n);
  tail_len_ = n;
  tail_head_ = n % kTailWindow;
}

void Reader::TailAppend(const char* p, size_t n) {
  tail_end_ += n;
  if (!tail_valid_) return;
  if (n >= kTailWindow) {
    p += n - kTailWindow;
    n = kTailWindow;
  }
  while (n > 0) {
    const size_t room = kTailWindow - tail_head_;
    const size_t step = std::min(room, n);
    memcpy(tail_.data() + tail_head_, p, step);
    tail_head_ = (tail_head_ + step) % kTailWindow;
    p += step;
    n -= step;
    tail_len_ = std::min<uint64_t>(kTailWindow, tail_len_ + step);
  }
}

void Reader::TailAppendZeros(uint64_t n) {
  static const char kZeros[256] = {};
  tail_end_ += n;
  if (!tail_valid_) return;
  const uint64_t keep = std::min<uint64_t>(n, kTailWindow);
  tail_end_ -= keep;
  for (uint64_t done = 0; done < keep;) {
    const size_t step = static_cast<size_t>(std::min<uint64_t>(sizeof kZeros, keep - done));
    TailAppend(kZeros, step);
    done += step;
  }
}

bool Reader::TailBefore(uint64_t offset, std::string_view* first, std::string_view* second) const {
  if (!tail_valid_ || tail_end_ != offset || tail_len_ != std::min<uint64_t>(offset, kTailWindow)) {
    return false;
  }
  const size_t len = static_cast<size_t>(tail_len_);
  const size_t start = (tail_head_ + kTailWindow - len) % kTailWindow;
  const size_t first_len = std::min(len, kTailWindow - start);
  *first = std::string_view(tail_.data() + start, first_len);
  *second = std::string_view(tail_.data(), len - first_len);
  return true;
}

bool Reader::JumpHole(int fd, Position* pos) {
  const off_t from = static_cast<off_t>(pos->offset);
  const off_t data = lseek(fd, from, SEEK_DATA);
  uint64_t to = pos->offset;
  if (data > from) {
    to = static_cast<uint64_t>(data);
  } else if (data < 0 && errno == ENXIO) {
    struct stat st;
    if (fstat(fd, &st) == 0 && static_cast<uint64_t>(st.st_size) > pos->offset) {
      to = static_cast<uint64_t>(st.st_size);  // a hole up to the end
    }
  }
  // A file system that cannot say (EINVAL) or data right here: the caller
  // reads on in chunks, within its budget.
  if (to == pos->offset) return false;
  TailAppendZeros(to - pos->offset);
  pos->offset = to;
  return true;
}

ReadResult Reader::Read(int fd, Position* pos, const ItemCallback& on_item, std::string* err,
                        const Budget& budget) {
  // lead: the tail window's bytes, read with the first chunk, just before it.
  size_t lead = TailReset(fd, pos->offset, budget.keep_tail);
  uint64_t spent = 0;
  for (;;) {
    if (spent >= budget.max_bytes ||
        (budget.deadline_ns != 0 && spent > 0 && MonotonicNs() >= budget.deadline_ns)) {
      return ReadResult::kStopped;  // the rest next turn, from the exact position
    }
    ssize_t n = pread(fd, buffer_.data(), buffer_.size(), static_cast<off_t>(pos->offset - lead));
    if (n < 0) {
      if (errno == EINTR) continue;
      if (err) *err = std::string("pread: ") + strerror(errno);
      return ReadResult::kError;
    }
    const size_t skip = lead;  // bytes of this chunk before the position
    if (lead > 0) {
      if (static_cast<size_t>(n) < lead) {
        tail_valid_ = false;  // the file ends before the position: nothing to vouch for
        n = 0;
      } else {
        TailFill(buffer_.data(), lead);
        n -= static_cast<ssize_t>(lead);
      }
      lead = 0;
    }
    // Fewer bytes than asked for: the end of the data at this moment. What
    // is appended after it has its own event; no pread is spent to learn
    // that nothing follows.
    const bool short_read = skip + static_cast<size_t>(n) < buffer_.size();
    const uint64_t chunk_end = pos->offset + static_cast<uint64_t>(n);
    if (n == 0) {
      if (pos->in_nul_run) {
        // The run reaches the end of the data: reported now, once.
        Item item;
        item.kind = Item::Kind::kRejected;
        item.rejection = Rejection::kNul;
        item.ends_line = false;
        item.offset = pos->run_start;
        item.end = pos->offset;
        item.length = pos->offset - pos->run_start;
        pos->in_nul_run = false;
        if (!on_item(item)) return ReadResult::kStopped;
      }
      return ReadResult::kEndOfData;
    }
    spent += static_cast<uint64_t>(n);
    const size_t len = static_cast<size_t>(n);
    const char* buf = buffer_.data() + skip;
    size_t at = 0;  // consumed bytes of this chunk; pos->offset tracks it
    while (at < len) {
      const char* p = buf + at;
      const size_t rest = len - at;
      if (pos->skipping_long_line) {
        const char* nl = static_cast<const char*>(memchr(p, '\n', rest));
        const size_t used = nl ? static_cast<size_t>(nl - p) + 1 : rest;
        TailAppend(p, used);
        at += used;
        pos->offset += used;
        if (!nl) {
          // A hole inside the line (one byte, a terabyte of hole, a
          // newline) is jumped, not read as zeros.
          if (p[used - 1] == '\0') JumpHole(fd, pos);
          break;
        }
        pos->skipping_long_line = false;
        Item item;
        item.kind = Item::Kind::kRejected;
        item.rejection = Rejection::kTooLong;
        item.offset = pos->run_start;
        item.end = pos->offset;
        item.length = pos->offset - 1 - pos->run_start;
        if (!on_item(item)) return ReadResult::kStopped;
        continue;
      }
      if (pos->in_nul_run || *p == '\0') {
        // A run of NULs at a line start is its own rejected item, so the
        // record that follows the hole is still read; it is reported once,
        // when it ends, however many chunks and turns it spans.
        if (!pos->in_nul_run) {
          pos->in_nul_run = true;
          pos->run_start = pos->offset;
        }
        size_t run = 0;
        while (run < rest && p[run] == '\0') ++run;
        TailAppend(p, run);
        at += run;
        pos->offset += run;
        if (at == len) {
          // The run reaches the end of the chunk: a sparse file's hole reads
          // as NULs, and a sandbox can make one terabytes long.
          JumpHole(fd, pos);
          break;  // read on from the (possibly advanced) offset
        }
        pos->in_nul_run = false;
        Item item;
        item.kind = Item::Kind::kRejected;
        item.offset = pos->run_start;
        item.rejection = Rejection::kNul;
        item.ends_line = false;  // the line goes on after the run (maybe just its '\n')
        item.length = pos->offset - item.offset;
        item.end = pos->offset;
        if (!on_item(item)) return ReadResult::kStopped;
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
        TailAppend(p, line_len + 1);
        at += line_len + 1;
        pos->offset = item.end;
        if (!on_item(item)) return ReadResult::kStopped;
        continue;
      }
      // No newline in the rest of this chunk.
      if (rest > max_line_bytes_) {
        // Too long already: passed over to its newline, reported there with
        // its whole length.
        pos->skipping_long_line = true;
        pos->run_start = pos->offset;
        TailAppend(p, rest);
        at += rest;
        pos->offset += rest;
        if (p[rest - 1] == '\0') JumpHole(fd, pos);
        break;
      }
      // A partial line: leave it in the file; re-read from its start.
      if (at == 0) {
        if (short_read) return ReadResult::kEndOfData;  // nothing more complete yet
        // The buffer is full of one line that may still be within the
        // limit: grow it and read the line again (after a lead, first
        // read again from the line's start with the whole buffer).
        if (skip == 0) buffer_.resize(std::min(2 * buffer_.size(), max_line_bytes_ + 1));
        break;
      }
      break;
    }
    // Read to the end of the data (or up to a partial last line), with no
    // hole jumped past it and no NUL run waiting for its end to be reported.
    if (short_read && !pos->in_nul_run && pos->offset <= chunk_end) return ReadResult::kEndOfData;
  }
}

}  // namespace line_reader
