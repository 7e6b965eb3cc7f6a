#include "key_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "logs.h"
#include "unique_fd.h"

namespace key_file {

bool ReadKeyFile(const std::string& path, std::string* key, std::string* err) {
  // Symlinks are followed: secret stores (e.g. mounted secrets) publish keys
  // through them, and the operator, not the sandbox, names this file.
  const unique_fd::UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd.ok()) {
    *err = logs::ErrnoReason("open key file", path);
    return false;
  }
  struct stat st;
  if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    *err = "key file " + path + ": not a regular file";
    return false;
  }
  key->assign(kMaxKeyBytes + 1, '\0');
  size_t got = 0;
  while (got < key->size()) {
    const ssize_t n = read(fd.get(), key->data() + got, key->size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *err = logs::ErrnoReason("read key file", path);
      key->clear();
      return false;
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  key->resize(got);
  if (got == 0) {
    *err = "key file " + path + " is empty";
    return false;
  }
  if (got > kMaxKeyBytes) {
    key->clear();
    *err = "key file " + path + " is larger than " +
           std::to_string(kMaxKeyBytes) + " bytes";
    return false;
  }
  return true;
}

void LintKeyFile(const std::string& path, const std::string& key, std::vector<std::string>* warnings) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && (st.st_mode & 077) != 0) {
    char mode[8];
    snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    warnings->push_back("key file " + path + " has mode " + mode +
                        ": readable or writable by group/others (use 0600 or 0400)");
  }
  if (key.size() < kRecommendedKeyBytes) {
    warnings->push_back("key file " + path + " holds " + std::to_string(key.size()) +
                        " bytes; use at least " + std::to_string(kRecommendedKeyBytes) +
                        " random bytes");
  }
}

}  // namespace key_file
