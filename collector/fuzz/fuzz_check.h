// The harnesses assert properties, not just "no crash": a failed check
// prints what broke and aborts, which libFuzzer reports as a crash and saves
// the input. assert() would vanish under NDEBUG, hence this macro.
#ifndef AGT_FUZZ_CHECK_H_
#define AGT_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                              \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      std::fprintf(stderr, "fuzz: check failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                   \
    }                                                                                 \
  } while (0)

#endif  // AGT_FUZZ_CHECK_H_
