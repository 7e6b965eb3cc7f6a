// Reads '\n'-terminated lines sequentially from a file descriptor (import,
// validate, verify) with a buffer that grows up to the line limit.
// An over-long line is never buffered whole: it is discarded up to its
// newline and reported with its offset and length, and reading goes on with
// the next line (a long line must not blind the file).
#ifndef AGT_COLLECTOR_LOG_LINE_READER_H_
#define AGT_COLLECTOR_LOG_LINE_READER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace log_line_reader {

enum class ReadResult {
  kLine,     // *line is a complete line (without '\n')
  kTooLong,  // a line longer than max_line_bytes was skipped; see Line
  kEof,      // no complete line for now; pending_bytes() may hold a partial one
  kError,    // read(2) failed; *err says why
};

struct Line {
  std::string_view text;   // valid until the next Next() call; empty for kTooLong
  uint64_t offset = 0;     // file offset of the line's first byte
  uint64_t length = 0;     // bytes excluding '\n'
  uint64_t number = 0;     // 1-based line number counted from the start offset
};

class LineReader {
 public:
  // Reads `fd` (not owned) from its current position, which is file offset
  // `start_offset`; line numbers count from 1 there.
  LineReader(int fd, uint64_t start_offset, size_t max_line_bytes);

  // After kEof, call again later to continue (tailing): the partial line and
  // any in-progress skip of a long line are kept.
  ReadResult Next(Line* line, std::string* err);

  // Bytes of an unterminated line held (or being skipped) at kEof.
  uint64_t pending_bytes() const;
  // Offset just past the last line returned (kLine/kTooLong): a safe resume point.
  uint64_t consumed_offset() const { return consumed_offset_; }
  bool skipping() const { return skipping_; }

 private:
  int fd_;
  size_t max_line_bytes_;
  std::vector<char> buffer_;
  size_t begin_ = 0;  // first unconsumed byte in buffer_
  size_t end_ = 0;    // one past the last valid byte
  size_t scan_ = 0;   // bytes from begin_ already known to hold no '\n'
  uint64_t consumed_offset_;
  uint64_t line_number_ = 0;
  bool skipping_ = false;       // discarding an over-long line
  uint64_t skip_start_ = 0;     // its offset
  uint64_t skip_length_ = 0;    // bytes discarded so far
};

}  // namespace log_line_reader

#endif  // AGT_COLLECTOR_LOG_LINE_READER_H_
