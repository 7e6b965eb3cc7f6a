// A full disk in a unit test: the file size limit (RLIMIT_FSIZE) makes a
// write past it fail with EFBIG, as ENOSPC would, in any directory.
#ifndef AGT_COLLECTOR_FILE_SIZE_LIMIT_TEST_UTIL_H_
#define AGT_COLLECTOR_FILE_SIZE_LIMIT_TEST_UTIL_H_

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/resource.h>

#include <cstdint>
#include <functional>

namespace test_util {

// Runs `write` with the file size limit at `limit_bytes` (SIGXFSZ ignored),
// then restores both. Returns what `write` returned.
inline bool UnderFileSizeLimit(uint64_t limit_bytes, const std::function<bool()>& write) {
  struct rlimit old_limit;
  REQUIRE(getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
  const auto old_handler = signal(SIGXFSZ, SIG_IGN);
  struct rlimit limit = old_limit;
  limit.rlim_cur = limit_bytes;
  REQUIRE(setrlimit(RLIMIT_FSIZE, &limit) == 0);
  const bool written = write();
  REQUIRE(setrlimit(RLIMIT_FSIZE, &old_limit) == 0);
  signal(SIGXFSZ, old_handler);
  return written;
}

}  // namespace test_util

#endif  // AGT_COLLECTOR_FILE_SIZE_LIMIT_TEST_UTIL_H_
