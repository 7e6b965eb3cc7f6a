// Test helper for the shim's unit tests: a fresh temporary directory,
// removed with everything in it when the test case ends.
#ifndef AGT_DENY_SHIM_TEMP_DIR_TEST_SUPPORT_H_
#define AGT_DENY_SHIM_TEMP_DIR_TEST_SUPPORT_H_

#include <stdlib.h>

#include <filesystem>
#include <string>

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/agt-shim-test-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ignored;  // a leftover temporary directory fails no test
    std::filesystem::remove_all(path, ignored);
  }
};

#endif  // AGT_DENY_SHIM_TEMP_DIR_TEST_SUPPORT_H_
