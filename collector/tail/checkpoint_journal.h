// The run mode's checkpoints as one append-only file in the state directory,
// so that a commit costs one fdatasync (and one write up to 64 KiB) however
// many sources moved, where one KEY.checkpoint per source costs a write, a
// rename and a share of a syncfs each.
//
// checkpoints.journal holds a header line, then frames:
//
//   agt-collector checkpoint journal 1\n
//   frame LEN SHA256\n PAYLOAD          (LEN bytes, SHA256: hex of PAYLOAD)
//   frame LEN SHA256\n PAYLOAD
//   ...
//
// A payload is one line per checkpoint, "KEY TEXT", TEXT being what
// checkpoint_store::Text writes (it ends in '\n'). A later frame's line for
// a key replaces an earlier one's. A frame is appended (in one write up to
// 64 KiB) and made durable with one fdatasync, so a crash can leave only
// the last frame
// cut short (or, before the fdatasync returned, not all of it on disk):
// that frame's commit never completed, and loading ignores it, which gives
// the state as it was before it. A frame that fails its hash with frames
// after it is damage, not a crash: loading refuses it.
//
// The journal is rewritten (compacted) when it has grown well past the
// state it holds: checkpoints.journal.tmp gets the header and one frame
// with every checkpoint, is fsynced, renamed over the journal, and the
// directory fsynced. A crash at any step leaves either journal, whole.
//
// A state directory from before the journal holds one KEY.checkpoint per
// source: loading reads those first and the journal over them, so an
// upgrade neither replays nor skips anything. They are never written again.
#ifndef AGT_COLLECTOR_TAIL_CHECKPOINT_JOURNAL_H_
#define AGT_COLLECTOR_TAIL_CHECKPOINT_JOURNAL_H_

#include <stddef.h>
#include <stdint.h>

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "unique_fd.h"

namespace checkpoint_journal {

constexpr char kFileName[] = "checkpoints.journal";
constexpr char kHeader[] = "agt-collector checkpoint journal 1\n";
// A frame longer than this is refused as damage, not allocated.
constexpr uint64_t kMaxFrameBytes = 64ull << 20;
// Compaction once the journal is past both: this size, and this many times
// the state it holds.
constexpr uint64_t kCompactAtLeastBytes = 4ull << 20;
constexpr uint64_t kCompactAtStateMultiple = 4;

// Every source's checkpoint text by key (sorted: a compaction writes them
// in a stable order).
using State = std::map<std::string, std::string>;

enum class LoadResult { kLoaded, kNone, kCorrupt, kError };

// What Load found of the journal file itself.
struct Found {
  bool exists = false;
  uint64_t good_end = 0;   // the end of the header and the last whole frame
  uint64_t file_size = 0;  // past good_end: a frame cut short, ignored
  // KEY.checkpoint files that are not checkpoints and that the journal
  // names no newer checkpoint for, with why: as before the journal, that
  // source alone is read from its start (with a warning).
  std::map<std::string, std::string> unusable;
};

// Reads every KEY.checkpoint (an older version's), then the journal over
// them, into *state. kNone: neither exists. kCorrupt (*err names the file
// and the offset): a damaged frame or line that is not the last frame, or
// a KEY.checkpoint that is not one. Reading while `run` appends is safe: a
// frame being written is the last one, and ignored.
LoadResult Load(int state_dir_fd, State* state, Found* found, std::string* err);

// A frame built in one buffer as its entries come (key, text: the key a
// source name, [A-Za-z0-9._-]; text ends in '\n' and holds no other), its
// line put in front and its hash filled in last: thousands of checkpoints
// are neither gathered first nor copied on their way to the write.
class FrameBuilder {
 public:
  FrameBuilder();
  // Room for `entries` of up to `entry_bytes` each, so that the buffer is
  // not grown (and copied, the old one held meanwhile) as they come.
  void Reserve(size_t entries, size_t entry_bytes);
  void Add(std::string_view key, std::string_view text);
  bool empty() const { return buf_.size() == kLineRoom; }
  // The frame; the builder is spent.
  std::string Finish();

 private:
  static constexpr size_t kLineRoom = 128;  // room for the frame line
  std::string buf_;
};

// Bytes an entry takes in a frame: what a compaction would write for it.
inline uint64_t EntryBytes(std::string_view key, std::string_view text) {
  return key.size() + 1 + text.size();
}

// The one writer of the journal (the run mode). Not thread-safe: its owner
// hands it to one thread at a time.
class Writer {
 public:
  // Opens the journal for appending, as Load found it: a frame cut short
  // past found.good_end is cut off first (made durable: a frame appended
  // after it must never follow the cut one), a missing or empty journal is
  // created with its header (and the directory fsynced).
  bool Open(int state_dir_fd, const Found& found, std::string* err);
  bool is_open() const { return fd_.ok(); }

  // Whether the journal has grown past what `state_bytes` (the sum of
  // EntryBytes over the state) warrants.
  bool ShouldCompact(uint64_t state_bytes) const;
  // Replaces the journal by one holding the state (see above) as `frame`,
  // its one frame (FrameBuilder::Finish; empty for no checkpoint), and
  // appends to that one from then on.
  bool CompactTo(const std::string& frame, std::string* err);

  // Appends one frame of entries and fdatasyncs it. The frame is never held
  // whole: `each` is called twice and gives the same entries (key, text) to
  // `add` each time; the first pass hashes and counts them, the second
  // writes them through a small buffer (several writes, each continued; the
  // frame is whole only once the last is, as a crash may cut any write
  // short). At 10,000 sources a frame is megabytes, written every cycle.
  // A failed write is cut back off the file, so the next append does not
  // follow a frame cut short; *error_number is the failed call's errno.
  using EntrySink = std::function<void(std::string_view key, std::string_view text)>;
  bool AppendEntries(const std::function<void(const EntrySink& add)>& each, std::string* err,
                     int* error_number = nullptr);

  uint64_t size() const { return size_; }

 private:
  bool Create(std::string* err);
  // The end of an append: a failed write (write_errno) is cut back off the
  // file, else the frame's bytes are counted and fdatasynced.
  bool EndAppend(int write_errno, uint64_t frame_bytes, std::string* err, int* error_number);
  // *err "WHAT checkpoints.journal: ERROR", *error_number = error; false.
  static bool Failed(const char* what, int error, std::string* err, int* error_number);

  int dir_fd_ = -1;
  unique_fd::UniqueFd fd_;
  uint64_t size_ = 0;
  bool broken_ = false;  // a failed append could not be cut back: no more appends
};

}  // namespace checkpoint_journal

#endif  // AGT_COLLECTOR_TAIL_CHECKPOINT_JOURNAL_H_
