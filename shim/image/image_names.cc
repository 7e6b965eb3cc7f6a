#include "image_names.h"

namespace image_names {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

bool IsNameByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '+' || c == '-';
}

}  // namespace

bool NameList::Contains(std::string_view name) const {
  for (std::size_t i = 0; i < count_; ++i) {
    if (names_[i] == name) return true;
  }
  return false;
}

bool NameList::Add(std::string_view name) {
  if (Contains(name)) return true;
  if (count_ == kMaxNames) return false;
  names_[count_++] = name;
  return true;
}

bool ValidateName(std::string_view name, image_text::Text* why) {
  if (name.empty()) {
    why->Add("empty name");
    return false;
  }
  if (name.size() > kMaxNameLength) {
    why->Add("longer than ", kMaxNameLength, " bytes");
    return false;
  }
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (!IsNameByte(name[i])) {
      why->Add("byte ", i + 1, " (", image_text::Quoted{image_text::Slice(name, i, 1)},
               ") is not one of [A-Za-z0-9._+-]: no '/', glob or shell characters");
      return false;
    }
  }
  if (name[0] == '.') {
    why->Add("starts with '.'");
    return false;
  }
  if (name[0] == '-') {
    why->Add("starts with '-' (it would read as an option)");
    return false;
  }
  if (name.find("..") != std::string_view::npos) {
    why->Add("contains \"..\"");
    return false;
  }
  if (name == kShimName) {
    why->Add("is the shim's own name");
    return false;
  }
  return true;
}

bool IsBlank(std::string_view text) {
  for (char c : text) {
    if (!IsSpace(c)) return false;
  }
  return true;
}

bool ParseNames(std::string_view text, std::string_view source, NameList* out,
                image_text::Text* err) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (IsSpace(text[pos])) {
      ++pos;
      continue;
    }
    std::size_t end = pos;
    while (end < text.size() && !IsSpace(text[end])) ++end;
    std::string_view name = image_text::Slice(text, pos, end - pos);
    pos = end;
    image_text::Text why;
    if (!ValidateName(name, &why)) {
      err->Add("bad name ", image_text::Quoted{name}, " in ", source, ": ", why);
      return false;
    }
    if (!out->Add(name)) {
      err->Add("too many names in ", source, ": at most ", kMaxNames);
      return false;
    }
  }
  return true;
}

}  // namespace image_names
