// Reads newline-terminated lines from a file at an offset, in fixed chunks
// through one caller-owned buffer. A trailing partial line is not held in
// memory: the offset simply stays at its start, and it is read again once its
// newline has arrived. An over-long line is rejected as soon as it is known
// to be too long and skipped without ever being buffered whole; the lines
// after it are read normally (a long line never blinds the file). Runs of
// NUL bytes (a stale writer's hole) are rejected, never emitted.
#ifndef AGT_COLLECTOR_TAIL_LINE_READER_H_
#define AGT_COLLECTOR_TAIL_LINE_READER_H_

#include <stddef.h>
#include <stdint.h>

#include <functional>
#include <string>
#include <string_view>

namespace line_reader {

// Where reading resumes. Both fields are persisted in the checkpoint: a
// resume inside an over-long line must keep skipping, or its tail would be
// read as a line of its own.
struct Position {
  uint64_t offset = 0;
  bool skipping_long_line = false;
};

struct Item {
  enum class Kind { kLine, kRejected };
  Kind kind = Kind::kLine;
  uint64_t offset = 0;    // where the line (or rejected run) starts
  uint64_t end = 0;       // the position just after it: resume here
  std::string_view line;  // kLine: the bytes without '\n' (valid until the callback returns)
  uint64_t length = 0;    // kRejected: bytes known so far
  const char* reason = nullptr;  // kRejected
};

enum class ReadResult {
  kEndOfData,  // reached the end of what the file holds now
  kStopped,    // the callback asked to stop (budget)
  kError,      // pread failed; *err says why
};

// Called per item, in file order; return false to stop after this item.
using ItemCallback = std::function<bool(const Item&)>;

class Reader {
 public:
  // buffer must hold at least max_line_bytes + 1 bytes; it is shared by all
  // files, so the per-file state is just a Position.
  Reader(char* buffer, size_t buffer_size, size_t max_line_bytes);

  size_t max_line_bytes() const { return max_line_bytes_; }

  // Reads from pos->offset to the current end of fd (or until the callback
  // stops), advancing *pos past every item delivered.
  ReadResult Read(int fd, Position* pos, const ItemCallback& on_item, std::string* err);

 private:
  char* buffer_;
  size_t buffer_size_;
  size_t max_line_bytes_;
};

}  // namespace line_reader

#endif  // AGT_COLLECTOR_TAIL_LINE_READER_H_
