// Test helpers for the image tool's unit tests: a throw-away root directory
// built file by file, a snapshot of a whole tree (to prove "nothing was
// changed"), and running a subcommand with its stdout/stderr captured.
#ifndef AGT_DENY_SHIM_IMAGE_IMAGE_TEST_SUPPORT_H_
#define AGT_DENY_SHIM_IMAGE_IMAGE_TEST_SUPPORT_H_

#include <string>
#include <vector>

namespace image_test {

class TempRoot {
 public:
  TempRoot();
  ~TempRoot();
  TempRoot(const TempRoot&) = delete;
  TempRoot& operator=(const TempRoot&) = delete;

  const std::string& path() const { return path_; }
  std::string At(const std::string& rel) const { return path_ + "/" + rel; }

  void Dir(const std::string& rel, unsigned mode = 0755);
  void File(const std::string& rel, unsigned mode = 0755, const std::string& content = "#!x\n");
  void Link(const std::string& rel, const std::string& target);

  bool Exists(const std::string& rel) const;           // lstat
  std::string ReadLink(const std::string& rel) const;  // "" when not a link
  unsigned Mode(const std::string& rel) const;         // stat (follows), 07777 bits
  bool IsLink(const std::string& rel) const;

  // Every entry under the root: "path type mode [-> target]", sorted.
  std::string Snapshot() const;

  // A Debian-like merged-/usr layout: /bin -> usr/bin, /sbin -> usr/sbin,
  // /usr/local/{bin,sbin}, the shim at /usr/local/lib/agt/agt-deny-shim.
  void MergedUsr();

 private:
  std::string path_;
};

struct Result {
  int status = -1;
  std::string out;
  std::string err;
};

using Subcommand = int (*)(int, char**);

// Runs fn with args (argv after the subcommand name), capturing fds 1 and 2.
Result Run(Subcommand fn, const std::vector<std::string>& args);

// Sets (or with nullptr, unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value);
  ~ScopedEnv();

 private:
  std::string name_;
  bool had_ = false;
  std::string old_;
};

}  // namespace image_test

#endif  // AGT_DENY_SHIM_IMAGE_IMAGE_TEST_SUPPORT_H_
