// Is a JSON text, as read, already in canonical form (canonical_json.h)? A
// signed audit line written by this project or by upstream is: its payload
// is then the line's own bytes minus the members upstream leaves unsigned,
// and the verifier hashes those bytes where they lie instead of writing the
// canonical text again (audit_verifier.cc).
//
// FormCheck is fed the SAX events of RapidJSON's in-situ parse of a private
// copy of the text (one parse, the one parser) and compares each token and
// each separator with the bytes of the text at the place it must be: every
// byte has to be the one canonical serialisation puts there. It answers
// only yes or no: any difference (a space, a key out of order or twice, an
// escape written another way, a number like -0 or 1.0, nesting deeper than
// kMaxFormDepth, a string that is not strict UTF-8) makes an event return
// false, which stops the parse; the caller then takes the general path
// (canonical_json_stream.h), whose text and refusals are the reference.
#ifndef AGT_COLLECTOR_CANONICAL_JSON_FORM_H_
#define AGT_COLLECTOR_CANONICAL_JSON_FORM_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "canonical_json.h"

namespace canonical_json {

// Deeper nesting is never taken as canonical here: below kMaxDepth, so a
// value the general path refuses as too deep is never accepted, and a
// handler that stops the parse there keeps even a recursive parse's stack
// small.
constexpr int kMaxFormDepth = kMaxDepth;

class FormCheck {
 public:
  // `text`: the bytes as read; `insitu`: the start of the copy the parse
  // decodes in place (a decoded string lies at its offset in `text` + 1).
  // False when the text holds a byte canonical text never does (anything
  // but printable ASCII): then it is not worth parsing for the check.
  bool Reset(std::string_view text, const char* insitu) {
    if (!IsPrintableAscii(text)) return false;
    ResetPrintable(text, insitu);
    return true;
  }
  // Reset for a text the caller has found printable ASCII already.
  void ResetPrintable(std::string_view text, const char* insitu) {
    text_ = text;
    insitu_ = insitu;
    pos_ = 0;
    depth_ = 0;
    done_ = false;
  }

  bool Null() { return Literal("null"); }
  bool Bool(bool b) { return Literal(b ? "true" : "false"); }
  bool Int64(int64_t i);
  bool Uint64(uint64_t) {
    // RapidJSON reports a number here only when its token is digits alone (a
    // sign makes it Int64, a fraction or an exponent Double): its canonical
    // text is then the token itself, unless it has a leading zero. So the
    // token is the run of digits where the next one must start, not written
    // again to be compared.
    if (!BeforeValue()) return false;
    const char* const p = text_.data() + pos_;
    const size_t left = text_.size() - pos_;
    size_t digits = 0;
    while (digits < left && p[digits] >= '0' && p[digits] <= '9') ++digits;
    if (digits == 0 || (p[0] == '0' && digits > 1)) return false;
    pos_ += digits;
    return AfterValue();
  }
  bool Double() { return false; }  // never canonical: the general path refuses it
  // A string or key of `length` decoded bytes at `str`.
  bool String(const char* str, size_t length) {
    return BeforeValue() && StringToken(str, length) && AfterValue();
  }
  bool Key(const char* str, size_t length) {
    if (depth_ == 0) return false;
    Level& level = levels_[depth_ - 1];
    const std::string_view key(str, length);
    // Sorted by code point (UTF-8 byte order), each key once.
    if (level.items++ > 0 && !(KeyLess(level.last_key, key) && Expect(", "))) return false;
    level.last_key = key;
    return StringToken(str, length) && Expect(": ");
  }
  bool StartObject() { return Open(true); }
  bool EndObject() { return Close('}'); }
  bool StartArray() { return Open(false); }
  bool EndArray() { return Close(']'); }

  // Where the next token must start (after the last one checked).
  size_t offset() const { return pos_; }
  // After the parse: every byte of the text was checked, the value ended.
  bool Complete() const { return done_ && pos_ == text_.size(); }

 private:
  struct Level {
    bool object;
    uint32_t items;
    std::string_view last_key;  // decoded, in the in-situ copy
  };

  // The next bytes are `bytes` (short: separators, literals, numbers).
  // Inlined with a literal (every separator), memcmp of its known size
  // becomes one compare of a word.
  bool Expect(std::string_view bytes) {
    if (text_.size() - pos_ < bytes.size() ||
        memcmp(text_.data() + pos_, bytes.data(), bytes.size()) != 0) {
      return false;
    }
    pos_ += bytes.size();
    return true;
  }
  bool BeforeValue() {  // the ", " between array elements
    if (depth_ == 0) return !done_;
    Level& level = levels_[depth_ - 1];
    if (level.object) return true;  // Key() checked the ": " before the value
    return level.items++ == 0 || Expect(", ");
  }
  bool AfterValue() {  // the value that ended was the whole text
    if (depth_ == 0) done_ = true;
    return true;
  }
  bool Literal(std::string_view text) { return BeforeValue() && Expect(text) && AfterValue(); }
  // Every string and key: inline for the usual token, one without escapes.
  bool StringToken(const char* str, size_t length) {
    // In situ, the decoded string starts where its text does, after the quote.
    if (str != insitu_ + pos_ + 1) return false;
    // No escape: then the text is the string itself, printable ASCII (Reset)
    // with no '"' or '\\' (those need one), which is its canonical form. The
    // text has none when the byte `length` bytes in is the closing quote: were
    // there one, the text would be longer than the string, and a quote inside
    // it follows a backslash.
    const char* const raw = text_.data() + pos_ + 1;
    if (length < text_.size() - pos_ - 1 && raw[length] == '"' &&
        (length == 0 || raw[length - 1] != '\\')) {
      pos_ += length + 2;
      return true;
    }
    return EscapedStringToken(str, length);
  }
  // A token with escapes: it must be the one canonical way to write the string.
  bool EscapedStringToken(const char* str, size_t length);
  // Byte order (code point order, for UTF-8): keys are short, so a loop
  // beats a call to memcmp.
  static bool KeyLess(std::string_view a, std::string_view b) {
    const size_t n = a.size() < b.size() ? a.size() : b.size();
    for (size_t i = 0; i < n; ++i) {
      if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
    }
    return a.size() < b.size();
  }
  bool Open(bool object);
  bool Close(char closer);

  std::string_view text_;
  const char* insitu_ = nullptr;
  size_t pos_ = 0;
  int depth_ = 0;
  bool done_ = false;
  Level levels_[kMaxFormDepth];
  std::string scratch_;  // a string's canonical text, when it has escapes
};

}  // namespace canonical_json

#endif  // AGT_COLLECTOR_CANONICAL_JSON_FORM_H_
