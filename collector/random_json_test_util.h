// Random JSON text for the canonical_json tests: a small vocabulary, so keys
// repeat (duplicates) and every refusal and every way of writing a value
// comes up (floats, -0, escaped lone surrogates, escapes written another
// way, bytes that need one, deep nesting).
#ifndef AGT_COLLECTOR_RANDOM_JSON_TEST_UTIL_H_
#define AGT_COLLECTOR_RANDOM_JSON_TEST_UTIL_H_

#include <random>
#include <string>

namespace random_json {

// `depth` containers, alternately objects (key "k") and arrays, around
// `inner`; `spaced`: with canonical separators.
inline std::string Nested(int depth, const std::string& inner, bool spaced = false) {
  std::string s;
  for (int i = 0; i < depth; ++i) s += i % 2 ? "[" : (spaced ? "{\"k\": " : "{\"k\":");
  s += inner;
  for (int i = depth - 1; i >= 0; --i) s += i % 2 ? "]" : "}";
  return s;
}

// A value nested at most max_depth + 1 levels deep; `spaced`: with the
// canonical separators ", " and ": " (else none).
inline std::string Value(std::mt19937_64* rng, int max_depth, bool spaced, int depth = 0) {
  const char* keys[] = {"a",       "b", "ab",       "\\u00e9", "\\u00E9", "Z",
                        "\\udc00", "",  "a\\u0000", "\\/",     "\\u007f"};
  const char* scalars[] = {"null",
                           "true",
                           "false",
                           "0",
                           "-0",
                           "-1",
                           "18446744073709551615",
                           "-9223372036854775808",
                           "1.5",
                           "1e3",
                           "\"x\"",
                           "\"\\udc00\"",
                           "\"caf\\u00e9 \\ud83d\\ude00\"",
                           "\"\\n\\t\\\"\"",
                           "\"\\u000a\"",
                           "\"\\/\"",
                           "\"\x7f\""};
  const int pick = static_cast<int>((*rng)() % (depth > max_depth ? 1 : 4));
  if (pick == 0) return scalars[(*rng)() % (sizeof scalars / sizeof scalars[0])];
  const int n = static_cast<int>((*rng)() % 4);
  const std::string comma = spaced ? ", " : ",";
  std::string s;
  if (pick == 1) {
    s = "[";
    for (int i = 0; i < n; ++i) s += (i ? comma : "") + Value(rng, max_depth, spaced, depth + 1);
    return s + "]";
  }
  s = "{";
  for (int i = 0; i < n; ++i) {
    s += (i ? comma : "") + "\"" + keys[(*rng)() % (sizeof keys / sizeof keys[0])] + "\"" +
         (spaced ? ": " : ":") + Value(rng, max_depth, spaced, depth + 1);
  }
  return s + "}";
}

}  // namespace random_json

#endif  // AGT_COLLECTOR_RANDOM_JSON_TEST_UTIL_H_
