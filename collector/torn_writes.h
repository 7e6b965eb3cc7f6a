// A receiver killed -9 while writing an entry leaves the entry's first bytes
// without a newline (the kernel stops a write at a page boundary once the
// signal is pending), and the restarted receiver appends the next message to
// them: one line holding a fragment and then a whole entry. The fragment's
// entry was never acknowledged, so the forwarder sends it again; it is lost
// only if no whole entry after the fragment begins with the fragment's bytes.
//
// TornWrites keeps the fragments a rebuilt file's check has split off until
// such an entry arrives (verify --drop-duplicates, audit_verifier.cc).
#ifndef AGT_COLLECTOR_TORN_WRITES_H_
#define AGT_COLLECTOR_TORN_WRITES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace torn_writes {

// How every entry line this project and upstream write begins (keys sorted,
// "action" first): where the whole entry after a fragment may start. Inside
// a JSON string a quote is escaped, so the text appears only where an object
// with that first key begins.
inline constexpr std::string_view kEntryOpening = "{\"action\": \"";

// The most split points tried on one line (each is one check of the rest of
// the line), and the most fragments waiting at once: beyond them the line is
// a break, so a hostile file costs bounded time and memory.
inline constexpr size_t kMaxSplitsTried = 16;
inline constexpr size_t kMaxPending = 64;

// Where a whole entry may start after a fragment: the offsets (> 0) of
// kEntryOpening in `line`, at most kMaxSplitsTried, first to last.
std::vector<size_t> SplitPoints(std::string_view line);

class Pending {
 public:
  // A fragment split off line `line_number` (1-based), which starts at
  // byte `offset` of the file. False when kMaxPending are already waiting.
  bool Add(std::string_view fragment, uint64_t line_number, uint64_t offset);
  // A whole entry was read: the fragments it begins with are settled.
  void Settle(std::string_view entry_line);

  bool empty() const { return waiting_.empty(); }
  bool full() const { return waiting_.size() >= kMaxPending; }
  uint64_t settled() const { return settled_; }

  struct Fragment {
    std::string bytes;
    uint64_t line_number;
    uint64_t offset;
  };
  // The earliest fragment still waiting (only when !empty()).
  const Fragment& first() const { return waiting_.front(); }

 private:
  std::vector<Fragment> waiting_;  // in file order
  uint64_t settled_ = 0;
};

}  // namespace torn_writes

#endif  // AGT_COLLECTOR_TORN_WRITES_H_
