// libFuzzer harness: image_names::ParseNames, the parser of the name lists a
// build-arg hands the image tool. Property, against a plain reading of the
// text (split on ASCII white space, first-seen order, duplicates merged):
// an accepted list is exactly those names, each one valid; a refused list
// has an error and holds a bad name or more than kMaxNames names.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "image_names.h"

namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::vector<std::string_view> DistinctWords(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t at = 0;
  while (at < text.size()) {
    if (IsSpace(text[at])) {
      ++at;
      continue;
    }
    std::size_t end = at;
    while (end < text.size() && !IsSpace(text[end])) ++end;
    const std::string_view word = text.substr(at, end - at);
    bool seen = false;
    for (const std::string_view w : words) seen = seen || w == word;
    if (!seen) words.push_back(word);
    at = end;
  }
  return words;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string_view> words = DistinctWords(text);
  bool all_valid = true;
  for (const std::string_view word : words) {
    image_text::Text why;
    if (!image_names::ValidateName(word, &why)) {
      FUZZ_CHECK(!why.empty());
      all_valid = false;
    }
  }
  static image_names::NameList list;  // 4 KiB of views: kept off the stack
  list = image_names::NameList();
  image_text::Text err;
  if (!image_names::ParseNames(text, "--names", &list, &err)) {
    FUZZ_CHECK(!err.empty());
    FUZZ_CHECK(!all_valid || words.size() > image_names::kMaxNames);
    return 0;
  }
  FUZZ_CHECK(all_valid && words.size() <= image_names::kMaxNames);
  FUZZ_CHECK(list.size() == words.size());
  for (std::size_t i = 0; i < words.size(); ++i) FUZZ_CHECK(list[i] == words[i]);
  FUZZ_CHECK(image_names::IsBlank(text) == words.empty());
  return 0;
}
