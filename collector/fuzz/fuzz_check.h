// The harnesses assert properties, not just "no crash": a failed check
// prints what broke and aborts, which libFuzzer reports as a crash and saves
// the input. assert() would vanish under NDEBUG, hence this macro.
#ifndef AGT_FUZZ_CHECK_H_
#define AGT_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>
#include <string_view>

#define FUZZ_CHECK(cond)                                                                   \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::fprintf(stderr, "fuzz: check failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                        \
    }                                                                                      \
  } while (0)

// What a reason or an error message must be: one non-empty line of printable
// ASCII, so hostile bytes never reach a terminal or a journal through it.
inline bool IsOnePrintableLine(std::string_view text) {
  if (text.empty()) return false;
  for (const char c : text) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

#endif  // AGT_FUZZ_CHECK_H_
