#include "canonical_json_form.h"

#include <charconv>
#include <cstring>

namespace canonical_json {

bool FormCheck::Int64(int64_t i) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, i);
  return Literal(std::string_view(buf, static_cast<size_t>(r.ptr - buf)));
}

bool FormCheck::EscapedStringToken(const char* str, size_t length) {
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
