#include "denied_log.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "temp_dir_test_support.h"

namespace {

std::string ReadFile(const std::string& path) {
  std::string text;
  int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return "<missing>";
  char chunk[4096];
  ssize_t n;
  while ((n = read(fd, chunk, sizeof chunk)) > 0) text.append(chunk, static_cast<std::size_t>(n));
  close(fd);
  return text;
}

struct Outcome {
  bool ok;
  std::string warning;
};

Outcome AppendTo(const std::string& path, std::string_view text = "{\"a\":1}\n") {
  char storage[denied_log::kMaxWarningSize];
  fixed_buffer::Buffer warning(storage, sizeof storage);
  // Append may put a newline in the byte before the line.
  std::string line = "?" + std::string(text);
  bool ok = denied_log::Append(path.c_str(), std::string_view(line).substr(1), &warning);
  return Outcome{ok, std::string(warning.view())};
}

void WriteFile(const std::string& path, const std::string& text, mode_t mode) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, mode);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  close(fd);
  chmod(path.c_str(), mode);
}

}  // namespace

TEST_CASE("a new log is created 0600 and appended to") {
  TempDir dir;
  std::string log = dir.path + "/denied.log";
  CHECK(AppendTo(log).ok);
  CHECK(AppendTo(log).ok);
  CHECK(ReadFile(log) == "{\"a\":1}\n{\"a\":1}\n");
  struct stat st;
  REQUIRE(stat(log.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
}

TEST_CASE("a symlink is refused and its target untouched") {
  TempDir dir;
  std::string target = dir.path + "/target";
  std::string link = dir.path + "/denied.log";
  REQUIRE(symlink(target.c_str(), link.c_str()) == 0);
  Outcome o = AppendTo(link);
  CHECK_FALSE(o.ok);
  CHECK(o.warning.rfind("agt-sandbox: warning: could not write AGT_DENIED_LOG: openat \"", 0) == 0);
  CHECK(o.warning.find("symbolic link") != std::string::npos);
  CHECK(ReadFile(target) == "<missing>");
}

TEST_CASE("a FIFO without a reader fails at once") {
  // Opened read-write (for the last-byte check), a FIFO opens without
  // blocking and is then refused as not a regular file.
  TempDir dir;
  std::string fifo = dir.path + "/denied.log";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  Outcome o = AppendTo(fifo);
  CHECK_FALSE(o.ok);
  CHECK(o.warning.find("a FIFO, not a regular file") != std::string::npos);
}

TEST_CASE("a FIFO with a reader is not a regular file") {
  TempDir dir;
  std::string fifo = dir.path + "/denied.log";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(reader >= 0);
  Outcome o = AppendTo(fifo);
  CHECK_FALSE(o.ok);
  CHECK(o.warning.find("a FIFO, not a regular file") != std::string::npos);
  char c;
  CHECK(read(reader, &c, 1) <= 0);  // nothing was written
  close(reader);
}

TEST_CASE("a directory, a device and a missing directory") {
  TempDir dir;
  CHECK(AppendTo(dir.path).warning.find("Is a directory") != std::string::npos);
  Outcome dev = AppendTo("/dev/null");
  CHECK_FALSE(dev.ok);
  CHECK(dev.warning.find("a character device, not a regular file") != std::string::npos);
  CHECK(AppendTo(dir.path + "/missing/denied.log").warning.find("No such file or directory") !=
        std::string::npos);
}

TEST_CASE("the warning is one line and shows a hostile path escaped") {
  TempDir dir;
  Outcome o = AppendTo(dir.path + "/no\ndir\x01/" + std::string(400, 'x'));
  CHECK_FALSE(o.ok);
  CHECK(o.warning.size() <= denied_log::kMaxWarningSize);
  CHECK(o.warning.find('\n') == o.warning.size() - 1);
  CHECK(o.warning.find("\\u000a") != std::string::npos);
  CHECK(o.warning.find("...[truncated]") != std::string::npos);
}

TEST_CASE("a secret in the path is redacted in the warning, even past the cut") {
  TempDir dir;
  Outcome o = AppendTo(dir.path + "/missing/AKIAIOSFODNN7EXAMPLE/" + std::string(200, 'x') +
                       "/ghp_abcdefghijklmnopqrstuvwxyz0123456789");
  CHECK_FALSE(o.ok);
  CHECK(o.warning.find("[REDACTED]") != std::string::npos);
  CHECK(o.warning.find("AKIAIOSFODNN7EXAMPLE") == std::string::npos);
  CHECK(o.warning.find("ghp_") == std::string::npos);
}

TEST_CASE("no descriptor is left open, written or refused") {
  TempDir dir;
  std::string log = dir.path + "/denied.log";
  REQUIRE(mkfifo((dir.path + "/fifo").c_str(), 0600) == 0);
  REQUIRE(mkdir((dir.path + "/dir").c_str(), 0700) == 0);
  // The next free descriptor before and after: equal when Append closed its own.
  int before = dup(0);
  REQUIRE(before >= 0);
  close(before);
  const std::string paths[] = {log, "/dev/null", dir.path + "/fifo", dir.path + "/dir",
                               dir.path + "/missing/x"};
  for (const std::string& path : paths) {
    AppendTo(path);
    int after = dup(0);
    REQUIRE(after >= 0);
    close(after);
    CHECK_MESSAGE(after == before, path);
  }
}

TEST_CASE("after a fragment the record starts on a line of its own") {
  TempDir dir;
  std::string log = dir.path + "/denied.log";
  WriteFile(log, "{\"argc\":2,\"ar", 0600);  // a short append's remains
  CHECK(AppendTo(log).ok);
  CHECK(AppendTo(log).ok);
  CHECK(ReadFile(log) == "{\"argc\":2,\"ar\n{\"a\":1}\n{\"a\":1}\n");
}

TEST_CASE("a log the writer may not read is appended to without the check") {
  if (geteuid() == 0) {
    // root reads a 0200 file anyway: the fallback is then exercised by the
    // end-to-end test as another user (tests/test_shim_log.py).
    TempDir dir;
    std::string log = dir.path + "/denied.log";
    WriteFile(log, "x\n", 0200);
    CHECK(AppendTo(log).ok);
    CHECK(ReadFile(log) == "x\n{\"a\":1}\n");
    return;
  }
  TempDir dir;
  std::string log = dir.path + "/denied.log";
  WriteFile(log, "frag", 0200);
  CHECK(AppendTo(log).ok);
  chmod(log.c_str(), 0600);
  CHECK(ReadFile(log) == "frag{\"a\":1}\n");
}

TEST_CASE("the destination: the environment's value, else the built-in default, else none") {
  CHECK(std::string(denied_log::ChoosePath("/env/log", "/default/log")) == "/env/log");
  CHECK(std::string(denied_log::ChoosePath("", "/default/log")) == "/default/log");
  CHECK(std::string(denied_log::ChoosePath(nullptr, "/default/log")) == "/default/log");
  CHECK(denied_log::ChoosePath(nullptr, "") == nullptr);
  CHECK(denied_log::ChoosePath("", "") == nullptr);
}
