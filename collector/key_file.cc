#include "key_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
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
    *err = "key file " + path + " is larger than " + std::to_string(kMaxKeyBytes) + " bytes";
    return false;
  }
  return true;
}

void LintKeyFile(const std::string& path, const std::string& key,
                 std::vector<std::string>* warnings) {
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

namespace {

// The kernel's CSPRNG, blocking until it is seeded (flags 0): a key made
// early at boot must not come from an unseeded pool.
bool RandomBytes(unsigned char* buf, size_t len, std::string* err) {
  size_t got = 0;
  while (got < len) {
    const ssize_t n = getrandom(buf + got, len - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *err = std::string("getrandom: ") + strerror(errno);
      return false;
    }
    got += static_cast<size_t>(n);
  }
  return true;
}

std::string DirName(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

NewKeyResult WriteNewKeyFile(const std::string& path, std::string* err) {
  // O_NOFOLLOW with O_EXCL: a dangling symlink at `path` is "exists", never
  // a way to create the key somewhere else.
  const unique_fd::UniqueFd fd(
      open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600));
  if (!fd.ok()) {
    *err = logs::ErrnoReason("create key file", path);
    return errno == EEXIST ? NewKeyResult::kExists : NewKeyResult::kFailed;
  }
  unsigned char key[kRecommendedKeyBytes];
  bool ok = fchmod(fd.get(), 0600) == 0;  // exactly 0600, whatever the umask
  if (!ok) *err = logs::ErrnoReason("chmod key file", path);
  ok = ok && RandomBytes(key, sizeof key, err);
  size_t done = 0;
  while (ok && done < sizeof key) {
    const ssize_t n = write(fd.get(), key + done, sizeof key - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *err = logs::ErrnoReason("write key file", path);
      ok = false;
    } else {
      done += static_cast<size_t>(n);
    }
  }
  explicit_bzero(key, sizeof key);
  if (ok && fsync(fd.get()) != 0) {
    *err = logs::ErrnoReason("fsync key file", path);
    ok = false;
  }
  if (!ok) {
    unlink(path.c_str());  // we created it (O_EXCL): no short key stays behind
    return NewKeyResult::kFailed;
  }
  const std::string dir = DirName(path);
  const unique_fd::UniqueFd dfd(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dfd.ok() || fsync(dfd.get()) != 0) {
    *err = logs::ErrnoReason("fsync directory", dir);
    return NewKeyResult::kFailed;  // the key is complete; only its entry may not be durable
  }
  return NewKeyResult::kWritten;
}

}  // namespace key_file
