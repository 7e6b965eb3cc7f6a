// Message text for the image tool: one fixed buffer per line, filled from
// pieces (views, numbers, quoted hostile names, errno) and written with one
// write(). A line that does not fit is cut and says so ("[cut]"), never
// silently.
#ifndef AGT_DENY_SHIM_IMAGE_IMAGE_TEXT_H_
#define AGT_DENY_SHIM_IMAGE_IMAGE_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "fixed_buffer.h"

namespace image_text {

// s[pos, pos + n), clamped to s. Unlike string_view::substr it never
// throws: the static shim has no C++ runtime to throw with.
inline std::string_view Slice(std::string_view s, std::size_t pos,
                              std::size_t n = std::string_view::npos) {
  if (pos > s.size()) pos = s.size();
  if (n > s.size() - pos) n = s.size() - pos;
  return std::string_view(s.data() + pos, n);
}

// A name or path from the (hostile) root or build-args, shown in double
// quotes with every byte outside printable ASCII as \xHH, cut after 80 bytes.
struct Quoted {
  std::string_view text;
};

// A file mode in octal, 4 digits ("0755").
struct Octal {
  unsigned value;
};

// strerror() of an errno value.
struct Errno {
  int value;
};

class Text;
void WriteLine(int fd, std::string_view prefix, const Text& text);

class Text {
 public:
  Text() : buf_(data_, sizeof data_) {}
  Text(const Text&) = delete;
  Text& operator=(const Text&) = delete;

  template <typename... Parts>
  Text& Add(const Parts&... parts) {
    (Put(parts), ...);
    return *this;
  }
  void Clear();
  std::string_view view() const { return buf_.view(); }
  bool empty() const { return buf_.size() == 0; }

  // Writes the text and "\n" to fd with one write() (EINTR retried).
  void WriteLine(int fd) const;
  friend void WriteLine(int fd, std::string_view prefix, const Text& text);

 private:
  void Put(std::string_view piece);
  void Put(const char* piece) { Put(std::string_view(piece)); }
  void Put(char c) { Put(std::string_view(&c, 1)); }
  void Put(Quoted quoted);
  void Put(Errno e);
  void Put(Octal mode);
  void Put(const Text& other) { Put(other.view()); }
  template <typename Int, typename = std::enable_if_t<std::is_integral_v<Int>>>
  void Put(Int value) {
    if (value < 0) {
      Put('-');
      PutUnsigned(static_cast<std::uint64_t>(-(value + 1)) + 1);
    } else {
      PutUnsigned(static_cast<std::uint64_t>(value));
    }
  }
  void PutUnsigned(std::uint64_t value);

  static constexpr std::size_t kCapacity = 1024;
  static constexpr std::string_view kCutMark = " [cut]";
  char data_[kCapacity + 8];
  fixed_buffer::Buffer buf_;
  bool cut_ = false;
};

// Writes one line to fd: prefix (e.g. "agt-deny-shim: error: ") and text.
void WriteLine(int fd, std::string_view prefix, const Text& text);

}  // namespace image_text

#endif  // AGT_DENY_SHIM_IMAGE_IMAGE_TEXT_H_
