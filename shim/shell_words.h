// Splits a command line (what sh -c runs, or ssh's remote command) into words
// and command separators as a POSIX shell's tokeniser would, closely enough
// for redaction to find each simple command's name and arguments (rule 11 of
// redact.h). No expansion, no heap, one pass: every byte is looked at once,
// but for a word of single quotes joined by escaped ones, read twice.
#ifndef AGT_DENY_SHIM_SHELL_WORDS_H_
#define AGT_DENY_SHIM_SHELL_WORDS_H_

#include <cstddef>
#include <string_view>

namespace shell_words {

struct Token {
  std::size_t begin = 0;  // the word as written, quotes and all
  std::size_t end = 0;
  // The word without its quotes when it is one quoted string ('a b', "a b",
  // $'a b', $"a b"); else the same as begin and end.
  std::size_t inner_begin = 0;
  std::size_t inner_end = 0;
  // ; & | ( ) ` or a newline, outside quotes: the next word names a command.
  bool separator = false;
  // The quotes taken off were single quotes joined by escaped ones ('a '\''b'
  // or 'a '"'"'b'): inside, '\'' and '"'"' are a single quote.
  bool joined = false;
};

// What a text is the inside of, its quotes not yet taken off (rule 11's
// command lines nested in quoted words).
enum class Inside : unsigned char {
  kNone,  // an argument, or a single-quoted string's inside
  // A double-quoted string's: \" is a double quote at its level, \\ a
  // backslash (sh -c "su app -c \"curl -u u:X h\"" inside bash -c '...').
  kDoubleQuotes,
  // Single-quoted strings joined by escaped quotes: '\'' and '"'"' are a
  // single quote at its level (ssh h 'mysql -e '\''select 1'\''' inside
  // bash -c "...").
  kJoinedSingleQuotes,
};

// The token at or after *pos, past blanks; false at the text's end. Quotes
// and backslashes keep blanks and separators inside a word; an unclosed
// quote runs to the end. `inside`: what the text is the inside of.
bool Next(std::string_view text, std::size_t* pos, Token* out, Inside inside = Inside::kNone);

// Just past the quote that closes the one at `open` (' or "), or the text's
// end. Inside double quotes and ANSI-C quotes ($'...': `ansi_c`) a backslash
// escapes the next byte; inside single quotes nothing does.
std::size_t QuotedEnd(std::string_view text, std::size_t open, bool ansi_c);

}  // namespace shell_words

#endif  // AGT_DENY_SHIM_SHELL_WORDS_H_
