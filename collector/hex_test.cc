#include "hex.h"

#include <stdio.h>

#include <string>

#include <doctest/doctest.h>

TEST_CASE("hex: every byte value as two lowercase digits, as printf writes it") {
  unsigned char bytes[256];
  std::string expected;
  for (int b = 0; b < 256; ++b) {
    bytes[b] = static_cast<unsigned char>(b);
    char digits[3];
    snprintf(digits, sizeof digits, "%02x", b);
    expected += digits;
  }
  CHECK(hex::Encode(bytes, sizeof bytes) == expected);
  // Written at `out` and nowhere else.
  std::string out(8, '#');
  hex::EncodeTo(bytes + 0xa9, 3, &out[1]);
  CHECK(out == "#a9aaab#");
  CHECK(hex::Encode(bytes, 0).empty());
}
