// An owned file descriptor, closed when its owner goes (the collector's
// own: the shim's image tool keeps its Fd in shim/image/image_root.h, and
// the two programs share no code).
#ifndef AGT_COLLECTOR_UNIQUE_FD_H_
#define AGT_COLLECTOR_UNIQUE_FD_H_

#include <unistd.h>

#include <utility>

namespace unique_fd {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.Release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) Reset(other.Release());
    return *this;
  }
  ~UniqueFd() { Reset(); }

  int get() const { return fd_; }
  bool ok() const { return fd_ >= 0; }
  // Gives the descriptor up without closing it.
  int Release() { return std::exchange(fd_, -1); }
  // Closes the descriptor held, if any, and holds `fd` instead.
  void Reset(int fd = -1) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

}  // namespace unique_fd

#endif  // AGT_COLLECTOR_UNIQUE_FD_H_
