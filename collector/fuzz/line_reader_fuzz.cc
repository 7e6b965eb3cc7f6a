// libFuzzer harness: tail/line_reader across read-boundary splits. The input
// drives a file that grows by appends of any size, read after each append
// with any buffer size, stopped after any number of items, and resumed from
// the saved Position (as a checkpoint resumes it). Property: whatever the
// splits, the lines delivered are exactly those of a one-pass reading of the
// final file (same offsets, same bytes), nothing but the tail of an
// over-long line is passed over without an item, and the final position
// matches the one-pass reading too.
#include <fuzzer/FuzzedDataProvider.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "tail/line_reader.h"

namespace {

struct Line {
  uint64_t offset;
  std::string bytes;
  bool operator==(const Line& o) const { return offset == o.offset && bytes == o.bytes; }
};

// The reference: the whole file in one pass, by the rules line_reader.h
// states (NUL runs at a line start and lines with a NUL are rejected; a line
// longer than the limit is rejected with or without its newline; a short
// partial line waits).
std::vector<Line> ReferenceLines(const std::string& file, size_t max_line,
                                 line_reader::Position* end) {
  std::vector<Line> lines;
  size_t at = 0;
  *end = line_reader::Position();
  while (at < file.size()) {
    if (file[at] == '\0') {
      ++at;
      continue;
    }
    const size_t nl = file.find('\n', at);
    if (nl == std::string::npos) {
      if (file.size() - at > max_line) {
        end->skipping_long_line = true;
        at = file.size();
      }
      break;
    }
    const std::string line = file.substr(at, nl - at);
    if (line.size() <= max_line && line.find('\0') == std::string::npos) {
      lines.push_back({at, line});
    }
    at = nl + 1;
  }
  end->offset = at;
  return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  // Limits above and below the reader's smallest chunk (64 bytes), so lines
  // that make its buffer grow are read too.
  const size_t max_line = in.ConsumeIntegralInRange<size_t>(1, 160);
  // One file for every input, emptied each time (a memfd per input would
  // cost more than the reading).
  static const int fd = memfd_create("line_reader_fuzz", MFD_CLOEXEC);
  FUZZ_CHECK(fd >= 0 && ftruncate(fd, 0) == 0);

  std::string file;
  std::vector<Line> got;
  line_reader::Position pos;
  uint64_t expected_next = 0;  // items are contiguous: each starts where the last ended
  auto read_once = [&](size_t chunk_bytes, size_t budget) {
    line_reader::Reader reader(chunk_bytes, max_line);
    size_t delivered = 0;
    std::string err;
    const line_reader::ReadResult result = reader.Read(
        fd, &pos,
        [&](const line_reader::Item& item) {
          // The only bytes passed over without an item are the rest of an
          // over-long line, up to and including its newline.
          FUZZ_CHECK(item.offset >= expected_next);
          const std::string gap = file.substr(expected_next, item.offset - expected_next);
          FUZZ_CHECK(gap.find('\n') == std::string::npos || gap.find('\n') == gap.size() - 1);
          FUZZ_CHECK(item.end > item.offset && item.end <= file.size());
          expected_next = item.end;
          if (item.kind == line_reader::Item::Kind::kLine) {
            FUZZ_CHECK(item.line.size() <= max_line);
            FUZZ_CHECK(item.end == item.offset + item.line.size() + 1);
            got.push_back({item.offset, std::string(item.line)});
          } else {
            FUZZ_CHECK(item.rejection != line_reader::Rejection::kNone);
            FUZZ_CHECK(line_reader::Describe(item.rejection)[0] != '\0');
          }
          return budget == 0 || ++delivered < budget;
        },
        &err);
    FUZZ_CHECK(result != line_reader::ReadResult::kError);
    FUZZ_CHECK(pos.offset >= expected_next && pos.offset <= file.size());
    return result;
  };

  while (in.remaining_bytes() > 0) {
    const std::string piece = in.ConsumeBytesAsString(in.ConsumeIntegralInRange<size_t>(0, 96));
    FUZZ_CHECK(pwrite(fd, piece.data(), piece.size(), static_cast<off_t>(file.size())) ==
               static_cast<ssize_t>(piece.size()));
    file += piece;
    const size_t chunk_bytes = in.ConsumeIntegralInRange<size_t>(1, 200);
    read_once(chunk_bytes, in.ConsumeIntegralInRange<size_t>(0, 3));
  }
  // Drain what is left, then compare with the one-pass reading.
  while (read_once(max_line + 1, 0) != line_reader::ReadResult::kEndOfData) {
  }
  line_reader::Position want_end;
  const std::vector<Line> want = ReferenceLines(file, max_line, &want_end);
  FUZZ_CHECK(got == want);
  FUZZ_CHECK(pos.offset == want_end.offset);
  FUZZ_CHECK(pos.skipping_long_line == want_end.skipping_long_line);
  return 0;
}
