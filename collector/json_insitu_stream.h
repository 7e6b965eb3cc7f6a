// An in-situ RapidJSON input stream whose strings are scanned 16 bytes at a
// time. RapidJSON reads a string a byte per loop turn (about 11 instructions
// a byte), and an entry line is mostly strings; its own SIMD scan
// (RAPIDJSON_SSE2) lets control bytes 0x1a-0x1f through a string, which
// JSON forbids. This stream plugs a correct scan into the same place in
// RapidJSON's string parse (ScanCopyUnescapedString, its hook for exactly
// this): a run of bytes that are not '"', '\\' or below 0x20 is skipped (or
// moved down, once an escape has shortened the string) at once, and every
// other byte is left to RapidJSON's own loop. The parse, its events and its
// errors are the same as with rapidjson::InsituStringStream.
#ifndef AGT_COLLECTOR_JSON_INSITU_STREAM_H_
#define AGT_COLLECTOR_JSON_INSITU_STREAM_H_

#include <rapidjson/reader.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <cstddef>

namespace json_insitu_stream {

// The scan reads up to 15 bytes past a string's end (the closing quote or
// the text's NUL): a buffer with this many more bytes after the NUL is
// scanned to its last string's end; without them, the last bytes are left
// to RapidJSON's loop.
constexpr size_t kReadAhead = 15;

class Stream : public rapidjson::InsituStringStream {
 public:
  // `text` is NUL-terminated and `readable` bytes from it may be read (the
  // NUL and any bytes after it included).
  Stream(char* text, size_t readable)
      : rapidjson::InsituStringStream(text), end_(text + readable) {}

  // Past the run of plain string bytes at src_: a byte RapidJSON's string
  // loop would copy as it is, one at a time.
  void ScanUnescaped() {
#ifdef __SSE2__
    char* p = src_;
    char* q = dst_;
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i control_max = _mm_set1_epi8(0x1f);
    while (end_ - p >= 16) {
      const __m128i s = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      // Unsigned: max(s, 0x1f) == 0x1f exactly for the bytes 0x00-0x1f.
      const __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(s, control_max), control_max);
      const __m128i stop = _mm_or_si128(
          _mm_or_si128(_mm_cmpeq_epi8(s, quote), _mm_cmpeq_epi8(s, backslash)), control);
      const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(stop));
      if (mask == 0) {
        if (q != p) _mm_storeu_si128(reinterpret_cast<__m128i*>(q), s);  // q < p: behind the read
        p += 16;
        q += 16;
        continue;
      }
      const size_t run = static_cast<size_t>(__builtin_ctz(mask));
      if (q != p) memmove(q, p, run);
      p += run;
      q += run;
      break;
    }
    src_ = p;
    dst_ = q;
#endif
  }

 private:
  const char* end_;
};

}  // namespace json_insitu_stream

namespace rapidjson {

// Copied into the parse functions like InsituStringStream (a pointer's worth
// more).
template <>
struct StreamTraits<json_insitu_stream::Stream> {
  enum { copyOptimization = 1 };
};

// The hook: RapidJSON calls it at the start of a string and after each
// escape; the generic version does nothing. Declared before any parse with
// this stream type is instantiated (this header defines the type).
template <>
template <>
inline void GenericReader<UTF8<>, UTF8<>, CrtAllocator>::ScanCopyUnescapedString(
    json_insitu_stream::Stream& is, json_insitu_stream::Stream& os) {
  (void)os;  // the same stream: in situ
  is.ScanUnescaped();
}

}  // namespace rapidjson

#endif  // AGT_COLLECTOR_JSON_INSITU_STREAM_H_
