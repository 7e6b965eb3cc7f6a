#include "shell_words.h"

namespace shell_words {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

bool IsSeparator(char c) {
  return c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '`' || c == '\n';
}

// In an escaped text, past the character a backslash escapes at `at`: \"
// or \\ (one character once unescaped) or one byte.
std::size_t PastEscapedCharacter(std::string_view text, std::size_t at) {
  if (at >= text.size()) return text.size();
  const bool pair =
      text[at] == '\\' && at + 1 < text.size() &&
      (text[at + 1] == '"' || text[at + 1] == '\\' || text[at + 1] == '$' || text[at + 1] == '`');
  return at + (pair ? 2 : 1);
}

// In an escaped text, just past the \" that closes the one at `open` (its
// backslash), or the text's end.
std::size_t EscapedQuotedEnd(std::string_view text, std::size_t open) {
  std::size_t i = open + 2;
  while (i < text.size()) {
    if (text[i] != '\\' || i + 1 >= text.size()) {
      ++i;
    } else if (text[i + 1] == '"') {
      return i + 2;
    } else if (text[i + 1] == '\\') {
      i = PastEscapedCharacter(text, i + 2);  // \\\" is a quote escaped
    } else {
      i += 2;
    }
  }
  return text.size();
}

}  // namespace

std::size_t QuotedEnd(std::string_view text, std::size_t open, bool ansi_c) {
  const char quote = text[open];
  for (std::size_t i = open + 1; i < text.size(); ++i) {
    if ((quote == '"' || ansi_c) && text[i] == '\\') {
      ++i;
      continue;
    }
    if (text[i] == quote) return i + 1;
  }
  return text.size();
}

bool Next(std::string_view text, std::size_t* pos, Token* out, bool escaped) {
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
  // A quote opening the word, after a '$' for $'...' and $"...": where it
  // is, and where it closes.
  std::size_t leading_quote = 0;
  std::size_t leading_quote_end = 0;
  bool leading_escaped = false;  // the leading quote is \"
  while (i < text.size() && !IsBlank(text[i]) && !IsSeparator(text[i])) {
    const bool dollar =
        text[i] == '$' && i + 1 < text.size() && (text[i + 1] == '\'' || text[i + 1] == '"');
    const bool escaped_pair = escaped && text[i] == '\\' && i + 1 < text.size();
    if (escaped_pair && text[i + 1] == '"') {
      const std::size_t end = EscapedQuotedEnd(text, i);
      if (i == begin) {
        leading_quote = i + 1;
        leading_quote_end = end;
        leading_escaped = true;
      }
      i = end;
    } else if (escaped_pair && text[i + 1] == '\\') {
      i = PastEscapedCharacter(text, i + 2);  // \\ escapes what follows
    } else if (text[i] == '\\') {
      i = i + 2 < text.size() ? i + 2 : text.size();
    } else if (dollar || text[i] == '\'' || text[i] == '"') {
      const std::size_t quote = dollar ? i + 1 : i;
      const std::size_t end = QuotedEnd(text, quote, dollar && text[quote] == '\'');
      if (i == begin) {
        leading_quote = quote;
        leading_quote_end = end;
      }
      i = end;
    } else {
      ++i;
    }
  }
  *out = Token{begin, i, begin, i, false};
  if (leading_escaped) {
    if (leading_quote_end == i && i - leading_quote >= 3 && text[i - 1] == '"' &&
        text[i - 2] == '\\') {
      out->inner_begin = leading_quote + 1;
      out->inner_end = i - 2;
    }
  } else if (leading_quote_end == i && i - leading_quote >= 2 &&
             text[i - 1] == text[leading_quote]) {
    out->inner_begin = leading_quote + 1;
    out->inner_end = i - 1;
  }
  *pos = i;
  return true;
}

}  // namespace shell_words
