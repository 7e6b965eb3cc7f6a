#include "io_error_exits.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "logs.h"

namespace io_error_exits {
namespace {

// 20 digits (any uint64_t) and a newline: the file never changes size.
constexpr size_t kWidth = 21;

std::string Format(uint64_t n) {
  char buf[kWidth + 1];
  snprintf(buf, sizeof buf, "%020llu\n", static_cast<unsigned long long>(n));
  return std::string(buf, kWidth);
}

bool Parse(const char* buf, ssize_t n, uint64_t* count) {
  if (n != static_cast<ssize_t>(kWidth) || buf[kWidth - 1] != '\n') return false;
  uint64_t v = 0;
  for (size_t i = 0; i + 1 < kWidth; ++i) {
    if (buf[i] < '0' || buf[i] > '9') return false;
    v = v * 10 + static_cast<uint64_t>(buf[i] - '0');
  }
  *count = v;
  return true;
}

bool ReadFd(int fd, uint64_t* count, std::string* err) {
  char buf[kWidth + 1];
  const ssize_t n = pread(fd, buf, sizeof buf, 0);
  if (n < 0) {
    *err = logs::ErrnoReason("read", kFileName);
    return false;
  }
  if (!Parse(buf, n, count)) {
    *err = std::string(kFileName) + ": not a count of " + std::to_string(kWidth - 1) + " digits";
    return false;
  }
  return true;
}

}  // namespace

bool Read(int state_dir_fd, uint64_t* count, std::string* err) {
  *count = 0;
  const unique_fd::UniqueFd fd(openat(state_dir_fd, kFileName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.ok()) {
    if (errno == ENOENT) return true;
    *err = logs::ErrnoReason("open", kFileName);
    return false;
  }
  return ReadFd(fd.get(), count, err);
}

bool Counter::Open(int state_dir_fd, std::string* err) {
  fd_.Reset(openat(state_dir_fd, kFileName, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd_.ok()) {
    *err = logs::ErrnoReason("open", kFileName);
    return false;
  }
  struct stat st;
  if (fstat(fd_.get(), &st) == 0 && st.st_size == 0) {
    // New (or cut by a crash before its first write): made at full width now.
    const std::string zero = Format(0);
    if (pwrite(fd_.get(), zero.data(), zero.size(), 0) != static_cast<ssize_t>(zero.size()) ||
        fsync(fd_.get()) != 0) {
      *err = logs::ErrnoReason("write", kFileName);
      fd_.Reset();
      return false;
    }
  }
  if (!ReadFd(fd_.get(), &count_, err)) {
    fd_.Reset();
    return false;
  }
  return true;
}

bool Counter::Add(std::string* err) {
  const std::string text = Format(count_ + 1);
  if (pwrite(fd_.get(), text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()) ||
      fdatasync(fd_.get()) != 0) {
    *err = logs::ErrnoReason("write", kFileName);
    return false;
  }
  ++count_;
  return true;
}

}  // namespace io_error_exits
