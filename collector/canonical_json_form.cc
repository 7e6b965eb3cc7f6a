#include "canonical_json_form.h"

#include <charconv>
#include <cstring>

namespace canonical_json {
namespace {

// Byte order (code point order, for UTF-8): keys are short, so a loop
// beats a call to memcmp.
bool KeyLess(std::string_view a, std::string_view b) {
  const size_t n = a.size() < b.size() ? a.size() : b.size();
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
  }
  return a.size() < b.size();
}

}  // namespace

bool FormCheck::Reset(std::string_view text, const char* insitu) {
  text_ = text;
  insitu_ = insitu;
  pos_ = 0;
  depth_ = 0;
  done_ = false;
  return IsPrintableAscii(text);
}

bool FormCheck::Int64(int64_t i) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, i);
  return Literal(std::string_view(buf, static_cast<size_t>(r.ptr - buf)));
}

bool FormCheck::Uint64(uint64_t) {
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

bool FormCheck::StringToken(const char* str, size_t length) {
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
  // Escapes: the text must be the one canonical way to write the string
  // (no escape where none is needed, the short forms, lowercase hex).
  scratch_.resize(MaxStringBytes(length));
  const char* const written = WriteString(std::string_view(str, length), &scratch_[0]);
  if (written == nullptr) return false;  // not strict UTF-8
  const size_t size = static_cast<size_t>(written - scratch_.data());
  if (text_.size() - pos_ < size || memcmp(text_.data() + pos_, scratch_.data(), size) != 0)
    return false;
  pos_ += size;
  return true;
}

bool FormCheck::Key(const char* str, size_t length) {
  if (depth_ == 0) return false;
  Level& level = levels_[depth_ - 1];
  const std::string_view key(str, length);
  // Sorted by code point (UTF-8 byte order), each key once.
  if (level.items++ > 0 && !(KeyLess(level.last_key, key) && Expect(", "))) return false;
  level.last_key = key;
  return StringToken(str, length) && Expect(": ");
}

bool FormCheck::Open(bool object) {
  if (depth_ == kMaxFormDepth || !BeforeValue() || !Expect(object ? "{" : "[")) return false;
  levels_[depth_++] = Level{object, 0, {}};
  return true;
}

bool FormCheck::Close(char closer) {
  if (depth_ == 0 || !Expect(std::string_view(&closer, 1))) return false;
  --depth_;
  return AfterValue();
}

}  // namespace canonical_json
