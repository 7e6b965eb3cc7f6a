#include "log_line_reader.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include "test_util.h"

namespace {

using log_line_reader::Line;
using log_line_reader::LineReader;
using log_line_reader::ReadResult;

struct Item {
  ReadResult result;
  std::string text;
  uint64_t offset, length, number;
};

std::vector<Item> ReadAll(const std::string& path, size_t max, uint64_t* pending) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  LineReader reader(fd, 0, max);
  std::vector<Item> items;
  Line line;
  std::string err;
  for (;;) {
    const ReadResult r = reader.Next(&line, &err);
    REQUIRE(r != ReadResult::kError);
    if (r == ReadResult::kEof) break;
    items.push_back({r, std::string(line.text), line.offset, line.length, line.number});
  }
  *pending = reader.pending_bytes();
  close(fd);
  return items;
}

}  // namespace

TEST_CASE("lines with offsets and numbers; a partial last line stays pending") {
  test_util::TempDir dir;
  test_util::WriteFile(dir / "log", "a\n\nbcd\nef");
  uint64_t pending = 0;
  const auto items = ReadAll(dir / "log", 100, &pending);
  REQUIRE(items.size() == 3);
  CHECK(items[0].text == "a");
  CHECK(items[1].text == "");
  CHECK(items[1].offset == 2);
  CHECK(items[2].text == "bcd");
  CHECK(items[2].offset == 3);
  CHECK(items[2].number == 3);
  CHECK(pending == 2);
}

TEST_CASE("an over-long line is skipped without harming the next one") {
  test_util::TempDir dir;
  const std::string longline(1000000, 'x');
  test_util::WriteFile(dir / "log", "ok1\n" + longline + "\nok2\n" + std::string(101, 'y') + "\n" +
                                       std::string(100, 'z') + "\n");
  uint64_t pending = 0;
  const auto items = ReadAll(dir / "log", 100, &pending);
  REQUIRE(items.size() == 5);
  CHECK(items[0].text == "ok1");
  CHECK(items[1].result == ReadResult::kTooLong);
  CHECK(items[1].offset == 4);
  CHECK(items[1].length == 1000000);
  CHECK(items[1].number == 2);
  CHECK(items[2].result == ReadResult::kLine);
  CHECK(items[2].text == "ok2");
  CHECK(items[2].offset == 4 + 1000001);
  CHECK(items[3].result == ReadResult::kTooLong);
  CHECK(items[3].length == 101);
  CHECK(items[4].result == ReadResult::kLine);
  CHECK(items[4].text.size() == 100);
  CHECK(pending == 0);
}

TEST_CASE("the buffer grows for long lines up to the limit, and no further") {
  // Lines longer than the initial buffer but within a large limit are read
  // whole; one past the limit is still skipped.
  test_util::TempDir dir;
  std::string a(3000000, 'a'), b(5000001, 'b');
  a[1234567] = 'A';
  test_util::WriteFile(dir / "log", "x\n" + a + "\n" + b + "\ny\n");
  uint64_t pending = 0;
  const auto items = ReadAll(dir / "log", 5000000, &pending);
  REQUIRE(items.size() == 4);
  CHECK(items[0].text == "x");
  CHECK(items[1].result == ReadResult::kLine);
  CHECK(items[1].text == a);
  CHECK(items[2].result == ReadResult::kTooLong);
  CHECK(items[2].length == 5000001);
  CHECK(items[3].text == "y");
  CHECK(items[3].offset == 2 + 3000001 + 5000002);
}

TEST_CASE("tailing: Next continues after kEof when the file grows") {
  test_util::TempDir dir;
  const std::string path = dir / "log";
  test_util::WriteFile(path, "par");
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  const int wfd = open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(wfd >= 0);
  LineReader reader(fd, 0, 10);
  Line line;
  std::string err;
  CHECK(reader.Next(&line, &err) == ReadResult::kEof);
  CHECK(reader.pending_bytes() == 3);
  REQUIRE(write(wfd, "tial\n", 5) == 5);
  REQUIRE(reader.Next(&line, &err) == ReadResult::kLine);
  CHECK(line.text == "partial");
  CHECK(reader.consumed_offset() == 8);
  REQUIRE(write(wfd, "0123456789abc", 13) == 13);  // too long, no newline yet
  CHECK(reader.Next(&line, &err) == ReadResult::kEof);
  CHECK(reader.skipping());
  REQUIRE(write(wfd, "def\nok\n", 7) == 7);
  REQUIRE(reader.Next(&line, &err) == ReadResult::kTooLong);
  CHECK(line.length == 16);
  CHECK(line.offset == 8);
  REQUIRE(reader.Next(&line, &err) == ReadResult::kLine);
  CHECK(line.text == "ok");
  close(fd);
  close(wfd);
}
