#include "image_text.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

namespace image_text {

void Text::Clear() {
  buf_.Shrink(0);
  cut_ = false;
}

void Text::Put(std::string_view piece) {
  if (cut_) return;
  if (buf_.Append(piece)) return;
  // Keep what fits, then mark the cut (the mark's room is reserved).
  std::size_t room = kCapacity > buf_.size() ? kCapacity - buf_.size() : 0;
  buf_.Append(Slice(piece, 0, room));
  cut_ = true;
}

void Text::Put(Quoted quoted) {
  static constexpr std::size_t kShown = 80;
  static constexpr char kHex[] = "0123456789abcdef";
  Put('"');
  std::size_t n = quoted.text.size() < kShown ? quoted.text.size() : kShown;
  for (std::size_t i = 0; i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(quoted.text[i]);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      Put(static_cast<char>(c));
    } else {
      char esc[4] = {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
      Put(std::string_view(esc, sizeof esc));
    }
  }
  Put('"');
  if (quoted.text.size() > kShown) Add("... (", quoted.text.size(), " bytes)");
}

void Text::Put(Errno e) { Put(strerror(e.value)); }

void Text::Put(Octal mode) {
  char digits[4];
  unsigned v = mode.value & 07777;
  for (int i = 3; i >= 0; --i) {
    digits[i] = static_cast<char>('0' + (v & 7));
    v >>= 3;
  }
  Put(std::string_view(digits, sizeof digits));
}

void Text::PutUnsigned(std::uint64_t value) {
  char digits[fixed_buffer::kMaxDecimalDigits];
  Put(fixed_buffer::Decimal(value, digits));
}

namespace {

void WriteAll(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // Nowhere left to report a failed report.
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

}  // namespace

void Text::WriteLine(int fd) const { image_text::WriteLine(fd, "", *this); }

void WriteLine(int fd, std::string_view prefix, const Text& text) {
  char line[2048];
  fixed_buffer::Buffer out(line, sizeof line);
  out.Append(prefix);
  out.Append(text.view());
  if (text.cut_) out.Append(Text::kCutMark);
  out.Append("\n");
  WriteAll(fd, line, out.size());
}

}  // namespace image_text
