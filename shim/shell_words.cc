#include "shell_words.h"

namespace shell_words {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

bool IsSeparator(char c) {
  return c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '`' || c == '\n';
}

// Just past the quote that closes the one at `open`, or the text's end.
// Inside double quotes a backslash escapes the next byte; inside single
// quotes nothing does.
std::size_t QuotedEnd(std::string_view text, std::size_t open) {
  const char quote = text[open];
  for (std::size_t i = open + 1; i < text.size(); ++i) {
    if (quote == '"' && text[i] == '\\') {
      ++i;
      continue;
    }
    if (text[i] == quote) return i + 1;
  }
  return text.size();
}

}  // namespace

bool Next(std::string_view text, std::size_t* pos, Token* out) {
  std::size_t i = *pos;
  while (i < text.size() && IsBlank(text[i])) ++i;
  if (i >= text.size()) {
    *pos = i;
    return false;
  }
  if (IsSeparator(text[i])) {
    *out = Token{i, i + 1, i, i + 1, true};
    *pos = i + 1;
    return true;
  }
  const std::size_t begin = i;
  std::size_t leading_quote_end = 0;  // where a quote opening the word closes
  while (i < text.size() && !IsBlank(text[i]) && !IsSeparator(text[i])) {
    if (text[i] == '\\') {
      i = i + 2 < text.size() ? i + 2 : text.size();
    } else if (text[i] == '\'' || text[i] == '"') {
      const std::size_t end = QuotedEnd(text, i);
      if (i == begin) leading_quote_end = end;
      i = end;
    } else {
      ++i;
    }
  }
  *out = Token{begin, i, begin, i, false};
  if (leading_quote_end == i && i - begin >= 2 && text[i - 1] == text[begin]) {
    out->inner_begin = begin + 1;
    out->inner_end = i - 1;
  }
  *pos = i;
  return true;
}

}  // namespace shell_words
