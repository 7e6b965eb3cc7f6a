#include "image_names.h"

namespace image_names {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

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

std::string_view NameList::AliasOf(std::string_view name) const {
  for (std::size_t i = 0; i < count_; ++i) {
    if (names_[i] == name) return targets_[i];
  }
  return {};
}

bool NameList::Add(std::string_view name, std::string_view target) {
  if (Contains(name)) return true;
  if (count_ == kMaxNames) return false;
  targets_[count_] = target;
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

bool IsVariantOf(std::string_view file_name, std::string_view name) {
  if (name.empty() || file_name.size() < name.size()) return false;
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (lower(file_name[i]) != lower(name[i])) return false;
  }
  std::string_view rest = image_text::Slice(file_name, name.size());
  if (rest.empty()) return true;
  if (rest[0] == '.' || rest[0] == '-' || rest[0] == '_') rest = image_text::Slice(rest, 1);
  if (rest.empty() || rest[0] < '0' || rest[0] > '9') return false;
  for (char c : rest) {
    if (!(c >= '0' && c <= '9') && c != '.') return false;
  }
  return true;
}

bool IsBlank(std::string_view text) {
  for (char c : text) {
    if (!IsSpace(c)) return false;
  }
  return true;
}

namespace {

bool ValidateWord(std::string_view word, std::string_view source, image_text::Text* err) {
  image_text::Text why;
  if (ValidateName(word, &why)) return true;
  err->Add("bad name ", image_text::Quoted{word}, " in ", source, ": ", why);
  return false;
}

// Every alias names a plain name of the same list: an alias of a command that
// is not allowed (or of another alias) would link something nobody vetted.
bool CheckAliasTargets(const NameList& list, std::string_view source, image_text::Text* err) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string_view target = list.AliasOf(i);
    if (target.empty()) continue;
    if (!list.Contains(target)) {
      err->Add("alias ", list[i], "=", target, " in ", source, ": ", target,
               " is not in the list (an alias must name another allowed command)");
      return false;
    }
    if (!list.AliasOf(target).empty()) {
      err->Add("alias ", list[i], "=", target, " in ", source, ": ", target,
               " is itself an alias (name the command it runs)");
      return false;
    }
  }
  return true;
}

}  // namespace

bool ParseNames(std::string_view text, std::string_view source, NameList* out,
                image_text::Text* err, Aliases aliases) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (IsSpace(text[pos])) {
      ++pos;
      continue;
    }
    std::size_t end = pos;
    while (end < text.size() && !IsSpace(text[end])) ++end;
    std::string_view word = image_text::Slice(text, pos, end - pos);
    pos = end;
    std::string_view name = word, target;
    std::size_t eq = word.find('=');
    if (aliases == Aliases::kAccepted && eq != std::string_view::npos) {
      name = image_text::Slice(word, 0, eq);
      target = image_text::Slice(word, eq + 1);
      if (name == target) {
        err->Add("bad alias ", image_text::Quoted{word}, " in ", source,
                 ": a name cannot be an alias of itself");
        return false;
      }
      if (!ValidateWord(target, source, err)) return false;
    }
    if (!ValidateWord(name, source, err)) return false;
    if (out->Contains(name) && out->AliasOf(name) != target) {
      err->Add("name ", name, " given twice in ", source, ", once as an alias");
      return false;
    }
    if (!out->Add(name, target)) {
      err->Add("too many names in ", source, ": at most ", kMaxNames);
      return false;
    }
  }
  return CheckAliasTargets(*out, source, err);
}

}  // namespace image_names
