// Helpers shared by the tail unit tests: a private temporary directory.
#ifndef AGT_COLLECTOR_TAIL_TAIL_TEST_UTIL_H_
#define AGT_COLLECTOR_TAIL_TAIL_TEST_UTIL_H_

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tail_test_util {

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/agt-tail-test.XXXXXX";
    path_ = mkdtemp(tmpl);
    fd_ = open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  }
  ~TempDir() {
    close(fd_);
    std::error_code ignored;  // a leftover temporary directory fails no test
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }
  int fd() const { return fd_; }
  std::string Join(const std::string& rel) const { return path_ + "/" + rel; }
  void Write(const std::string& rel, const std::string& data, bool append = false) const {
    int f = open(Join(rel).c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC),
                 0644);
    if (f >= 0) {
      if (write(f, data.data(), data.size()) != static_cast<ssize_t>(data.size())) {
      }
      close(f);
    }
  }
  void Mkdir(const std::string& rel) const { mkdir(Join(rel).c_str(), 0755); }
  std::string Read(const std::string& rel) const { return ReadFile(Join(rel)); }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace tail_test_util

#endif  // AGT_COLLECTOR_TAIL_TAIL_TEST_UTIL_H_
