// Buffered output for the self-mode commands, without stdio or the heap:
// fills a fixed buffer and flushes it with an EINTR-safe write loop.
#ifndef AGT_DENY_SHIM_PRINTER_H_
#define AGT_DENY_SHIM_PRINTER_H_

#include <errno.h>
#include <unistd.h>

#include <cstddef>
#include <string_view>

namespace printer {

class Printer {
 public:
  explicit Printer(int fd) : fd_(fd) {}
  ~Printer() { Flush(); }
  Printer(const Printer&) = delete;
  Printer& operator=(const Printer&) = delete;

  Printer& operator<<(std::string_view text) {
    for (char c : text) {
      if (size_ == sizeof buffer_) Flush();
      buffer_[size_++] = c;
    }
    return *this;
  }

  // Pads with spaces to `width` columns (names in tables).
  Printer& Padded(std::string_view text, std::size_t width) {
    *this << text;
    for (std::size_t i = text.size(); i < width; ++i) *this << " ";
    return *this;
  }

  bool Flush() {
    std::size_t done = 0;
    while (done < size_) {
      ssize_t n = write(fd_, buffer_ + done, size_ - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        failed_ = true;
        break;
      }
      done += static_cast<std::size_t>(n);
    }
    size_ = 0;
    return !failed_;
  }

  bool failed() const { return failed_; }

 private:
  int fd_;
  char buffer_[4096];
  std::size_t size_ = 0;
  bool failed_ = false;
};

}  // namespace printer

#endif  // AGT_DENY_SHIM_PRINTER_H_
