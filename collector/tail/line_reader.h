// The collector's one line reader: every subcommand reads a file with it
// (import, validate, verify, and run for every sandbox log). It reads
// newline-terminated lines from a file at an offset, in chunks through one
// buffer that grows on demand up to the line limit, so per file the state is
// only a Position. A trailing partial line is not held in
// memory: the offset simply stays at its start, and it is read again once its
// newline has arrived. An over-long line is rejected as soon as it is known
// to be too long and skipped without ever being buffered whole; the lines
// after it are read normally (a long line never blinds the file); it is
// reported once, when its newline arrives, with its whole length. Runs of
// NUL bytes (a stale writer's hole) are rejected, never emitted, once per
// run with its whole length; a sparse hole is jumped with SEEK_DATA, inside a
// line as well as between lines. Each Read is bounded (Budget): a hostile
// file costs a turn, never the whole daemon.
#ifndef AGT_COLLECTOR_TAIL_LINE_READER_H_
#define AGT_COLLECTOR_TAIL_LINE_READER_H_

#include <stddef.h>
#include <stdint.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace line_reader {

// Where reading resumes. Both fields are persisted in the checkpoint: a
// resume inside an over-long line must keep skipping, or its tail would be
// read as a line of its own.
struct Position {
  uint64_t offset = 0;
  bool skipping_long_line = false;
  // Inside a run of NULs not yet reported (it is reported once, when it ends).
  bool in_nul_run = false;
  // Where the over-long line or NUL run being passed over began, so its
  // report gives its whole length (not the bytes known when it was found).
  uint64_t run_start = 0;
  bool operator==(const Position& o) const {
    return offset == o.offset && skipping_long_line == o.skipping_long_line &&
           in_nul_run == o.in_nul_run && run_start == o.run_start;
  }
  bool operator!=(const Position& o) const { return !(*this == o); }
};

// Why a run of bytes was not delivered as a line.
enum class Rejection {
  kNone,
  kTooLong,  // longer than the line limit
  kNul,      // holds NUL bytes (a stale writer's hole, or a sparse file's)
};
// "line longer than the limit", "NUL bytes": the words used in messages.
const char* Describe(Rejection rejection);

struct Item {
  enum class Kind { kLine, kRejected };
  Kind kind = Kind::kLine;
  uint64_t offset = 0;    // where the line (or rejected run) starts
  uint64_t end = 0;       // the position just after it: resume here
  std::string_view line;  // kLine: the bytes without '\n' (valid until the callback returns)
  // False only for a run of NULs at a line's start: the same line goes on
  // with the next item, if only its '\n' (for counting lines).
  bool ends_line = true;
  uint64_t length = 0;                     // kRejected: the whole run's bytes (without a newline)
  Rejection rejection = Rejection::kNone;  // kRejected: why
};

enum class ReadResult {
  kEndOfData,  // reached the end of what the file holds now
  kStopped,    // the callback asked to stop, or the Budget was spent
  kError,      // pread failed; *err says why
};

// Called per item, in file order; return false to stop after this item.
using ItemCallback = std::function<bool(const Item&)>;

// What one Read may spend: bytes read (a hole jumped costs nothing) and a
// monotonic deadline, checked before each chunk. The position is exact when
// it stops, so the next Read goes on from there.
struct Budget {
  uint64_t max_bytes = UINT64_MAX;
  int64_t deadline_ns = 0;  // CLOCK_MONOTONIC; 0: none
  // Keep the last kTailWindow bytes before the position as this Read saw
  // them (TailBefore): a checkpoint hashes what was read, not what the file
  // holds by the time the checkpoint is written.
  bool keep_tail = false;
};

// The bytes before a position that TailBefore gives (a checkpoint's hash window).
constexpr uint32_t kTailWindow = 4096;

// CLOCK_MONOTONIC in ns, for Budget::deadline_ns.
int64_t MonotonicNs();

class Reader {
 public:
  // Reads in chunks of chunk_bytes (at least 64); when a line is longer
  // than that, the buffer grows up to max_line_bytes + 1 for it: a generous
  // limit costs memory only when a line that long comes along. One Reader serves any number
  // of files, one after the other.
  Reader(size_t chunk_bytes, size_t max_line_bytes);

  size_t max_line_bytes() const { return max_line_bytes_; }
  // The bytes at the end of fd after *pos that no item covers yet: an
  // unterminated last line, an over-long one counted from its start.
  static uint64_t PendingBytes(int fd, const Position& pos);

  // Reads from pos->offset to the current end of fd (or until the callback
  // stops), advancing *pos past every item delivered.
  ReadResult Read(int fd, Position* pos, const ItemCallback& on_item, std::string* err,
                  const Budget& budget = Budget());

  // After a Read with keep_tail that ended at `offset`: the min(offset,
  // kTailWindow) bytes before it, as that Read saw them, *first then
  // *second (the window is a ring; no copy), valid until the next Read.
  // False otherwise.
  bool TailBefore(uint64_t offset, std::string_view* first, std::string_view* second) const;

 private:
  // The tail ring: bytes consumed by the current Read, the last kTailWindow.
  // Returns how many bytes before `offset` the caller reads with its first
  // chunk and gives to TailFill (0: read here already, or none kept).
  size_t TailReset(int fd, uint64_t offset, bool keep);
  void TailFill(const char* p, size_t n);
  void TailAppend(const char* p, size_t n);
  void TailAppendZeros(uint64_t n);
  // A hole at pos->offset (SEEK_DATA says the data resumes later): jumped,
  // counted as NULs. False when the file system says nothing or no hole is there.
  bool JumpHole(int fd, Position* pos);

  std::vector<char> buffer_;
  size_t max_line_bytes_;
  std::vector<char> tail_;  // a ring of kTailWindow bytes
  size_t tail_head_ = 0;    // where the next byte goes
  uint64_t tail_len_ = 0;   // valid bytes (<= kTailWindow)
  uint64_t tail_end_ = 0;   // the offset just after the newest byte
  bool tail_valid_ = false;
};

}  // namespace line_reader

#endif  // AGT_COLLECTOR_TAIL_LINE_READER_H_
