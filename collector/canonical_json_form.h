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
  bool Reset(std::string_view text, const char* insitu);

  bool Null() { return Literal("null"); }
  bool Bool(bool b) { return Literal(b ? "true" : "false"); }
  bool Int64(int64_t i);
  bool Uint64(uint64_t u);
  bool Double() { return false; }  // never canonical: the general path refuses it
  // A string or key of `length` decoded bytes at `str`.
  bool String(const char* str, size_t length) {
    return BeforeValue() && StringToken(str, length) && AfterValue();
  }
  bool Key(const char* str, size_t length);
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
  bool Expect(std::string_view bytes) {
    if (text_.size() - pos_ < bytes.size()) return false;
    const char* const p = text_.data() + pos_;
    for (size_t i = 0; i < bytes.size(); ++i) {
      if (p[i] != bytes[i]) return false;
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
  bool StringToken(const char* str, size_t length);
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
