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

// Whether `literal` is at `at` (string_view's substr would throw).
bool At(std::string_view text, std::size_t at, std::string_view literal) {
  return at + literal.size() <= text.size() &&
         std::string_view(text.data() + at, literal.size()) == literal;
}

// At `at`, a single quote joined across single-quoted strings: '\'' or
// '"'"' (its length), else 0.
std::size_t JoinedQuoteAt(std::string_view text, std::size_t at) {
  if (At(text, at, "'\\''")) return 4;
  if (At(text, at, "'\"'\"'")) return 5;
  return 0;
}

// In joined text, just past the joined quote that closes the one opened
// before `from`, or the text's end; *close_length: that quote's length (0
// when unclosed).
std::size_t JoinedQuotedEnd(std::string_view text, std::size_t from, std::size_t* close_length) {
  for (std::size_t i = from; i < text.size(); ++i) {
    if (const std::size_t length = JoinedQuoteAt(text, i); length > 0) {
      *close_length = length;
      return i + length;
    }
  }
  *close_length = 0;
  return text.size();
}

// In joined text, just past the '"' that closes the one at `open`: a joined
// quote inside is a single quote, no double one.
std::size_t JoinedDoubleQuotedEnd(std::string_view text, std::size_t open) {
  std::size_t i = open + 1;
  while (i < text.size()) {
    if (text[i] == '\\') {
      i += 2;
    } else if (const std::size_t length = JoinedQuoteAt(text, i); length > 0) {
      i += length;
    } else if (text[i] == '"') {
      return i + 1;
    } else {
      ++i;
    }
  }
  return text.size();
}

// Whether [begin, end) is single-quoted strings joined by an escaped quote
// (\' or "'"), two or more: 'a '\''b'\'' c'.
bool JoinedSingleQuoted(std::string_view text, std::size_t begin, std::size_t end) {
  std::size_t i = begin;
  bool joined = false;
  while (i < end && text[i] == '\'') {
    const std::size_t close = text.find('\'', i + 1);
    if (close == std::string_view::npos || close >= end) return false;
    i = close + 1;
    if (i == end) return joined;
    if (i + 2 < end && text[i] == '\\' && text[i + 1] == '\'') {
      i += 2;
    } else if (i + 3 < end && At(text, i, "\"'\"")) {
      i += 3;
    } else {
      return false;
    }
    joined = true;
  }
  return false;
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

bool Next(std::string_view text, std::size_t* pos, Token* out, Inside inside) {
  const bool escaped = inside == Inside::kDoubleQuotes;
  const bool joined = inside == Inside::kJoinedSingleQuotes;
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
  bool leading_escaped = false;    // the leading quote is \"
  std::size_t leading_joined = 0;  // ... or a joined single quote, this long
  std::size_t closing_joined = 0;  // and its closing one
  while (i < text.size() && !IsBlank(text[i]) && !IsSeparator(text[i])) {
    const bool dollar = !joined && text[i] == '$' && i + 1 < text.size() &&
                        (text[i + 1] == '\'' || text[i + 1] == '"');
    const bool escaped_pair = escaped && text[i] == '\\' && i + 1 < text.size();
    const std::size_t joined_quote = joined ? JoinedQuoteAt(text, i) : 0;
    if (joined_quote > 0) {
      std::size_t close_length = 0;
      const std::size_t end = JoinedQuotedEnd(text, i + joined_quote, &close_length);
      if (i == begin) {
        leading_quote = i;
        leading_quote_end = end;
        leading_joined = joined_quote;
        closing_joined = close_length;
      }
      i = end;
    } else if (joined && text[i] == '"') {
      const std::size_t end = JoinedDoubleQuotedEnd(text, i);
      if (i == begin) {
        leading_quote = i;
        leading_quote_end = end;
      }
      i = end;
    } else if (joined && text[i] == '\'') {
      ++i;  // a quote of the outer strings' alone: passed over
    } else if (escaped_pair && text[i + 1] == '"') {
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
  if (leading_joined > 0) {
    if (leading_quote_end == i && closing_joined > 0) {
      out->inner_begin = leading_quote + leading_joined;
      out->inner_end = i - closing_joined;
    }
  } else if (text[begin] == '\'' && leading_quote_end != i && JoinedSingleQuoted(text, begin, i)) {
    out->inner_begin = begin + 1;
    out->inner_end = i - 1;
    out->joined = true;
  } else if (leading_escaped) {
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
