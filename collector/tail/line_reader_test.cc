#include "tail/line_reader.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tail/tail_test_util.h"

using line_reader::Item;
using line_reader::Position;
using line_reader::Reader;
using line_reader::ReadResult;

namespace {

struct Seen {
  std::vector<std::string> lines;
  std::vector<uint64_t> line_offsets;
  std::vector<std::string> rejected;  // "offset:reason"
};

ReadResult ReadAll(Reader* r, int fd, Position* pos, Seen* seen) {
  std::string err;
  return r->Read(
      fd, pos,
      [&](const Item& it) {
        if (it.kind == Item::Kind::kLine) {
          seen->lines.emplace_back(it.line);
          seen->line_offsets.push_back(it.offset);
        } else {
          seen->rejected.push_back(std::to_string(it.offset) + ":" +
                                   line_reader::Describe(it.rejection));
        }
        return true;
      },
      &err);
}

std::string GoodFile() {
  std::string s;
  for (int i = 0; i < 12; ++i) {
    s += "{\"n\":" + std::to_string(i) + ",\"pad\":\"" +
         std::string(static_cast<size_t>(i * 3), 'x') + "\"}\n";
  }
  return s;
}

// A Reader (buffer of buf_size, line limit max_line) and one file "f"
// holding `content`, open with `flags`; closed even when a REQUIRE fails.
struct ReaderOnFile {
  Reader reader;
  tail_test_util::TempDir d;
  int fd = -1;
  ReaderOnFile(size_t buf_size, size_t max_line, const std::string& content, int flags = O_RDONLY)
      : reader(buf_size, max_line) {
    d.Write("f", content);
    fd = open(d.Join("f").c_str(), flags | O_CLOEXEC);
  }
  ~ReaderOnFile() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

TEST_CASE("line_reader: every prefix of a good file, then the rest, yields each line once") {
  const std::string good = GoodFile();
  std::vector<std::string> want;
  std::vector<uint64_t> want_off;
  for (size_t s = 0; s < good.size();) {
    size_t nl = good.find('\n', s);
    want.push_back(good.substr(s, nl - s));
    want_off.push_back(s);
    s = nl + 1;
  }
  for (size_t buf_size : {64u, 65u, 97u, 4096u}) {
    Reader reader(buf_size, 63);
    for (size_t cut = 0; cut <= good.size(); ++cut) {
      tail_test_util::TempDir d;
      d.Write("f", good.substr(0, cut));
      int fd = open(d.Join("f").c_str(), O_RDONLY | O_CLOEXEC);
      REQUIRE(fd >= 0);
      Position pos;
      Seen seen;
      CHECK(ReadAll(&reader, fd, &pos, &seen) == ReadResult::kEndOfData);
      // Only complete lines, and the offset rests at the partial line's start.
      size_t complete = good.rfind('\n', cut == 0 ? 0 : cut - 1);
      uint64_t expect_offset = (cut == 0 || complete == std::string::npos) ? 0 : complete + 1;
      CHECK(pos.offset == expect_offset);
      d.Write("f", good.substr(cut), true);
      CHECK(ReadAll(&reader, fd, &pos, &seen) == ReadResult::kEndOfData);
      CHECK(seen.lines == want);
      CHECK(seen.line_offsets == want_off);
      CHECK(seen.rejected.empty());
      CHECK(pos.offset == good.size());
      close(fd);
    }
  }
}

TEST_CASE("line_reader: a long line is rejected without blinding the file") {
  const std::string longline(5000, 'A');
  const std::string content = "first\n" + longline + "\nsecond\nthird\n";
  for (size_t buf_size : {64u, 100u, 4096u, 8192u}) {
    ReaderOnFile f(buf_size, 50, content);
    Position pos;
    Seen seen;
    CHECK(ReadAll(&f.reader, f.fd, &pos, &seen) == ReadResult::kEndOfData);
    CHECK(seen.lines == std::vector<std::string>{"first", "second", "third"});
    REQUIRE(seen.rejected.size() == 1);
    CHECK(seen.rejected[0] == "6:line longer than the limit");
    CHECK(pos.offset == content.size());
    CHECK(!pos.skipping_long_line);
  }
}

TEST_CASE("line_reader: a long line still being written keeps skipping across reads") {
  ReaderOnFile f(64, 32, "ok\n" + std::string(100, 'B'));
  Position pos;
  Seen seen;
  ReadAll(&f.reader, f.fd, &pos, &seen);
  CHECK(pos.skipping_long_line);
  CHECK(pos.run_start == 3);
  CHECK(seen.rejected.empty());  // reported once, when its newline comes
  // A resume from a saved position (as after a restart) keeps skipping: the
  // tail of the long line, even if it looks like a record, is never a line.
  f.d.Write("f", std::string(50, 'B') + "{\"looks\":\"valid\"}\nafter\n", true);
  Position resumed = pos;
  Seen seen2;
  ReadAll(&f.reader, f.fd, &resumed, &seen2);
  CHECK(seen2.lines == std::vector<std::string>{"after"});
  CHECK(seen2.rejected == std::vector<std::string>{"3:line longer than the limit"});
}

TEST_CASE("line_reader: NUL runs are rejected, the lines around them kept") {
  using namespace std::string_literals;
  std::string content =
      "one\n"s + std::string(300, '\0') + "two\nbad\0line\n"s + std::string(3, '\0') + "\nthree\n"s;
  ReaderOnFile f(64, 40, content);
  Position pos;
  Seen seen;
  ReadAll(&f.reader, f.fd, &pos, &seen);
  CHECK(seen.lines == std::vector<std::string>{"one", "two", "", "three"});
  // The 300-byte run spans several 64-byte chunks: it is rejected once, with
  // its start; so are the record holding a NUL and the 3-byte run.
  CHECK(seen.rejected == std::vector<std::string>{"4:NUL bytes", "308:NUL bytes", "317:NUL bytes"});
  CHECK(pos.offset == content.size());
}

TEST_CASE("line_reader: a sparse hole is skipped, not read as terabytes of NULs") {
  ReaderOnFile f(4096, 100, "before\n", O_RDWR);
  REQUIRE(f.fd >= 0);
  const off_t hole_end = static_cast<off_t>(1) << 40;  // 1 TiB, no blocks
  REQUIRE(ftruncate(f.fd, hole_end) == 0);
  REQUIRE(pwrite(f.fd, "after\n", 6, hole_end) == 6);
  Position pos;
  Seen seen;
  CHECK(ReadAll(&f.reader, f.fd, &pos, &seen) == ReadResult::kEndOfData);
  CHECK(seen.lines == std::vector<std::string>{"before", "after"});
  REQUIRE(!seen.rejected.empty());
  CHECK(seen.rejected[0] == "7:NUL bytes");
  CHECK(seen.rejected.size() <= 3);
  CHECK(pos.offset == static_cast<uint64_t>(hole_end) + 6);
  // A hole up to the end of the file: consumed at once as well.
  REQUIRE(ftruncate(f.fd, hole_end * 2) == 0);
  Seen tail;
  CHECK(ReadAll(&f.reader, f.fd, &pos, &tail) == ReadResult::kEndOfData);
  CHECK(tail.lines.empty());
  CHECK(pos.offset == static_cast<uint64_t>(hole_end) * 2);
}

TEST_CASE("line_reader: the callback can stop; the position resumes exactly") {
  ReaderOnFile f(4096, 100, "a\nb\nc\nd\n");
  Position pos;
  std::vector<std::string> got;
  std::string err;
  for (int round = 0; round < 10; ++round) {
    int budget = 1;
    ReadResult r = f.reader.Read(
        f.fd, &pos,
        [&](const Item& it) {
          got.emplace_back(it.line);
          return --budget > 0;
        },
        &err);
    if (r == ReadResult::kEndOfData) break;
  }
  CHECK(got == std::vector<std::string>{"a", "b", "c", "d"});
}

// What import, validate and verify need from the reader (these cases came
// with them from the reader they used before): line numbers, offsets, the
// pending partial line, the buffer grown for long lines up to the limit.
namespace {

struct Numbered {
  Item::Kind kind;
  std::string text;
  uint64_t offset, length, number;
};

std::vector<Numbered> ReadNumbered(const std::string& path, size_t chunk, size_t max,
                                   uint64_t* pending) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  Reader reader(chunk, max);
  Position pos;
  std::vector<Numbered> items;
  uint64_t number = 0;
  std::string err;
  REQUIRE(reader.Read(
              fd, &pos,
              [&](const Item& it) {
                items.push_back({it.kind, std::string(it.line), it.offset, it.length, number + 1});
                if (it.ends_line) ++number;
                return true;
              },
              &err) == ReadResult::kEndOfData);
  *pending = Reader::PendingBytes(fd, pos);
  close(fd);
  return items;
}

}  // namespace

TEST_CASE("line_reader: lines with offsets and numbers; a partial last line stays pending") {
  tail_test_util::TempDir d;
  d.Write("log", "a\n\nbcd\nef");
  uint64_t pending = 0;
  const auto items = ReadNumbered(d.Join("log"), 4096, 100, &pending);
  REQUIRE(items.size() == 3);
  CHECK(items[0].text == "a");
  CHECK(items[1].text == "");
  CHECK(items[1].offset == 2);
  CHECK(items[2].text == "bcd");
  CHECK(items[2].offset == 3);
  CHECK(items[2].number == 3);
  CHECK(pending == 2);
}

TEST_CASE("line_reader: an over-long line is skipped without harming the next one") {
  tail_test_util::TempDir d;
  const std::string longline(1000000, 'x');
  d.Write("log", "ok1\n" + longline + "\nok2\n" + std::string(101, 'y') + "\n" +
                     std::string(100, 'z') + "\n");
  uint64_t pending = 0;
  const auto items = ReadNumbered(d.Join("log"), 64 * 1024, 100, &pending);
  REQUIRE(items.size() == 5);
  CHECK(items[0].text == "ok1");
  CHECK(items[1].kind == Item::Kind::kRejected);
  CHECK(items[1].offset == 4);
  CHECK(items[1].length == 1000000);  // its whole length, though never buffered whole
  CHECK(items[1].number == 2);
  CHECK(items[2].kind == Item::Kind::kLine);
  CHECK(items[2].text == "ok2");
  CHECK(items[2].offset == 4 + 1000001);
  CHECK(items[2].number == 3);
  CHECK(items[3].kind == Item::Kind::kRejected);
  CHECK(items[3].length == 101);
  CHECK(items[4].kind == Item::Kind::kLine);
  CHECK(items[4].text.size() == 100);
  CHECK(items[4].number == 5);
  CHECK(pending == 0);
}

TEST_CASE("line_reader: the buffer grows for long lines up to the limit, and no further") {
  // Lines longer than the chunk but within a large limit are read whole;
  // one past the limit is still skipped.
  tail_test_util::TempDir d;
  std::string a(3000000, 'a'), b(5000001, 'b');
  a[1234567] = 'A';
  d.Write("log", "x\n" + a + "\n" + b + "\ny\n");
  uint64_t pending = 0;
  const auto items = ReadNumbered(d.Join("log"), 64 * 1024, 5000000, &pending);
  REQUIRE(items.size() == 4);
  CHECK(items[0].text == "x");
  CHECK(items[1].kind == Item::Kind::kLine);
  CHECK(items[1].text == a);
  CHECK(items[2].kind == Item::Kind::kRejected);
  CHECK(items[2].length == 5000001);
  CHECK(items[3].text == "y");
  CHECK(items[3].offset == 2 + 3000001 + 5000002);
}

TEST_CASE("line_reader: a NUL run at a line's start does not end the line") {
  tail_test_util::TempDir d;
  d.Write("log", "a\n" + std::string(3, '\0') + "b\nc\n");
  uint64_t pending = 0;
  const auto items = ReadNumbered(d.Join("log"), 4096, 100, &pending);
  REQUIRE(items.size() == 4);
  CHECK(items[1].kind == Item::Kind::kRejected);
  CHECK(items[1].number == 2);
  CHECK(items[2].text == "b");
  CHECK(items[2].number == 2);
  CHECK(items[3].text == "c");
  CHECK(items[3].number == 3);
}

TEST_CASE("line_reader: tailing continues where the last read stopped as the file grows") {
  ReaderOnFile f(4096, 10, "par");
  const int wfd = open(f.d.Join("f").c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  REQUIRE(wfd >= 0);
  Position pos;
  Seen seen;
  CHECK(ReadAll(&f.reader, f.fd, &pos, &seen) == ReadResult::kEndOfData);
  CHECK(Reader::PendingBytes(f.fd, pos) == 3);
  REQUIRE(write(wfd, "tial\n", 5) == 5);
  CHECK(ReadAll(&f.reader, f.fd, &pos, &seen) == ReadResult::kEndOfData);
  CHECK(seen.lines == std::vector<std::string>{"partial"});
  CHECK(pos.offset == 8);
  REQUIRE(write(wfd, "0123456789abc", 13) == 13);  // too long, no newline yet
  CHECK(ReadAll(&f.reader, f.fd, &pos, &seen) == ReadResult::kEndOfData);
  CHECK(pos.skipping_long_line);
  CHECK(seen.rejected.empty());
  CHECK(Reader::PendingBytes(f.fd, pos) == 13);  // the whole unfinished line
  REQUIRE(write(wfd, "def\nok\n", 7) == 7);
  CHECK(ReadAll(&f.reader, f.fd, &pos, &seen) == ReadResult::kEndOfData);
  CHECK(seen.lines == std::vector<std::string>{"partial", "ok"});
  CHECK(seen.rejected == std::vector<std::string>{"8:line longer than the limit"});
  close(wfd);
}

namespace {

// Reads to the end in turns of `budget`; the items, with their lengths.
std::vector<Item> ReadInTurns(Reader* r, int fd, Position* pos, line_reader::Budget budget,
                              int* turns) {
  std::vector<Item> items;
  std::string err;
  *turns = 0;
  for (;;) {
    ++*turns;
    const ReadResult rr = r->Read(
        fd, pos,
        [&](const Item& it) {
          items.push_back(it);
          items.back().line = {};
          return true;
        },
        &err, budget);
    REQUIRE(rr != ReadResult::kError);
    if (rr == ReadResult::kEndOfData) return items;
  }
}

}  // namespace

TEST_CASE("line_reader: a hole inside a line is jumped; the line is reported once, whole") {
  // One byte, a 1 TiB (then 2 GiB) hole, a newline: the sandbox's cheapest stall.
  for (const uint64_t hole : {uint64_t{1} << 40, uint64_t{1} << 31}) {
    ReaderOnFile f(64 * 1024, 64 * 1024, "x", O_RDWR);
    REQUIRE(f.fd >= 0);
    REQUIRE(pwrite(f.fd, "\nafter\n", 7, static_cast<off_t>(hole)) == 7);
    Position pos;
    line_reader::Budget budget;
    budget.max_bytes = 1 << 20;
    int turns = 0;
    const std::vector<Item> items = ReadInTurns(&f.reader, f.fd, &pos, budget, &turns);
    REQUIRE(items.size() == 2);
    CHECK(items[0].kind == Item::Kind::kRejected);
    CHECK(items[0].rejection == line_reader::Rejection::kTooLong);
    CHECK(items[0].offset == 0);
    CHECK(items[0].length == hole);  // not "65537 bytes"
    CHECK(items[1].kind == Item::Kind::kLine);
    CHECK(items[1].offset == hole + 1);
    CHECK(turns <= 3);
    CHECK(pos.offset == hole + 7);
  }
}

TEST_CASE("line_reader: a NUL run read in bounded turns is reported once with its size") {
  // Written NULs (no hole to jump): read in 1 MiB turns, reported once.
  const std::string content = "a\n" + std::string(5u << 20, '\0') + "b\n";
  ReaderOnFile f(64 * 1024, 1024, content);
  Position pos;
  line_reader::Budget budget;
  budget.max_bytes = 1 << 20;
  int turns = 0;
  const std::vector<Item> items = ReadInTurns(&f.reader, f.fd, &pos, budget, &turns);
  REQUIRE(items.size() == 3);
  CHECK(items[1].kind == Item::Kind::kRejected);
  CHECK(items[1].rejection == line_reader::Rejection::kNul);
  CHECK(items[1].offset == 2);
  CHECK(items[1].length == (5u << 20));
  CHECK(turns >= 5);  // bounded: the run took several turns
  CHECK(pos.offset == content.size());
}

TEST_CASE("line_reader: a NUL run up to the end of the data is reported once, at the end") {
  ReaderOnFile f(64, 1024, "a\n" + std::string(1000, '\0'));
  Position pos;
  Seen seen;
  CHECK(ReadAll(&f.reader, f.fd, &pos, &seen) == ReadResult::kEndOfData);
  CHECK(seen.rejected == std::vector<std::string>{"2:NUL bytes"});
  CHECK(!pos.in_nul_run);
  CHECK(pos.offset == 1002);
}

TEST_CASE("line_reader: the tail window is the bytes as read, not as the file holds them now") {
  std::string content;
  for (int i = 0; i < 1000; ++i) content += "line " + std::to_string(i) + "\n";
  ReaderOnFile f(256, 100, content, O_RDWR);
  Position pos;
  Seen seen;
  line_reader::Budget budget;
  budget.keep_tail = true;
  std::string err;
  REQUIRE(f.reader.Read(
              f.fd, &pos, [](const Item&) { return true; }, &err, budget) ==
          ReadResult::kEndOfData);
  std::string tail;
  // The window's two parts, joined.
  const auto tail_before = [&](uint64_t offset, std::string* out) {
    std::string_view first, second;
    if (!f.reader.TailBefore(offset, &first, &second)) return false;
    *out = std::string(first) + std::string(second);
    return true;
  };
  REQUIRE(tail_before(pos.offset, &tail));
  CHECK(tail == content.substr(content.size() - line_reader::kTailWindow));
  // Rewritten to the same size after the read: the window still holds what was read.
  REQUIRE(pwrite(f.fd, std::string(content.size(), 'z').data(), content.size(), 0) ==
          static_cast<ssize_t>(content.size()));
  CHECK(tail_before(pos.offset, &tail));
  CHECK(tail == content.substr(content.size() - line_reader::kTailWindow));
  CHECK(!tail_before(pos.offset - 1, &tail));
  // A Read that consumes nothing still vouches for the bytes before it (read at its start).
  Position again = pos;
  REQUIRE(f.reader.Read(
              f.fd, &again, [](const Item&) { return true; }, &err, budget) ==
          ReadResult::kEndOfData);
  REQUIRE(tail_before(again.offset, &tail));
  CHECK(tail == std::string(line_reader::kTailWindow, 'z'));
}

TEST_CASE("line_reader: the window read with the first chunk is the bytes before the position") {
  // A buffer with room for the window and a chunk (the run mode's): the
  // window comes with the first chunk's pread. Lines of every length up to
  // one that fills the buffer after the window (read again from its start).
  std::string content;
  for (int i = 0; i < 600; ++i) content += std::string(static_cast<size_t>(i % 37), 'a') + "\n";
  content += std::string(16000, 'b') + "\n";  // more than the buffer holds after a window
  content += "partial";
  ReaderOnFile f(16384, 20000, content);
  line_reader::Budget budget;
  budget.keep_tail = true;
  std::string err;
  for (const uint64_t start :
       {uint64_t{0}, uint64_t{1}, uint64_t{37}, uint64_t{4096}, uint64_t{9000}, uint64_t{11000},
        uint64_t{content.size() - 7 - 16001}}) {
    Position pos;
    pos.offset = content.rfind('\n', start) == std::string::npos || start == 0
                     ? 0
                     : content.rfind('\n', start - 1) + 1;  // a line start
    const uint64_t from = pos.offset;
    std::string lines;
    REQUIRE(f.reader.Read(
                f.fd, &pos,
                [&](const Item& it) {
                  REQUIRE(it.kind == Item::Kind::kLine);
                  lines += std::string(it.line) + "\n";
                  return true;
                },
                &err, budget) == ReadResult::kEndOfData);
    CHECK(pos.offset == content.size() - 7);  // up to the partial line
    CHECK(lines == content.substr(from, pos.offset - from));
    std::string_view first, second;
    REQUIRE(f.reader.TailBefore(pos.offset, &first, &second));
    CHECK(std::string(first) + std::string(second) ==
          content.substr(pos.offset - line_reader::kTailWindow, line_reader::kTailWindow));
  }
  // A position past the end of the file (truncated under it): no lines, no window.
  Position past;
  past.offset = content.size() + 100;
  CHECK(f.reader.Read(
            f.fd, &past, [](const Item&) { return true; }, &err, budget) == ReadResult::kEndOfData);
  CHECK(past.offset == content.size() + 100);
  std::string_view first, second;
  CHECK(!f.reader.TailBefore(past.offset, &first, &second));
}
