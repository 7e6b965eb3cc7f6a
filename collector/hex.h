// Lower-case hex of bytes (digests, MACs, ids): one loop for the collector.
#ifndef AGT_COLLECTOR_HEX_H_
#define AGT_COLLECTOR_HEX_H_

#include <cstddef>
#include <string>

namespace hex {

// Writes 2 * n characters to `out` (no terminator).
inline void EncodeTo(const unsigned char* bytes, size_t n, char* out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 0xf];
  }
}

inline std::string Encode(const unsigned char* bytes, size_t n) {
  std::string out(2 * n, '\0');
  EncodeTo(bytes, n, out.data());
  return out;
}

}  // namespace hex

#endif  // AGT_COLLECTOR_HEX_H_
