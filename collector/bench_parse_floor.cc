// Floors for scripts/bench-collector: the cost of the mandated components an
// import cannot go below, measured beside the import in the same run.
//   collector-bench-parse-floor LOG
// prints "parse-floor: N records in S s: R records/s (checksum C)": RapidJSON's
// SAX parse of every line, in situ on a private copy through the stream and
// with the flags record_validator.cc uses (json_insitu_stream.h), and a
// handler that does nothing but count.
//   collector-bench-parse-floor --io LOG OUT_BYTES DEST
// prints "io-floor: ...": the kernel work of an import, reading LOG in 128 KiB
// read()s and writing OUT_BYTES (the size of the audit file the import wrote)
// to the fresh file DEST in 1 MiB write()s, then fdatasync, as the import does.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/reader.h>

#include "json_insitu_stream.h"
#include "unique_fd.h"

namespace {

// CPU time (user + sys) of this process, as bench_chain.cc measures: on a
// shared machine wall time would count other processes' turns.
double Now() {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// Counts the parser's events, so the parse has an effect that is printed and
// cannot be optimised away; no validation, no output.
class CountingHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, CountingHandler> {
 public:
  bool Default() {
    ++events;
    return true;
  }
  size_t events = 0;
};

int ParseFloor(const char* path) {
  // The whole log in memory first: reading it is the I/O floor's part.
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    fprintf(stderr, "collector-bench-parse-floor: error: cannot open %s\n", path);
    return 66;
  }
  std::ostringstream text_stream;
  text_stream << in.rdbuf();
  const std::string text = text_stream.str();
  std::vector<std::string_view> lines;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    lines.emplace_back(text.data() + begin, end - begin);
    begin = end + 1;
  }

  // The same flags, private copy and stream as record_validator.cc: strings
  // decoded in place and scanned a block at a time, parsing stops at the end
  // of the object.
  constexpr unsigned kFlags = rapidjson::kParseStopWhenDoneFlag | rapidjson::kParseInsituFlag;
  rapidjson::Reader reader;
  CountingHandler handler;
  std::string copy;
  const double start = Now();
  for (size_t i = 0; i < lines.size(); ++i) {
    copy.assign(lines[i].data(), lines[i].size());
    copy.append(1 + json_insitu_stream::kReadAhead, '\0');  // the stream stops at the first NUL
    json_insitu_stream::Stream stream(&copy[0], copy.size());
    if (reader.Parse<kFlags>(stream, handler).IsError()) {
      fprintf(stderr, "collector-bench-parse-floor: error: %s: line %zu is not JSON\n", path,
              i + 1);
      return 65;
    }
  }
  const double seconds = Now() - start;
  printf("parse-floor: %zu records in %.3f s: %.0f records/s (checksum %zu)\n", lines.size(),
         seconds, static_cast<double>(lines.size()) / seconds, handler.events);
  return 0;
}

int IoFloor(const char* log_path, const char* out_bytes_arg, const char* dest) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long out_bytes = strtoull(out_bytes_arg, &end, 10);
  if (errno != 0 || end == out_bytes_arg || *end != '\0') {
    fprintf(stderr, "collector-bench-parse-floor: error: OUT_BYTES is not a number: %s\n",
            out_bytes_arg);
    return 64;
  }
  // The record count, outside the timed part: splitting lines is the
  // import's user-space work, not the kernel's.
  size_t records = 0;
  {
    std::ifstream in(log_path, std::ios::binary);
    if (!in) {
      fprintf(stderr, "collector-bench-parse-floor: error: cannot open %s\n", log_path);
      return 66;
    }
    std::string line;
    while (std::getline(in, line)) ++records;
  }

  std::vector<char> read_buffer(128 * 1024);
  // Not zeros: the kernel copies whatever the import's batch holds.
  std::vector<char> write_buffer(1 << 20, 'x');
  const double start = Now();
  const unique_fd::UniqueFd in(open(log_path, O_RDONLY | O_CLOEXEC));
  const int in_fd = in.get();
  if (in_fd < 0) {
    fprintf(stderr, "collector-bench-parse-floor: error: open %s: %s\n", log_path, strerror(errno));
    return 66;
  }
  unsigned long long read_bytes = 0;
  for (;;) {
    const ssize_t n = read(in_fd, read_buffer.data(), read_buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      fprintf(stderr, "collector-bench-parse-floor: error: read %s: %s\n", log_path,
              strerror(errno));
      return 74;
    }
    if (n == 0) break;
    read_bytes += static_cast<unsigned long long>(n);
  }
  // A fresh file opened as the audit file is (append, owner only).
  const unique_fd::UniqueFd out(
      open(dest, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
  const int out_fd = out.get();
  if (out_fd < 0) {
    fprintf(stderr, "collector-bench-parse-floor: error: open %s: %s\n", dest, strerror(errno));
    return 73;
  }
  for (unsigned long long left = out_bytes; left > 0;) {
    const size_t chunk =
        left < write_buffer.size() ? static_cast<size_t>(left) : write_buffer.size();
    const ssize_t n = write(out_fd, write_buffer.data(), chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      fprintf(stderr, "collector-bench-parse-floor: error: write %s: %s\n", dest,
              n == 0 ? "wrote nothing" : strerror(errno));
      return 74;
    }
    left -= static_cast<unsigned long long>(n);
  }
  if (fdatasync(out_fd) != 0) {
    fprintf(stderr, "collector-bench-parse-floor: error: fdatasync %s: %s\n", dest,
            strerror(errno));
    return 74;
  }
  const double seconds = Now() - start;
  printf("io-floor: %zu records in %.3f s: %.0f records/s (checksum %llu)\n", records, seconds,
         static_cast<double>(records) / seconds, read_bytes + out_bytes);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "--io") != 0) return ParseFloor(argv[1]);
  if (argc == 5 && strcmp(argv[1], "--io") == 0) return IoFloor(argv[2], argv[3], argv[4]);
  fprintf(stderr,
          "usage: collector-bench-parse-floor LOG\n"
          "       collector-bench-parse-floor --io LOG OUT_BYTES DEST\n");
  return 64;
}
