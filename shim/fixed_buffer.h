// A byte buffer over caller-owned storage: the shim never allocates, so every
// piece of output is assembled in fixed arrays. Appends are all-or-nothing:
// a piece that does not fit is refused whole, never silently cut.
#ifndef AGT_DENY_SHIM_FIXED_BUFFER_H_
#define AGT_DENY_SHIM_FIXED_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace fixed_buffer {

// Enough for any std::uint64_t in decimal.
inline constexpr std::size_t kMaxDecimalDigits = 20;

// `value` in decimal, written at the end of `digits`; the view points into it.
inline std::string_view Decimal(std::uint64_t value, char (&digits)[kMaxDecimalDigits]) {
  std::size_t n = 0;
  do {
    digits[kMaxDecimalDigits - 1 - n] = static_cast<char>('0' + value % 10);
    value /= 10;
    ++n;
  } while (value != 0);
  return std::string_view(digits + kMaxDecimalDigits - n, n);
}

// With null storage a Buffer only counts: the size of a piece of output can
// be learned without the stack space to hold it.
class Buffer {
 public:
  Buffer(char* data, std::size_t capacity) : data_(data), capacity_(capacity) {}

  bool Append(std::string_view piece) {
    if (piece.size() > capacity_ - size_) return false;
    if (data_ != nullptr && !piece.empty()) std::memcpy(data_ + size_, piece.data(), piece.size());
    size_ += piece.size();
    return true;
  }

  bool AppendUnsigned(std::uint64_t value) {
    char digits[kMaxDecimalDigits];
    return Append(Decimal(value, digits));
  }

  // Zero-padded to `width` digits (for timestamps).
  bool AppendPadded(std::uint64_t value, std::size_t width) {
    char digits[20];
    if (width > sizeof digits) return false;
    for (std::size_t i = 0; i < width; ++i) {
      digits[width - 1 - i] = static_cast<char>('0' + value % 10);
      value /= 10;
    }
    return Append(std::string_view(digits, width));
  }

  // The free space after the contents, for a nested buffer that writes in
  // place; Commit() then takes its bytes in.
  char* end() { return data_ != nullptr ? data_ + size_ : nullptr; }
  bool Commit(std::size_t n) {
    if (n > capacity_ - size_) return false;
    size_ += n;
    return true;
  }

  std::string_view view() const { return std::string_view(data_, size_); }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  std::size_t remaining() const { return capacity_ - size_; }
  // Drops everything after the first `size` bytes (used to undo a piece).
  void Shrink(std::size_t size) {
    if (size < size_) size_ = size;
  }

 private:
  char* data_;
  std::size_t capacity_;
  std::size_t size_ = 0;
};

}  // namespace fixed_buffer

#endif  // AGT_DENY_SHIM_FIXED_BUFFER_H_
