// Lower-case hex of bytes (digests, MACs, ids): one loop for the collector.
#ifndef AGT_COLLECTOR_HEX_H_
#define AGT_COLLECTOR_HEX_H_

#include <cstddef>
#include <cstring>
#include <string>

namespace hex {

// The two digits of every byte value: one lookup and one copy per byte
// (every entry is hashed and signed: its digests are encoded three times).
struct DigitPairs {
  char pair[256][2] = {};
  constexpr DigitPairs() {
    constexpr char kDigits[] = "0123456789abcdef";
    for (int b = 0; b < 256; ++b) {
      pair[b][0] = kDigits[b >> 4];
      pair[b][1] = kDigits[b & 0xf];
    }
  }
};
inline constexpr DigitPairs kDigitPairs;

// Writes 2 * n characters to `out` (no terminator).
inline void EncodeTo(const unsigned char* bytes, size_t n, char* out) {
  for (size_t i = 0; i < n; ++i) memcpy(out + 2 * i, kDigitPairs.pair[bytes[i]], 2);
}

inline std::string Encode(const unsigned char* bytes, size_t n) {
  std::string out(2 * n, '\0');
  EncodeTo(bytes, n, out.data());
  return out;
}

}  // namespace hex

#endif  // AGT_COLLECTOR_HEX_H_
