#include "redact.h"

#include <algorithm>
#include <array>
#include <new>

#include "late_bss.h"
#include "shell_words.h"

namespace redact {

// string_view literals: their length is known when compiled (a plain "..."
// compared with a string_view costs a strlen() call at -Os).
using namespace std::string_view_literals;
using redact_rules::Value;

namespace {

constexpr char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Character classes by table: one load per test, small enough to be inlined
// even at -Os, since the rules test every byte of every argument many times.
enum : unsigned char {
  kAlphaBit = 1,
  kDigitBit = 2,
  kUnderscoreBit = 4,
  kSpaceBit = 8,
  kUpperBit = 16
};

constexpr std::array<unsigned char, 256> MakeClasses() {
  std::array<unsigned char, 256> classes{};
  for (int c = 0; c < 256; ++c) {
    unsigned char bits = 0;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) bits |= kAlphaBit;
    if (c >= 'A' && c <= 'Z') bits |= kUpperBit;
    if (c >= '0' && c <= '9') bits |= kDigitBit;
    if (c == '_') bits |= kUnderscoreBit;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') bits |= kSpaceBit;
    classes[static_cast<std::size_t>(c)] = bits;
  }
  return classes;
}
constexpr std::array<unsigned char, 256> kClasses = MakeClasses();

constexpr bool HasClass(char c, unsigned bits) {
  return (kClasses[static_cast<unsigned char>(c)] & bits) != 0;
}
constexpr bool IsAlpha(char c) { return HasClass(c, kAlphaBit); }
constexpr bool IsUpper(char c) { return HasClass(c, kUpperBit); }
constexpr bool IsLowerAlpha(char c) { return IsAlpha(c) && !IsUpper(c); }
// A lower-case letter at i - 1 followed by an upper-case one at i (i > 0):
// where a camel-case name's next word starts (Access|Key).
constexpr bool CamelHumpAt(std::string_view text, std::size_t i) {
  return IsUpper(text[i]) && IsLowerAlpha(text[i - 1]);
}
constexpr bool IsDigit(char c) { return HasClass(c, kDigitBit); }
constexpr bool IsAlnum(char c) { return HasClass(c, kAlphaBit | kDigitBit); }
constexpr bool IsWordChar(char c) { return HasClass(c, kAlphaBit | kDigitBit | kUnderscoreBit); }
constexpr bool IsSpace(char c) { return HasClass(c, kSpaceBit); }
constexpr bool IsUpperAlnum(char c) { return IsUpper(c) || IsDigit(c); }
constexpr bool IsBase64Url(char c) { return IsAlnum(c) || c == '-' || c == '_'; }
constexpr bool IsTokenChar(char c) {
  return IsAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' ||
         c == '=';
}
constexpr bool IsNameChar(char c) { return IsWordChar(c) || c == '-' || c == '.'; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

bool EndsWithIgnoreCase(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         EqualsIgnoreCase(
             std::string_view(text.data() + text.size() - suffix.size(), suffix.size()), suffix);
}

bool StartsWithIgnoreCase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         EqualsIgnoreCase(std::string_view(text.data(), prefix.size()), prefix);
}

// A byte loop rather than string_view::compare: most calls fail on the
// first byte.
bool StartsWith(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (text[i] != prefix[i]) return false;
  }
  return true;
}

std::string_view Tail(std::string_view text, std::size_t from) {
  return std::string_view(text.data() + from, text.size() - from);
}

// The last word of a name (db_user: user, DATABASE_URL: URL), split as
// IsSecretName splits, but not at case changes.
std::string_view LastNameWord(std::string_view name) {
  std::size_t start = name.size();
  while (start > 0 && name[start - 1] != '-' && name[start - 1] != '_' && name[start - 1] != '.' &&
         name[start - 1] != ':')
    --start;
  return Tail(name, start);
}

// Which lengths (bit i: length i, up to 63) and first letters the words of
// a list have: most names are rejected by these two loads, which keeps rules
// that test a name at every separator (an attacker's "a=a=a=...") cheap.
struct WordFilter {
  unsigned long long lengths = 0;
  std::array<bool, 256> first{};
};

template <typename Words>  // an array of std::string_view, built-in or std::array
constexpr WordFilter MakeWordFilter(const Words& words) {
  WordFilter filter;
  for (std::string_view w : words) {
    if (w.size() < 64) filter.lengths |= 1ull << w.size();
    filter.first[static_cast<unsigned char>(Lower(w[0]))] = true;
    filter.first[static_cast<unsigned char>(w[0] >= 'a' && w[0] <= 'z' ? w[0] - 'a' + 'A' : w[0])] =
        true;
  }
  return filter;
}

template <const auto& kWords>
bool InWords(std::string_view word) {
  static constexpr WordFilter kFilter = MakeWordFilter(kWords);
  if (word.empty() || word.size() >= 64 || (kFilter.lengths >> word.size() & 1) == 0 ||
      !kFilter.first[static_cast<unsigned char>(word[0])]) {
    return false;
  }
  for (std::string_view w : kWords) {
    if (EqualsIgnoreCase(word, w)) return true;
  }
  return false;
}

// A here-document's operator (<<, <<-) in `text`; a here-string's (<<<)
// opens none.
bool MayHoldHeredoc(std::string_view text) {
  for (std::size_t at = text.find("<<"sv); at != std::string_view::npos;
       at = text.find("<<"sv, at + 1)) {
    if (at + 2 >= text.size() || text[at + 2] != '<') return true;
    at += 2;
  }
  return false;
}

// Past an authorization scheme and its blank at the start of `text`
// (Bearer $TOKEN): false when the first of two words is no scheme.
bool PastAuthScheme(std::string_view* text) {
  const std::size_t space = text->find(' ');
  if (space == std::string_view::npos) return true;
  if (!InWords<redact_rules::kAuthSchemes>(std::string_view(text->data(), space))) return false;
  text->remove_prefix(space + 1);
  return true;
}

// Longer is no reference anyone writes; the bound keeps the test of every
// span (up to 2 * kMaxSpans of them) linear in the argument.
constexpr std::size_t kMaxReferenceLength = 256;

// A shell variable's reference and nothing else: $NAME, ${NAME}, $1, in
// double quotes or not, after an authorization scheme or not ("Bearer
// $TOKEN"); with an empty default too (${NAME:-}, ${NAME-}, ${NAME:=}).
// ${NAME:-default} is not one: its default may be a secret.
bool IsVariableReference(std::string_view text) {
  if (text.size() > kMaxReferenceLength) return false;
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"')
    text = std::string_view(text.data() + 1, text.size() - 2);
  if (!PastAuthScheme(&text) || text.size() < 2 || text[0] != '$') return false;
  std::size_t i = 1;
  const bool braced = text[1] == '{';
  if (braced) i = 2;
  if (i < text.size() && IsDigit(text[i])) {
    ++i;  // $1, ${1}
  } else {
    if (i >= text.size() || !(IsAlpha(text[i]) || text[i] == '_')) return false;
    while (i < text.size() && (IsAlnum(text[i]) || text[i] == '_')) ++i;
  }
  if (braced) {
    if (i + 1 < text.size() && text[i] == ':' && (text[i + 1] == '-' || text[i + 1] == '=')) {
      i += 2;
    } else if (i < text.size() && text[i] == '-') {
      ++i;
    }
    if (i >= text.size() || text[i] != '}') return false;
    ++i;
  }
  return i == text.size();
}

}  // namespace

namespace {
// The spans being collected live in static storage, not on the stack: a
// denial must reach its record under an RLIMIT_STACK as small as a static
// no-op survives (8 KiB). Collectors never nest (only NextArgument and
// Standalone make one, and neither calls the other).
Span g_collected[2 * kMaxSpans];
}  // namespace

// Collects spans in any order; Finish() sorts and merges them.
class Collector {
 public:
  explicit Collector(std::size_t text_size) : text_size_(text_size) {}

  // Rule 11 feeds the words of a command line one by one: spans added from
  // then on are relative to the word, which starts at `base` in the text.
  std::size_t base() const { return base_; }
  void set_base(std::size_t base) { base_ = base; }

  void Add(std::size_t begin, std::size_t end) {
    begin += base_;
    end += base_;
    if (end > text_size_) end = text_size_;
    if (end <= begin) return;
    if (begin < overflow_begin_) overflow_begin_ = begin;
    if (overflow_ || count_ == 2 * kMaxSpans) {
      overflow_ = true;
      return;
    }
    raw_[count_++] = Span{begin, end};
  }

  // A span added so far ends at `end` (relative to the base): the text
  // before it is hidden to there.
  bool HidesTo(std::size_t end) const {
    if (overflow_) return true;
    for (std::size_t i = 0; i < count_; ++i) {
      if (raw_[i].end == base_ + end) return true;
    }
    return false;
  }

  // `shell_text`, when not empty, is the argument: a shell's command
  // string, where a variable's reference is shown (ShowReferences).
  void Finish(Spans* out, std::string_view shell_text = {}) {
    out->count = 0;
    if (overflow_) {
      out->items[0] = Span{overflow_begin_, text_size_};
      out->count = 1;
      return;
    }
    for (std::size_t i = 1; i < count_; ++i) {  // insertion sort: tiny n
      Span s = raw_[i];
      std::size_t j = i;
      while (j > 0 && raw_[j - 1].begin > s.begin) {
        raw_[j] = raw_[j - 1];
        --j;
      }
      raw_[j] = s;
    }
    if (!shell_text.empty()) ShowReferences(shell_text);
    for (std::size_t i = 0; i < count_; ++i) {
      if (out->count > 0 && raw_[i].begin <= out->items[out->count - 1].end) {
        Span& last = out->items[out->count - 1];
        if (raw_[i].end > last.end) last.end = raw_[i].end;
        continue;
      }
      if (out->count == kMaxSpans) {  // more secrets than slots: redact the rest
        out->items[kMaxSpans - 1].end = text_size_;
        return;
      }
      out->items[out->count++] = raw_[i];
    }
  }

 private:
  // In a shell's command string, a value that is only a variable's
  // reference ($DB_PASSWORD, "${TOKEN}") is the shell's to expand: it names
  // a secret and holds none (kubectl exec db -- sh -c 'mysql
  // -p$MYSQL_PASSWORD'). Not in a word with a single quote, where '$' is
  // itself ('$ecret', $'...'), not after a backslash (or PowerShell's
  // backtick), and not at all where
  // a here-document may be, whose body is literal when its delimiter is
  // quoted. The spans are sorted; one pass over the words.
  void ShowReferences(std::string_view text) {
    bool any = false;
    for (std::size_t i = 0; i < count_ && !any; ++i)
      any = IsVariableReference(Slice(text, raw_[i]));
    if (!any || MayHoldHeredoc(text)) return;
    std::size_t kept = 0;
    std::size_t pos = 0;
    shell_words::Token word;
    bool have_word = false;
    for (std::size_t i = 0; i < count_; ++i) {
      const Span s = raw_[i];
      while ((!have_word || word.end <= s.begin) &&
             (have_word = shell_words::Next(text, &pos, &word))) {
      }
      const bool expanded =
          have_word && !word.separator && word.begin <= s.begin && s.end <= word.end &&
          Slice(text, Span{word.begin, word.end}).find('\'') == std::string_view::npos &&
          (s.begin == 0 || (text[s.begin - 1] != '\\' && text[s.begin - 1] != '`'));
      if (expanded && IsVariableReference(Slice(text, s))) continue;
      raw_[kept++] = s;
    }
    count_ = kept;
  }
  static std::string_view Slice(std::string_view text, Span s) {
    return std::string_view(text.data() + s.begin, s.end - s.begin);
  }

  Span* raw_ = g_collected;  // only [0, count_) is ever read
  std::size_t count_ = 0;
  std::size_t text_size_;
  std::size_t base_ = 0;
  bool overflow_ = false;
  std::size_t overflow_begin_ = static_cast<std::size_t>(-1);
};

namespace {

// Whether a newline written out (backslash, n: printf's and $'...''s) starts
// at `at`.
bool WrittenNewlineAt(std::string_view text, std::size_t at) {
  return at + 1 < text.size() && text[at] == '\\' && text[at + 1] == 'n';
}

// A word without the quotes around it ('EOF' is EOF).
std::string_view Unquoted(std::string_view word) {
  if (word.size() >= 2 && (word[0] == '\'' || word[0] == '"') && word.back() == word[0])
    return std::string_view(word.data() + 1, word.size() - 2);
  return word;
}

// The word that ends before `at`, past blanks (var in "var password"), from
// a line's start written out (printf '\nvar password ...').
std::string_view WordBefore(std::string_view arg, std::size_t at) {
  std::size_t end = at;
  while (end > 0 && (arg[end - 1] == ' ' || arg[end - 1] == '\t')) --end;
  std::size_t begin = end;
  while (begin > 0 && IsWordChar(arg[begin - 1]) &&
         !(begin >= 2 && WrittenNewlineAt(arg, begin - 2)))
    --begin;
  return std::string_view(arg.data() + begin, end - begin);
}

// A Python string prefix (f'...', rb"..."): at most two of these letters.
bool IsStringPrefix(std::string_view word) {
  if (word.empty() || word.size() > 2) return false;
  for (char c : word) {
    const char l = Lower(c);
    if (l != 'f' && l != 'r' && l != 'b' && l != 'u') return false;
  }
  return true;
}

// Where a string's prefix ends (f"x", rb'x', Python's), or `begin`.
std::size_t PastStringPrefix(std::string_view arg, std::size_t begin) {
  std::size_t end = begin;
  while (end < arg.size() && end - begin < 2 && IsAlpha(arg[end])) ++end;
  const bool quoted = end < arg.size() && (arg[end] == '\'' || arg[end] == '"');
  return quoted && IsStringPrefix(std::string_view(arg.data() + begin, end - begin)) ? end : begin;
}

// A double quote written escaped, \", at `at` (in a double-quoted shell word:
// data = \"password=X\").
bool EscapedQuoteAt(std::string_view arg, std::size_t at) {
  return at + 1 < arg.size() && arg[at] == '\\' && arg[at + 1] == '"';
}

// A string opened by an escaped quote at `open` (code or SQL in a
// double-quoted string: python3 -c "f(\"u\", \"PW\")"): where it ends, past
// its closing \" before `limit` (the outer string's closing quote), else at
// `limit` - 1.
std::size_t EscapedStringEnd(std::string_view arg, std::size_t open, std::size_t limit) {
  for (std::size_t i = open + 2; i + 1 < limit; ++i) {
    if (EscapedQuoteAt(arg, i)) return i + 2;
  }
  return limit - 1;
}

// Past the string quoted at `open`, '...', "..." or escaped \"...\"; to the
// argument's end when unclosed.
std::size_t StringEnd(std::string_view arg, std::size_t open) {
  return EscapedQuoteAt(arg, open) ? EscapedStringEnd(arg, open, arg.size() + 1)
                                   : shell_words::QuotedEnd(arg, open, false);
}

// Whether the double-quoted string from `open` to `end` holds an escaped quote.
bool HoldsEscapedQuote(std::string_view arg, std::size_t open, std::size_t end) {
  return std::string_view(arg.data() + open + 1, end - open - 1).find("\\\"") !=
         std::string_view::npos;
}

// Whether a '[' is still open at a position: Kafka's
// SCRAM-SHA-256=[password=X] (not Helm's env[0].value=X, closed before).
// Asked at positions that only grow, it reads each byte once.
struct BracketScan {
  std::size_t scanned = 0;
  bool open = false;
  bool OpenAt(std::string_view arg, std::size_t at) {
    for (; scanned < at && scanned < arg.size(); ++scanned) {
      if (arg[scanned] == '[') open = true;
      if (arg[scanned] == ']') open = false;
    }
    return open;
  }
};

// The end of the line at `at`: a newline, or one written out (printf
// '...\nToken: X\n'), or `quote`; with `blank_ends`, a blank too (the
// line's first word).
std::size_t LineEnd(std::string_view arg, std::size_t at, char quote, bool blank_ends = false) {
  while (at < arg.size() && arg[at] != '\n' && arg[at] != '\r' && arg[at] != quote &&
         !WrittenNewlineAt(arg, at) && !(blank_ends && (arg[at] == ' ' || arg[at] == '\t')))
    ++at;
  return at;
}

// An assignment's operator that is more than '=' (Go's and Python's :=,
// Make's ?= and +=, JavaScript's ??= and ||=, jq's |=), at `at`: where its
// '=' is; else `at`.
std::size_t CompoundAssignmentEquals(std::string_view arg, std::size_t at) {
  if (at >= arg.size() || (arg[at] != ':' && arg[at] != '?' && arg[at] != '|' && arg[at] != '+'))
    return at;
  static constexpr std::string_view kPrefixes[] = {"::", ":", "??", "?", "||", "|", "+"};
  for (const std::string_view prefix : kPrefixes) {
    const std::size_t equals = at + prefix.size();
    if (StartsWith(Tail(arg, at), prefix) && equals < arg.size() && arg[equals] == '=' &&
        (equals + 1 >= arg.size() || arg[equals + 1] != '='))
      return equals;
  }
  return at;
}

bool IsConversionOnly(std::string_view value);

// In a shell's command string, the end of the word at `at` (its quotes
// kept together: a='x y' ends after the closing quote): `at` at a
// separator, the text's end where no word starts (a blank).
std::size_t ShellWordEnd(std::string_view text, std::size_t at) {
  shell_words::Token word;
  std::size_t pos = at;
  if (!shell_words::Next(text, &pos, &word) || word.begin != at) return text.size();
  return word.separator ? at : word.end;
}

// Rule 1's config file lines: after "NAME = " (`value` just past the '='),
// the rest of the line when NAME is secret, unless the value is code's
// (quoted: rule 13's; a list; a call or a string's subscript in its first
// word: password = getpass(), token = ENV["T"] || "x"). Only a value found
// is scanned to the line's end, and passed over: the scan stays linear.
std::size_t ConfigLineValue(std::string_view arg, std::size_t offset, std::string_view name,
                            std::size_t value, Collector* spans) {
  while (value < arg.size() && (arg[value] == ' ' || arg[value] == '\t')) ++value;
  value = PastStringPrefix(arg, value);  // Python's f'...': quoted too
  if (value >= arg.size() || arg[value] == '\'' || arg[value] == '"' || arg[value] == '[' ||
      arg[value] == '{' || EscapedQuoteAt(arg, value))
    return offset;
  std::size_t word_end = value;
  while (word_end < arg.size() && !IsSpace(arg[word_end]) && arg[word_end] != '(' &&
         !(arg[word_end] == '[' && word_end + 1 < arg.size() &&
           (arg[word_end + 1] == '"' || arg[word_end + 1] == '\''))) {
    ++word_end;
  }
  if (word_end < arg.size() && !IsSpace(arg[word_end])) return offset;
  // Code's null, true or false (api_key = None) holds none, nor does
  // printf's conversion (password = %s\n: its argument does).
  const std::string_view word(arg.data() + value, word_end - value);
  if (InWords<redact_rules::kCodeLiterals>(word) || IsConversionOnly(word)) return offset;
  if (!IsSecretName(name, true)) return offset;  // last: the costliest look
  std::size_t end = LineEnd(arg, value, '\n');
  // A line after \n written out is inside a string (echo "[default]\nkey =
  // X" >> f): its closing quote ends the value.
  if (offset >= 2 && WrittenNewlineAt(arg, offset - 2)) {
    for (std::size_t q = value; q < end; ++q) {
      if ((arg[q] == '"' || arg[q] == '\'') && arg[q - 1] != '\\') {
        end = q;
        break;
      }
    }
  }
  if (end == value) return offset;
  spans->Add(value, end);
  return end;
}

// IsSecretName; with `last_word_only`, only the last word (with the one
// before it, its qualifier) makes the name secret: api_key and
// GITHUB_TOKEN, not auth-api.
bool SecretName(std::string_view name, bool allow_exclusions, bool last_word_only);

// A task glued to its namespace from `at`, to a blank, a quote or the end:
// words of lowercase letters and '-' between colons, the last of them one
// of kTaskVerbs (auth:web:login).
bool NamesTask(std::string_view arg, std::size_t at) {
  std::size_t word_begin = at;
  std::size_t i = at;
  for (; i < arg.size() && !IsSpace(arg[i]) && arg[i] != '\'' && arg[i] != '"'; ++i) {
    if (arg[i] == ':') {
      if (i == word_begin) return false;
      word_begin = i + 1;
    } else if (!IsLowerAlpha(arg[i]) && arg[i] != '-') {
      return false;
    }
  }
  return InWords<redact_rules::kTaskVerbs>(
      std::string_view(arg.data() + word_begin, i - word_begin));
}

// A value that only refers to a secret held elsewhere: a template's
// placeholder, after an optional authorization scheme as a shell
// variable's (IsVariableReference), in quotes or not (JavaScript's
// `Bearer ${token}`, Python's f"Bearer {token}", Ruby's "Bearer #{token}").
bool IsTemplateReference(std::string_view value) {
  if (value.size() > kMaxReferenceLength) return false;
  while (!value.empty() && (value.front() == '`' || value.front() == '"' || value.front() == '\''))
    value.remove_prefix(1);
  while (!value.empty() && (value.back() == '`' || value.back() == '"' || value.back() == '\''))
    value.remove_suffix(1);
  if (!PastAuthScheme(&value)) return false;
  if (!value.empty() && (value[0] == '$' || value[0] == '#')) value.remove_prefix(1);
  // A template engine's {{ name }} too (Jinja's, Helm's, curl's --expand-*).
  const bool doubled = value.size() >= 5 && StartsWith(value, "{{"sv) &&
                       value[value.size() - 2] == '}' && value.back() == '}';
  const std::size_t braces = doubled ? 2 : 1;
  if (value.size() < 3 || value.front() != '{' || value.back() != '}') return false;
  std::string_view name(value.data() + braces, value.size() - 2 * braces);
  if (doubled) {
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  }
  for (char c : name) {
    if (!IsWordChar(c) && c != '.') return false;
  }
  return !name.empty();
}

// A value that only stands for one: a template's reference or printf's
// conversion (Bearer ${token}, token = "%s").
bool IsPlaceholder(std::string_view value) {
  return IsTemplateReference(value) || IsConversionOnly(value);
}

// A header's name ending in -key or _key that names a credential (Fastly-Key,
// X-API-Key), not kNonCredentialKeyHeaders.
bool IsKeyHeader(std::string_view name) {
  return (EndsWithIgnoreCase(name, "-key"sv) || EndsWithIgnoreCase(name, "_key"sv)) &&
         !InWords<redact_rules::kNonCredentialKeyHeaders>(name);
}

// Rule 1 on the text from `offset`: "Name: value", the value ending at a
// newline (curl takes several headers from one argument line by line).
// Returns where the value ends, or `offset` when there is none. With
// `pair` (lines of YAML: a line may start as a list's item, "- "), a pair
// too: "name: DB_PASSWORD" (kPairNames) sets *pair, and makes the next
// "value: x" (kPairValues) secret.
std::size_t HeaderRule(std::string_view arg, std::size_t offset, Collector* spans,
                       bool* pair = nullptr, bool prose = false, bool word_ends = false) {
  std::size_t i = offset;
  while (i < arg.size() && (arg[i] == ' ' || arg[i] == '\t')) ++i;
  if (pair != nullptr && i + 1 < arg.size() && arg[i] == '-' && arg[i + 1] == ' ') i += 2;
  // A quote opening the header: -H'Authorization: ...' in a command line
  // (rule 11), where the quote is still part of the word. The value then
  // ends at the closing quote too.
  char quote = '\n';
  if (i < arg.size() && (arg[i] == '\'' || arg[i] == '"')) quote = arg[i++];
  std::size_t name_begin = i;
  // A YAML or properties key may be dotted (spring.datasource.password: V);
  // a header's name is not, nor is jq's path (.db.password = $pw).
  while (i < arg.size() && (IsAlnum(arg[i]) || arg[i] == '-' || arg[i] == '_' ||
                            (pair != nullptr && arg[i] == '.' && i > name_begin)))
    ++i;
  std::string_view name(arg.data() + name_begin, i - name_begin);
  const std::size_t name_end = i;
  while (i < arg.size() && (arg[i] == ' ' || arg[i] == '\t')) ++i;
  // A config file's line, '=' between blanks (INI's password = x): in the
  // scan of every argument (`pair`), not in a header option's value.
  // Make's too (TOKEN ?= x, PASSWORD := x).
  const std::size_t equals = i > name_end ? CompoundAssignmentEquals(arg, i) : i;
  const bool config_line = pair != nullptr && i > name_end && equals + 1 < arg.size() &&
                           arg[equals] == '=' &&
                           (arg[equals + 1] == ' ' || arg[equals + 1] == '\t');
  if (config_line) return ConfigLineValue(arg, offset, name, equals + 1, spans);
  if (name.empty() || i >= arg.size() || arg[i] != ':') return offset;
  // A path's separator, no value's: Rust's and C++'s token::tests (not
  // Make's TOKEN ::= x).
  if (i + 1 < arg.size() && arg[i + 1] == ':' && !(i + 2 < arg.size() && arg[i + 2] == '='))
    return offset;
  // A task's namespace, ':' glued to its task (rails credentials:edit,
  // Symfony's secrets:set NAME, heroku auth:token, eas secret:create), in
  // any argument; a header's name still takes its value.
  if (pair != nullptr && i == name_end && i + 1 < arg.size() && arg[i + 1] != ' ' &&
      arg[i + 1] != '\t' && (InWords<redact_rules::kTaskNamespaces>(name) || NamesTask(arg, i + 1)))
    return offset;
  if (StartsWith(name, "-"sv) && InWords<redact_rules::kOptionSources>(Tail(arg, i + 1)))
    return offset;
  const bool pair_name = pair != nullptr && InWords<redact_rules::kPairNames>(name);
  const bool pair_value = pair != nullptr && *pair && InWords<redact_rules::kPairValues>(name);
  // A header option's -key (Fastly-Key: V); elsewhere a key is an object's
  // (partition-key: id in YAML).
  const bool key_header = pair == nullptr && IsKeyHeader(name);
  // In YAML a name's exclusions hold as in NAME=value (token_path: F,
  // password_file: F); a header's name is taken whole. With ':' glued to
  // its value outside a header option, the name's last word decides
  // (api_key:V, not an image's auth-api:latest).
  const bool glued =
      pair != nullptr && i + 1 < arg.size() && arg[i + 1] != ' ' && arg[i + 1] != '\t';
  if (!pair_name && !pair_value && !key_header &&
      !InWords<redact_rules::kCredentialHeaders>(name) && !SecretName(name, pair != nullptr, glued))
    return offset;
  // A header's name is taken whole (X-Auth-Token-Path), but for who is
  // asking: Cloudflare's X-Auth-Email, Swift's X-Auth-User.
  if (pair == nullptr && InWords<redact_rules::kHeaderIdentityWords>(LastNameWord(name)))
    return offset;
  ++i;
  if (i < arg.size() && arg[i] == '=') ++i;  // HTTPie's password:=V, Make's TOKEN:=V
  while (i < arg.size() && (arg[i] == ' ' || arg[i] == '\t')) ++i;
  // In prose (a commit's message), a value of more than one word is text
  // ("auth: fix token refresh"): passed over to its first blank, unhidden.
  if (prose) {
    const std::size_t word_end = LineEnd(arg, i, quote, true);
    if (word_end < arg.size() && (arg[word_end] == ' ' || arg[word_end] == '\t')) return word_end;
  }
  // In a shell's command string, an unquoted value ends with its word
  // (bundletool --ks-pass=pass:X --ks-key-alias=k): the line's end is
  // looked for only to there, so each byte is scanned once.
  const std::size_t limit = word_ends && quote == '\n' ? ShellWordEnd(arg, i) : arg.size();
  const std::size_t end = LineEnd(std::string_view(arg.data(), limit), i, quote);
  if (pair_name) {
    *pair = IsSecretName(Unquoted(std::string_view(arg.data() + i, end - i)), true);
    return end;
  }
  if (pair != nullptr) *pair = false;
  const std::string_view value(arg.data() + i, end - i);
  if (!IsPlaceholder(value)) spans->Add(i, end);
  return end;
}

// Rule 1 wherever a header may start: the argument's start, after '=' and
// after a newline, real or written out. A failed try stops at the first
// byte that is not part of a name; a value found is passed over whole (it
// is secret anyway), so no byte is scanned twice.
void HeadersAnywhere(std::string_view arg, Collector* spans, bool prose, bool word_ends) {
  bool pair = false;  // a YAML pair's name named a secret: its value is next
  std::size_t i = HeaderRule(arg, 0, spans, &pair, prose, word_ends);
  for (; i < arg.size(); ++i) {
    // After '=', a newline, or a newline written out (printf's '\n').
    std::size_t start = i + 1;
    if (WrittenNewlineAt(arg, i)) {
      start = i + 2;
    } else if (arg[i] != '=' && arg[i] != '\n') {
      continue;
    }
    const std::size_t end = HeaderRule(arg, start, spans, &pair, prose, word_ends);
    if (end > start) i = end - 1;
  }
}

bool IsBodyChar(redact_rules::Body body, char c) {
  switch (body) {
    case redact_rules::Body::kAlnum: return IsAlnum(c);
    case redact_rules::Body::kAlnumUnderscore: return IsWordChar(c);
    case redact_rules::Body::kUpperAlnum: return IsUpperAlnum(c);
    case redact_rules::Body::kBase64Url: return IsBase64Url(c);
    case redact_rules::Body::kBase64UrlDot: return IsBase64Url(c) || c == '.';
    case redact_rules::Body::kAlnumDash: return IsAlnum(c) || c == '-';
  }
  return false;
}

// For each first byte, the token shapes that start with it (rows
// order[start[b]] to order[start[b + 1]] - 1), so a position is passed over
// with one load and only the shapes that can match are tried.
constexpr std::size_t kTokenShapeCount =
    sizeof redact_rules::kTokenShapes / sizeof redact_rules::kTokenShapes[0];
static_assert(kTokenShapeCount <= 255, "a row's number fits a byte");

struct TokenShapeIndex {
  std::array<unsigned char, kTokenShapeCount> order;
  std::array<unsigned char, 257> start;
};

constexpr TokenShapeIndex MakeTokenShapeIndex() {
  TokenShapeIndex index{};
  std::size_t n = 0;
  for (std::size_t b = 0; b < 256; ++b) {
    index.start[b] = static_cast<unsigned char>(n);
    for (std::size_t i = 0; i < kTokenShapeCount; ++i) {
      if (static_cast<unsigned char>(redact_rules::kTokenShapes[i].prefix[0]) == b)
        index.order[n++] = static_cast<unsigned char>(i);
    }
  }
  index.start[256] = static_cast<unsigned char>(n);
  return index;
}
constexpr TokenShapeIndex kTokenShapeIndex = MakeTokenShapeIndex();

// The end of the longest token shape starting at `p`, or `p` when none does.
// A shape whose body is too short stops scanning at its minimum length, so a
// failed call costs a bounded number of steps.
std::size_t TokenShapeAt(std::string_view arg, std::size_t p) {
  std::size_t best = p;
  if (p >= arg.size()) return best;
  const unsigned char first = static_cast<unsigned char>(arg[p]);
  for (std::size_t k = kTokenShapeIndex.start[first]; k < kTokenShapeIndex.start[first + 1]; ++k) {
    const redact_rules::TokenShape& shape = redact_rules::kTokenShapes[kTokenShapeIndex.order[k]];
    if (!StartsWith(Tail(arg, p), shape.prefix)) continue;
    std::size_t body = p + shape.prefix.size();
    std::size_t end = body;
    while (end < arg.size() && IsBodyChar(shape.body, arg[end])) ++end;
    if (end - body >= shape.min_body && end > best) best = end;
  }
  return best;
}

// A user name this long without a password is taken for a token.
constexpr std::size_t kOpaqueUserMin = 20;

// Rule 2's values: `user:pass` (and its kin) from `offset` to the end.
// Oracle's user/password@db (also user/password alone): the password; a
// '/' after the '@' is the database's (user@//host/service has none), and
// a leading '/' is no user (/nolog, / as sysdba).
void ConnectStringPassword(std::string_view arg, std::size_t offset, Collector* spans) {
  std::size_t slash = offset;
  while (slash < arg.size() && arg[slash] != '/' && arg[slash] != '@' && !IsSpace(arg[slash]))
    ++slash;
  if (slash == offset || slash == arg.size() || arg[slash] != '/') return;
  std::size_t end = slash + 1;
  while (end < arg.size() && arg[end] != '@' && !IsSpace(arg[end])) ++end;
  if (end > slash + 1) spans->Add(slash + 1, end);
}

// Impacket's target, [domain/]user:password@host: the password, from the
// first ':' to the last '@' (a password may hold '@'); none without both.
void TargetPassword(std::string_view arg, std::size_t offset, Collector* spans) {
  const std::size_t at = arg.rfind('@');
  if (at == std::string_view::npos || at < offset) return;
  const std::size_t colon = arg.find(':', offset);
  if (colon < at) spans->Add(colon + 1, at);
}

// The AWS CLI's parameter files (--secret-string file://creds.json,
// --plaintext fileb://data.bin), Tailscale's (--authkey
// file:/etc/tailscale/authkey), OpenSSL's (-passin file:pw.txt): the value
// is read from the file it names.
bool IsFileUrl(std::string_view value) {
  return StartsWith(value, "file:"sv) || StartsWith(value, "fileb://"sv);
}

bool NamesAFile(std::string_view value);

// A secret option's whole value that holds no secret: where the secret is
// read from, stdin's name (unrar -p-: no password; --secret-string -), a
// file's or a variable's URL, a path after '@'; or a flag's value or a
// mechanism (kFlagValues).
bool HoldsNoSecret(std::string_view value) {
  return InWords<redact_rules::kStdinPaths>(value) || IsFileUrl(value) ||
         StartsWith(value, "env://"sv) ||  // Boundary's -password env://NAME
         InWords<redact_rules::kFlagValues>(value) ||
         // A file's path after '@': jenkins-cli -auth @/run/creds.
         (value.size() > 1 && value[0] == '@' && NamesAFile(Tail(value, 1)));
}

// A value that names a file: it starts as a path does (/, ~, ./ or ../)
// or ends in a key file's extension (an option naming a key file: ansible
// --private-key ~/.ssh/id_ed25519, wget --private-key=k.pem).
bool NamesAFile(std::string_view value) {
  if (value.empty()) return false;
  if (value[0] == '/' || value[0] == '~') return true;
  if (StartsWith(value, "./"sv) || StartsWith(value, "../"sv)) return true;
  if (IsFileUrl(value)) return true;
  for (std::string_view extension : redact_rules::kKeyFileExtensions) {
    if (EndsWithIgnoreCase(value, extension)) return true;
  }
  return false;
}

// Credentials given as a file (GOOGLE_APPLICATION_CREDENTIALS=/k.json,
// --credentials ~/.config/creds.json): a path, or a JSON file's name.
bool NamesCredentialsFile(std::string_view name, std::string_view value) {
  return (EndsWithIgnoreCase(name, "credentials"sv) || EndsWithIgnoreCase(name, "credential"sv)) &&
         (NamesAFile(value) || EndsWithIgnoreCase(value, ".json"sv));
}

void ToolValue(Value value, std::string_view arg, std::size_t offset, Collector* spans) {
  char separator = 0;
  switch (value) {
    case Value::kWhole:
      if (!HoldsNoSecret(Tail(arg, offset))) spans->Add(offset, arg.size());
      return;
    case Value::kHeader: HeaderRule(arg, offset, spans); return;
    case Value::kPassSource: {
      static constexpr std::string_view kSecretSources[] = {"pass:"sv, "key:"sv, "hexkey:"sv};
      for (const std::string_view source : kSecretSources) {
        if (StartsWith(Tail(arg, offset), source)) spans->Add(offset + source.size(), arg.size());
      }
      return;
    }
    case Value::kCookies:
      if (Tail(arg, offset).find('=') != std::string_view::npos) spans->Add(offset, arg.size());
      return;
    case Value::kConnectString: ConnectStringPassword(arg, offset, spans); return;
    case Value::kTarget: TargetPassword(arg, offset, spans); return;
    case Value::kUnlessPath:
      if (!NamesAFile(Tail(arg, offset))) spans->Add(offset, arg.size());
      return;
    case Value::kReference: return;
    case Value::kAfterColon: separator = ':'; break;
    case Value::kAfterComma: separator = ','; break;
    case Value::kAfterPercent: separator = '%'; break;
  }
  // A user that is itself a key (curl -u sk_test_...: as Stripe takes it).
  std::size_t token_end = TokenShapeAt(arg, offset);
  if (token_end > offset) spans->Add(offset, token_end);
  for (std::size_t i = offset; i < arg.size(); ++i) {
    if (arg[i] == separator) {
      // Nothing after ':' (curl -u KEY:): the user is the key, as APIs
      // that take a key as the basic-auth user have it.
      if (i + 1 == arg.size()) {
        spans->Add(offset, i);
      } else {
        spans->Add(i + 1, arg.size());
      }
      return;
    }
  }
}

// Rule 4's userinfo [begin, at): the password after the first ':', the user
// kept; without a ':' the user is hidden when it is a token (ghp_...@) or
// long enough to be one.
void UserinfoRule(std::string_view arg, std::size_t begin, std::size_t at, Collector* spans) {
  for (std::size_t i = begin; i < at; ++i) {
    if (arg[i] != ':') continue;
    // A template's placeholder (Vault's {{password}}, printf's %s): none yet.
    const std::string_view password(arg.data() + i + 1, at - i - 1);
    const bool placeholder = (StartsWith(password, "{{"sv) && password.size() > 4 &&
                              Tail(password, password.size() - 2) == "}}"sv) ||
                             IsConversionOnly(password);
    if (!placeholder) spans->Add(i + 1, at);
    return;
  }
  if (TokenShapeAt(arg, begin) >= at || at - begin >= kOpaqueUserMin) spans->Add(begin, at);
}

// Rule 4, bot tokens: on a kBotTokenHosts host, each path segment from `at`
// (a '/') that is bot<digit>...: what follows "bot", ':' and all (a token
// is bot<id>:<secret>, so the path ends at "://" here, not at any ':').
void BotTokenSegments(std::string_view arg, std::size_t at, Collector* spans) {
  while (at < arg.size() && arg[at] == '/') {
    std::size_t end = at + 1;
    while (end < arg.size() && arg[end] != '/' && arg[end] != '?' && arg[end] != '#' &&
           !IsSpace(arg[end]) && arg[end] != '"' && arg[end] != '\'' &&
           !(arg[end] == ':' && StartsWith(Tail(arg, end), "://"sv))) {
      ++end;
    }
    if (end - at > 4 && StartsWith(Tail(arg, at + 1), "bot"sv) && IsDigit(arg[at + 4]))
      spans->Add(at + 4, end);
    at = end;
  }
}

// Rule 4, schemes: userinfo and capability paths of scheme://authority/path.
void UrlRule(std::string_view arg, Collector* spans) {
  for (std::size_t i = 0; i + 3 <= arg.size(); ++i) {
    if (arg[i] != ':' || !StartsWith(Tail(arg, i), "://"sv)) continue;
    std::size_t s = i;
    while (s > 0 &&
           (IsAlnum(arg[s - 1]) || arg[s - 1] == '+' || arg[s - 1] == '.' || arg[s - 1] == '-'))
      --s;
    if (s == i || !IsAlpha(arg[s])) continue;
    std::size_t begin = i + 3;
    std::size_t at = std::string_view::npos;
    std::size_t j = begin;
    for (; j < arg.size(); ++j) {
      char c = arg[j];
      if (c == '/' || c == '?' || c == '#' || IsSpace(c) || c == '"' || c == '\'') break;
      if (c == '@') at = j;  // the last '@': passwords may hold a raw '@'
    }
    if (at != std::string_view::npos) UserinfoRule(arg, begin, at, spans);
    std::string_view host(arg.data() + (at == std::string_view::npos ? begin : at + 1),
                          j - (at == std::string_view::npos ? begin : at + 1));
    // The path, up to its query, fragment, white space, a quote or the next
    // ':' (where a nested URL may start, whose own turn this leaves alone).
    std::size_t path_end = j;
    while (path_end < arg.size()) {
      char c = arg[path_end];
      if (c == '?' || c == '#' || c == ':' || IsSpace(c) || c == '"' || c == '\'') break;
      ++path_end;
    }
    if (InWords<redact_rules::kBotTokenHosts>(host)) BotTokenSegments(arg, j, spans);
    // A webhook host's or a stream's URL: its path after the first segment.
    bool secret_after_first =
        InWords<redact_rules::kStreamKeySchemes>(std::string_view(arg.data() + s, i - s));
    for (std::string_view prefix : redact_rules::kCapabilityHostPrefixes)
      secret_after_first |= StartsWithIgnoreCase(host, prefix);
    std::size_t segment = j;  // at a '/'
    std::size_t index = 0;
    while (segment < path_end && arg[segment] == '/') {
      std::size_t next = segment + 1;
      while (next < path_end && arg[next] != '/') ++next;
      std::string_view name(arg.data() + segment + 1, next - segment - 1);
      if (next < path_end && ((secret_after_first && index == 0) ||
                              InWords<redact_rules::kCapabilitySegments>(name))) {
        spans->Add(next + 1, path_end);
        break;
      }
      segment = next;
      ++index;
    }
    i = j > i ? j - 1 : i;
  }
}

bool IsUserChar(char c) {
  return c != ':' && c != '@' && c != '/' && c != '=' && c != '?' && c != '#' && c != '"' &&
         c != '\'' && !IsSpace(c);
}

// Rule 4 without a scheme: user:pass@host at the start of the argument or
// after '=' or white space (curl -x u:p@proxy:3128, --proxy=u:p@h); not
// an address in angle brackets (MAIL FROM:<a@b>). Each try
// that fails stops where any later start in the same word would fail too.
void SchemelessUserinfoRule(std::string_view arg, Collector* spans) {
  std::size_t p = 0;
  while (p < arg.size()) {
    std::size_t i = p;
    while (i < arg.size() && IsUserChar(arg[i])) ++i;
    std::size_t next = i + 1;
    if (i < arg.size() && arg[i] == ':' && i + 1 < arg.size() && arg[i + 1] != '/') {
      std::size_t at = std::string_view::npos;
      std::size_t j = i + 1;
      for (; j < arg.size() && arg[j] != '/' && !IsSpace(arg[j]) && arg[j] != '"' && arg[j] != '\'';
           ++j) {
        if (arg[j] == '@') at = j;
      }
      bool host =
          at != std::string_view::npos && at > i + 1 && at + 1 < arg.size() && IsAlnum(arg[at + 1]);
      for (std::string_view digest : redact_rules::kDigestPrefixes) {
        if (host && StartsWithIgnoreCase(Tail(arg, at + 1), digest)) host = false;
      }
      // An address in angle brackets, no password (SMTP's MAIL FROM:<a@b>).
      // (Its '>' looked for in this word only: past it a search could read
      // the rest of the argument once per word.)
      if (arg[i + 1] == '<' &&
          std::string_view(arg.data() + i, j - i).find('>') != std::string_view::npos)
        host = false;
      if (host) spans->Add(i + 1, at);
      next = j;
    }
    // On to the next start: after '=' or white space.
    p = next;
    while (p < arg.size() && arg[p - 1] != '=' && !IsSpace(arg[p - 1])) ++p;
  }
}

// Whether `at` starts a dotted name given a value (config.Password=): a
// name, a '.', a name, then '='.
bool DottedNameAt(std::string_view arg, std::size_t at) {
  std::size_t i = at;
  while (i < arg.size() && (IsWordChar(arg[i]) || arg[i] == '-')) ++i;
  if (i == at || i >= arg.size() || arg[i] != '.') return false;
  const std::size_t name = ++i;
  while (i < arg.size() && IsWordChar(arg[i])) ++i;
  return i > name && i < arg.size() && arg[i] == '=';
}

// True when `at` starts NAME= (a name of letters, digits, '_', '-', '.').
// Returns the name's end in *name_end either way.
bool AssignmentAt(std::string_view arg, std::size_t at, std::size_t* name_end) {
  std::size_t i = at;
  if (i < arg.size() && (IsAlpha(arg[i]) || arg[i] == '_')) {
    while (i < arg.size() && IsNameChar(arg[i])) ++i;
  }
  *name_end = i;
  return i > at && i < arg.size() && arg[i] == '=';
}

// The value of an assignment at the start of an argument runs to its end (an
// environment value may hold '&', ',' or spaces), unless white space, ',' or
// '&' is followed by another NAME= (db_password=x db_user=app, as ansible's
// --extra-vars and gcloud's --set-env-vars take them). Each name run is
// scanned once.
std::size_t EndOfLeadingValue(std::string_view arg, std::size_t begin) {
  for (std::size_t i = begin; i < arg.size(); ++i) {
    char c = arg[i];
    if (!IsSpace(c) && c != ',' && c != '&') continue;
    std::size_t name_end = i + 1;
    if (AssignmentAt(arg, i + 1, &name_end)) return i;
    if (name_end > i + 1) i = name_end - 1;
  }
  return arg.size();
}

// The inside of the quoted string [open, end) (to `end` when unclosed).
Span QuotedInside(std::string_view arg, std::size_t open, std::size_t end) {
  if (arg[open] == '\\') {  // an escaped quote's string (\"x\"), in a string's code
    const bool closed = end - open >= 4 && arg[end - 2] == '\\' && arg[end - 1] == '"';
    return Span{open + 2, closed ? end - 2 : end};
  }
  const bool closed = end - open >= 2 && arg[end - 1] == arg[open];
  return Span{open + 1, closed ? end - 1 : end};
}

// Past a value that opens with a quote ('x y', "x y", $'x y', b"x y"):
// where its closing quote is (or the argument's end); else `begin`.
std::size_t PastOpeningQuote(std::string_view arg, std::size_t begin) {
  if (begin >= arg.size()) return begin;
  const bool dollar = arg[begin] == '$';
  const std::size_t quote = dollar ? begin + 1 : PastStringPrefix(arg, begin);
  if (quote >= arg.size() || (arg[quote] != '\'' && arg[quote] != '"')) return begin;
  return shell_words::QuotedEnd(arg, quote, dollar && arg[quote] == '\'');
}

// A printf conversion at `percent` (%s, %-8.2s, %*d, %ld): where it ends,
// past its letter, or npos when none is there (%%, % at the end). Its
// flags, width and precision are [-+ #0-9.*]; each '*' takes one of the
// arguments as well (*stars).
std::size_t ConversionEnd(std::string_view format, std::size_t percent, unsigned* stars) {
  *stars = 0;
  std::size_t i = percent + 1;
  for (; i < format.size(); ++i) {
    const char c = format[i];
    if (c == '*') {
      ++*stars;
    } else if (!IsDigit(c) && c != '-' && c != '+' && c != ' ' && c != '#' && c != '.') {
      break;
    }
  }
  while (i < format.size() && "hlLqjzt"sv.find(format[i]) != std::string_view::npos &&
         i + 1 < format.size() && IsAlpha(format[i + 1]))
    ++i;  // a length modifier before the letter (%ld, %lld)
  if (i >= format.size() || !IsAlpha(format[i])) return std::string_view::npos;
  return i + 1;
}

// A printf conversion alone (%s, %-8.2s), or ending a line (%s\n), in
// quotes, escaped or not, or not, a statement's ';' after them or not, after
// an authorization scheme or not (Bearer %s, "%s";\n): a format's
// placeholder for a value, not one.
bool IsConversionOnly(std::string_view value) {
  const auto quote = [](char c) { return c == '"' || c == '\'' || c == '\\'; };
  while (!value.empty() && quote(value.front())) value.remove_prefix(1);
  if (!PastAuthScheme(&value) || value.empty() || value[0] != '%') return false;
  unsigned stars = 0;
  std::size_t end = ConversionEnd(value, 0, &stars);
  if (end == std::string_view::npos) return false;
  while (end < value.size() && quote(value[end]) && !WrittenNewlineAt(value, end)) ++end;
  if (end < value.size() && value[end] == ';') ++end;
  return end == value.size() || WrittenNewlineAt(value, end);
}

// "==" at `eq`, then a version: a digit first, a '.' in it, to the word's
// end (2.23.0, 1.0rc1).
bool PinsVersion(std::string_view arg, std::size_t eq) {
  if (eq + 2 >= arg.size() || arg[eq + 1] != '=' || !IsDigit(arg[eq + 2])) return false;
  bool dot = false;
  std::size_t i = eq + 2;
  for (; i < arg.size() && i < eq + 2 + 32; ++i) {
    const char c = arg[i];
    if (c == ' ' || c == ',' || c == ';' || c == '\'' || c == '"') break;
    if (!IsAlnum(c) && c != '.' && c != '+' && c != '-' && c != '*') return false;
    dot = dot || c == '.';
  }
  return dot && (i >= arg.size() || !IsAlnum(arg[i]));
}

// Rule 5, a shell parameter's default: ${TOKEN:-X}, ${TOKEN:=X}, ${TOKEN-X},
// ${TOKEN=X} with a secret name: X, to the closing brace. A default that
// is a reference ($OTHER) is shown; one that nests a substitution or a
// brace is left to the other rules.
[[gnu::noinline]] void ParameterDefaultRule(std::string_view arg, Collector* spans) {
  for (std::size_t p = 0; (p = arg.find("${"sv, p)) != std::string_view::npos;) {
    p += 2;
    std::size_t i = p;
    while (i < arg.size() && (IsAlnum(arg[i]) || arg[i] == '_')) ++i;
    const std::string_view name(arg.data() + p, i - p);
    if (i < arg.size() && arg[i] == ':') ++i;
    if (name.empty() || i >= arg.size() || (arg[i] != '-' && arg[i] != '=')) continue;
    const std::size_t begin = i + 1;
    std::size_t close = begin;
    while (close < arg.size() && arg[close] != '}' && arg[close] != '$' && arg[close] != '{' &&
           arg[close] != '`')
      ++close;
    if (close >= arg.size() || arg[close] != '}' || close == begin) continue;
    if (IsSecretName(name, true)) spans->Add(begin, close);
    p = close;
  }
}

// Rule 5, an option inside one argument: --NAME with a secret name, a
// blank, then its value (REDIS_ARGS="--requirepass X", EXTRA_OPTS='--db-
// password X'): the value, to a blank or a quote. Not in prose nor in a
// shell's command string (its words are options and values there, rules 2
// and 3); a value that is an option, a redirection or a reference (--token
// -h, --password < f, --token $T) is none.
[[gnu::noinline]] void OptionInTextRule(std::string_view arg, Collector* spans) {
  for (std::size_t p = 0; (p = arg.find("--"sv, p)) != std::string_view::npos;) {
    const bool starts = p == 0 || IsSpace(arg[p - 1]) || arg[p - 1] == '"' || arg[p - 1] == '\'' ||
                        arg[p - 1] == '=';
    const std::size_t name_begin = p + 2;
    std::size_t i = name_begin;
    while (i < arg.size() && (IsAlnum(arg[i]) || arg[i] == '-' || arg[i] == '_' || arg[i] == '.'))
      ++i;
    p = i;
    if (!starts || i == name_begin || i + 1 >= arg.size() || arg[i] != ' ') continue;
    const std::size_t begin = i + 1;
    const char first = arg[begin];
    if (first == '-' || first == '<' || first == '>' || first == '|' || first == '&' ||
        first == ';' || first == '$' || first == '`' || first == '"' || first == '\'' ||
        IsSpace(first))
      continue;
    std::size_t end = begin;
    while (end < arg.size() && !IsSpace(arg[end]) && arg[end] != '"' && arg[end] != '\'' &&
           !EscapedQuoteAt(arg, end))
      ++end;
    if (IsSecretName(std::string_view(arg.data() + name_begin, i - name_begin), true))
      spans->Add(begin, end);
    p = end;
  }
}

// Rule 5. `shell_words_end`: the argument is a shell's command string, where
// a leading value ends with its word (A_TOKEN='x y' gh pr create).
void AssignmentRule(std::string_view arg, Collector* spans, bool shell_words_end) {
  // -Dname=value, -Pname=value: a one-letter option glued to an assignment.
  std::size_t first = 0;
  if (arg.size() > 2 && arg[0] == '-' && IsAlpha(arg[1]) && (IsAlpha(arg[2]) || arg[2] == '_'))
    first = 2;
  // An option's attached value starts like an argument: --from-literal=password=a b.
  std::size_t option_value = std::string_view::npos;
  bool file_option = false;  // kubectl's --from-file=NAME=PATH
  if (!arg.empty() && arg[0] == '-') {
    const std::size_t eq = arg.find('=');
    if (eq != std::string_view::npos) option_value = eq + 1;
    file_option = eq != std::string_view::npos &&
                  InWords<redact_rules::kStoreFileOptions>(std::string_view(arg.data(), eq));
  }
  bool pair_value_secret = false;  // a pair's name named a secret: its value is next
  // Inside braces a '}' ends a value (the AWS CLI's shorthand
  // Variables={API_KEY=X}), and inside a command or process substitution a
  // ')' ($(echo TOKEN=X), --env-file <(echo TOKEN=X)); one opening found is
  // enough to know. Inside a bracket still open, a ']' does.
  BracketScan brackets;
  const std::size_t first_brace = arg.find('{');
  const std::size_t first_paren = arg.find('(');  // most arguments have none
  // And inside an array: creds=([user]=u [password]=X).
  const std::size_t first_substitution =
      first_paren == std::string_view::npos
          ? first_paren
          : std::min({arg.find("$("sv), arg.find("<("sv), arg.find(">("sv), arg.find("=("sv)});
  for (std::size_t p = 0; p < arg.size(); ++p) {
    bool at_start = p == 0 || p == first || p == option_value;
    if (!at_start) {
      char before = arg[p - 1];
      // \n written out, as printf and $'...' take it: a line starts after it
      // (printf 'username=u\npassword=X\n' | git credential approve).
      const bool escaped_newline = p >= 2 && WrittenNewlineAt(arg, p - 2);
      // A string's opening quote too: print('API_KEY=X'), f.write("TOKEN=X\n").
      // A list item's member too: Helm's --set env[0].name=TOKEN,env[0].value=X.
      const bool item_member = before == '.' && p >= 2 && arg[p - 2] == ']';
      // A package path's last part, then a dotted name: Go's linker flag
      // -X github.com/acme/app/config.Password=X.
      const bool package_member = before == '/' && DottedNameAt(arg, p);
      if (before != '?' && before != '&' && before != '#' && before != ';' && before != '=' &&
          before != ',' && before != ':' && before != '{' && before != '(' && before != '[' &&
          before != '\'' && before != '"' && !IsSpace(before) && !escaped_newline && !item_member &&
          !package_member) {
        continue;
      }
    }
    // An option in a value: GRADLE_OPTS=-Dsigning.password=X, an option's
    // (-Dspring-boot.run.arguments=--db.password=X), its dashes no part of
    // the name.
    if ((!at_start || p == option_value) && arg[p] == '-') {
      // In a shell's command string, a word's own option (--client-key=F)
      // is its command's, read by its rows as at the top (rule 3).
      if (shell_words_end && p > 0 && IsSpace(arg[p - 1])) continue;
      p += p + 1 < arg.size() && arg[p + 1] == '-' ? 2 : 1;
      if (p >= arg.size()) break;
    }
    if (!(IsAlpha(arg[p]) || arg[p] == '_')) continue;
    std::size_t i = p;
    while (i < arg.size() && IsNameChar(arg[i])) ++i;
    const std::string_view name(arg.data() + p, i - p);
    // A subscript's key names the value: the shell's creds[password]=X,
    // an associative array's ([password]=X); the shell's += appends to it.
    if (p > 0 && arg[p - 1] == '[' && i + 1 < arg.size() && arg[i] == ']' && arg[i + 1] == '=') ++i;
    if (i + 1 < arg.size() && arg[i] == '+' && arg[i + 1] == '=') ++i;
    // Not a version pinned (pip install google-auth==2.23.0), though
    // HTTPie's query parameter (api_key==V) and code's comparison
    // (password=="x") hold a value.
    if (i >= arg.size() || arg[i] != '=' || PinsVersion(arg, i)) {
      p = i > p ? i - 1 : p;  // no start inside a name
      continue;
    }
    // In a query string (?pwd=, &pwd=) pwd is a password, not the shell's
    // directory; so is it in a connection string (Server=db;User ID=sa;Pwd=X).
    // And there an API's key, an OAuth code or a session is a credential
    // (?key=, &code=, ;jsessionid=).
    const bool in_query = p > 0 && (arg[p - 1] == '?' || arg[p - 1] == '&' || arg[p - 1] == ';');
    // An OAuth code is long; a country's or a status' code (?code=US) short.
    const bool query_code = in_query && EqualsIgnoreCase(name, "code"sv);
    const bool query_secret = in_query && (query_code || EqualsIgnoreCase(name, "pwd"sv) ||
                                           InWords<redact_rules::kQuerySecretNames>(name));
    // A pair: Name=DB_PASSWORD,Value=x (kPairNames, then kPairValues).
    if (!query_secret && InWords<redact_rules::kPairNames>(name)) {
      std::size_t value_end = i + 1;
      while (value_end < arg.size() && IsNameChar(arg[value_end])) ++value_end;
      pair_value_secret =
          IsSecretName(std::string_view(arg.data() + i + 1, value_end - i - 1), true);
      p = value_end - 1;  // past the '=' at i, so past p
      continue;
    }
    const bool pair_value = pair_value_secret && InWords<redact_rules::kPairValues>(name);
    pair_value_secret = false;
    // A credential header's name too (az rest --headers
    // 'Authorization=Bearer X'), but for those that also name a setting
    // (authentication=ldap).
    const bool header = InWords<redact_rules::kCredentialHeaders>(name) &&
                        !InWords<redact_rules::kNonSecretLastWords>(name);
    if (!query_secret && !pair_value && !header && !IsSecretName(name, true)) {
      p = i - 1;
      continue;
    }
    std::size_t begin = i + 1;
    // The shell's array of secrets (PASSWORDS=(a b), declare -a TOKENS=(...)):
    // its elements, to the ')'. One opening with a quote is code's group of
    // strings (auth=('u', 'PW')), which rule 14 reads.
    if (begin + 1 < arg.size() && arg[begin] == '(' && arg[begin + 1] != '\'' &&
        arg[begin + 1] != '"' && !EscapedQuoteAt(arg, begin + 1)) {
      std::size_t close = begin + 1;
      while (close < arg.size() && arg[close] != ')') {
        close = arg[close] == '\'' || arg[close] == '"' ? shell_words::QuotedEnd(arg, close, false)
                                                        : close + 1;
      }
      spans->Add(begin + 1, std::min(close, arg.size()));
      p = close;
      continue;
    }
    // A template (Ansible's Jinja): the secret is a string at its start
    // ({{ 'x' | password_hash('sha512') }}); a variable ({{ db_password }})
    // is none.
    if (StartsWith(Tail(arg, begin), "{{"sv)) {
      std::size_t quote = begin + 2;
      while (quote < arg.size() && arg[quote] == ' ') ++quote;
      if (quote < arg.size() && (arg[quote] == '\'' || arg[quote] == '"')) {
        const std::size_t close = shell_words::QuotedEnd(arg, quote, true);
        const Span inside = QuotedInside(arg, quote, close);
        spans->Add(inside.begin, inside.end);
        p = close - 1;
      } else {
        p = begin + 1;
      }
      continue;
    }
    std::size_t end = begin;
    if (at_start && shell_words_end) {
      end = ShellWordEnd(arg, p);
    } else if (at_start) {
      end = EndOfLeadingValue(arg, begin);
    } else if ((end = PastOpeningQuote(arg, begin)) == begin) {
      // A quote after the value's first byte ends it ('...?token=abc'), and
      // so does \n written out (a line's end in a string: "TOKEN=X\nA=1").
      // A session's id as a path's parameter (;jsessionid=X?q=1) ends where
      // the query starts (a connection string's Password=, after ';', may
      // hold a '?').
      const bool path_parameter =
          in_query && arg[p - 1] == ';' && InWords<redact_rules::kQuerySecretNames>(name);
      while (end < arg.size() && arg[end] != '&' && arg[end] != '#' && arg[end] != ',' &&
             !IsSpace(arg[end]) && arg[end] != '\'' && arg[end] != '"' && arg[end] != ';' &&
             !(path_parameter && arg[end] == '?') && !WrittenNewlineAt(arg, end) &&
             !EscapedQuoteAt(arg, end) && !(arg[end] == '}' && first_brace < p) &&
             !(arg[end] == ')' && first_substitution < p) &&
             !(arg[end] == ']' && brackets.OpenAt(arg, p))) {
        ++end;
      }
      // auth=('u', 'PW'), auth=HTTPBasicAuth('u', 'PW'): code opening a
      // group of strings, which rule 14 reads; the opening is no secret.
      if (end > begin && end < arg.size() && (arg[end - 1] == '(' || arg[end - 1] == '[') &&
          (arg[end] == '\'' || arg[end] == '"' || EscapedQuoteAt(arg, end))) {
        p = end - 1;
        continue;
      }
    }  // else a quoted value, whole (db_password='x y', connect(password='x')).
    // password=-, --from-file=token=/dev/stdin: where the secret is read
    // from; API_KEY=%s\n in printf's format: where it goes.
    const std::string_view value(arg.data() + begin, end - begin);
    const bool short_code = query_code && value.size() < redact_rules::kMinOAuthCodeLength;
    // TOKEN=$(cat f): a command substitution, whose commands rule 11 reads
    // (a command line's word ends at its '(': TOKEN=$).
    const bool substitution = value == "$"sv || StartsWith(value, "$("sv);
    if (!HoldsNoSecret(value) && !IsConversionOnly(value) && !short_code && !substitution &&
        !NamesCredentialsFile(name, value) &&
        !(file_option && p == option_value && NamesAFile(value)))
      spans->Add(begin, end);
    p = end > p ? end - 1 : p;
  }
}

// Rule 6.
void AuthSchemeRule(std::string_view arg, Collector* spans) {
  for (std::size_t p = 0; p < arg.size(); ++p) {
    if (p > 0 && IsWordChar(arg[p - 1])) continue;
    if (!IsAlpha(arg[p])) continue;
    std::size_t word_end = p;
    while (word_end < arg.size() && IsAlpha(arg[word_end])) ++word_end;
    std::string_view word(arg.data() + p, word_end - p);
    p = word_end - 1;
    const bool sasl_plain =
        EqualsIgnoreCase(word, redact_rules::kSaslPlain) &&
        InWords<redact_rules::kSaslCommands>(WordBefore(arg, p + 1 - word.size()));
    if (!InWords<redact_rules::kAuthSchemes>(word) && !sasl_plain) continue;
    std::size_t i = word_end;
    if (i >= arg.size() || !IsSpace(arg[i])) continue;
    while (i < arg.size() && IsSpace(arg[i])) ++i;
    std::size_t end = i;
    while (end < arg.size() && IsTokenChar(arg[end])) ++end;
    // Not a long option: a credential (base64, a token) never starts so
    // (sqlmap --auth-type Basic --auth-cred u:X in a command string).
    if (end - i >= 8 && !StartsWith(Tail(arg, i), "--"sv)) spans->Add(i, end);
  }
}

// Whether a protocol's line may start at `p`: the text's start, after a
// newline real or written out (\n, \r), or after a quote opening a string.
bool ProtocolLineStart(std::string_view text, std::size_t p) {
  return p == 0 || text[p - 1] == '\n' || text[p - 1] == '\r' || text[p - 1] == '"' ||
         text[p - 1] == '\'' ||
         (p >= 2 && text[p - 2] == '\\' && (text[p - 1] == 'n' || text[p - 1] == 'r'));
}

// Whether one of kProtocolPasswordCommands ends at `at`, at a line's start
// (printf 'AUTH %s\r\n' X | nc h 6379: the conversion after it).
[[gnu::noinline]] bool ProtocolPasswordBefore(std::string_view text, std::size_t at) {
  for (std::string_view name : redact_rules::kProtocolPasswordCommands) {
    if (at >= name.size() &&
        std::string_view(text.data() + at - name.size(), name.size()) == name &&
        ProtocolLineStart(text, at - name.size()))
      return true;
  }
  return false;
}

// Where a line in a text ends, from `begin`: at a newline, real or written
// out (\n; with `written_return`, \r too, as printf's protocol lines end),
// or at a quote.
std::size_t LineOrQuoteEnd(std::string_view arg, std::size_t begin, bool written_return = false) {
  std::size_t end = begin;
  while (end < arg.size() && arg[end] != '"' && arg[end] != '\'' && arg[end] != '\n' &&
         arg[end] != '\r' && !WrittenNewlineAt(arg, end) &&
         !(written_return && end + 1 < arg.size() && arg[end] == '\\' && arg[end + 1] == 'r'))
    ++end;
  return end;
}

// Past a line's end at `at` (a newline or return, real or written out,
// \r\n as one): where the next line starts; `at` when no line ends there.
std::size_t NextLineStart(std::string_view arg, std::size_t at) {
  std::size_t next = at;
  for (int ends = 0; ends < 2 && next < arg.size(); ++ends) {
    if (arg[next] == '\n' || arg[next] == '\r') {
      ++next;
    } else if (next + 1 < arg.size() && arg[next] == '\\' &&
               (arg[next + 1] == 'n' || arg[next + 1] == 'r')) {
      next += 2;
    } else {
      break;
    }
    if (arg[next - 1] == 'n' || arg[next - 1] == '\n') break;  // a newline ends the pair
  }
  return next;
}

// Where a protocol's word from `at` ends: a quoted one ("x", or \"x\" in a
// double-quoted string) past its closing quote, else at a blank or its
// line's end.
std::size_t ProtocolWordEnd(std::string_view arg, std::size_t at) {
  if (EscapedQuoteAt(arg, at) || (at < arg.size() && arg[at] == '"')) return StringEnd(arg, at);
  const std::size_t line_end = LineOrQuoteEnd(arg, at, true);
  const std::size_t blank = arg.find(' ', at);
  return blank < line_end ? blank : line_end;
}

// A protocol's password from `begin`: a quoted word's inside, else the
// rest of its line; none when it is printf's conversion (rule 11 hides its
// argument).
void ProtocolPassword(std::string_view arg, std::size_t begin, Collector* spans) {
  std::size_t end = LineOrQuoteEnd(arg, begin, true);
  if (EscapedQuoteAt(arg, begin) || (begin < arg.size() && arg[begin] == '"')) {
    const Span inside = QuotedInside(arg, begin, ProtocolWordEnd(arg, begin));
    begin = inside.begin;
    end = inside.end;
  }
  if (end > begin && !IsConversionOnly(std::string_view(arg.data() + begin, end - begin)))
    spans->Add(begin, end);
}

// Whether the LOGIN at `login` is IMAP's (a1 LOGIN bob X, . login bob X):
// after a tag at a line's start, a letter then letters and digits with a
// digit among them, not a version's, or a lone '.' ("1 login failure" is
// a log's line).
bool ImapLoginAt(std::string_view text, std::size_t login) {
  if (login < 2 || text[login - 1] != ' ') return false;
  std::size_t tag = login - 1;  // the blank after the tag
  if (text[tag - 1] == '.') return ProtocolLineStart(text, tag - 1);
  bool digit = false;
  while (tag > 0 && (IsAlpha(text[tag - 1]) || IsDigit(text[tag - 1]))) {
    digit |= IsDigit(text[tag - 1]);
    --tag;
  }
  // Not a version's (v2 LOGIN page redesign).
  const bool version = (text[tag] == 'v' || text[tag] == 'V') && IsDigit(text[tag + 1]);
  return digit && IsAlpha(text[tag]) && !version && ProtocolLineStart(text, tag);
}

// Whether a format's conversion ending at `at` fills IMAP's password:
// printf 'a1 LOGIN %s %s\r\n' u X, the second after LOGIN. The user's
// conversion is read back to its '%' only (a search back to a blank would
// read the format once per conversion).
[[gnu::noinline]] bool ImapLoginPasswordBefore(std::string_view format, std::size_t at) {
  std::size_t percent = at;
  while (percent > 0 && (IsAlnum(format[percent - 1]) || format[percent - 1] == '-' ||
                         format[percent - 1] == '+' || format[percent - 1] == '#' ||
                         format[percent - 1] == '.' || format[percent - 1] == '*'))
    --percent;
  if (percent == 0 || format[percent - 1] != '%') return false;
  const std::size_t blank = percent - 2;  // before the '%', if it is one
  const std::size_t length = redact_rules::kLoginCommand.size();
  if (percent < length + 3 || format[blank] != ' ') return false;
  const std::string_view user(format.data() + blank + 1, at - blank - 1);
  const std::string_view command(format.data() + blank - length, length);
  return IsConversionOnly(user) && EqualsIgnoreCase(command, redact_rules::kLoginCommand) &&
         ImapLoginAt(format, blank - length);
}

// Rule 6, a line protocol's password: the rest of the line after a command
// of kProtocolPasswordCommands (AUTH X, PASS X) at a line's start, to the
// line's end or a quote; after SMTP's AUTH LOGIN on its own line, the
// second line after it (the password's base64); IMAP's LOGIN's password
// (ImapLoginAt). Not in prose, nor after another SASL mechanism
// (kFlagValues). The commands are searched for, not each byte tried.
[[gnu::noinline]] void ProtocolPasswordRule(std::string_view arg, Collector* spans) {
  for (std::string_view name : redact_rules::kProtocolPasswordCommands) {
    for (std::size_t at = arg.find(name); at != std::string_view::npos;
         at = arg.find(name, at + 1)) {
      const std::size_t begin = at + name.size() + 1;
      if (begin > arg.size() || arg[begin - 1] != ' ' || !ProtocolLineStart(arg, at)) continue;
      const std::size_t end = LineOrQuoteEnd(arg, begin, true);
      const std::size_t first_end = ProtocolWordEnd(arg, begin);
      const std::string_view first(arg.data() + begin, first_end - begin);
      if (EqualsIgnoreCase(first, redact_rules::kLoginCommand) && first_end == end) {
        const std::size_t user = NextLineStart(arg, end);
        const std::size_t password = NextLineStart(arg, LineOrQuoteEnd(arg, user, true));
        if (user > end && password > user) ProtocolPassword(arg, password, spans);
      } else if (!InWords<redact_rules::kFlagValues>(first)) {
        ProtocolPassword(arg, begin, spans);
      }
    }
  }
  for (std::string_view login : {redact_rules::kLoginCommand, redact_rules::kLoginCommandLower}) {
    for (std::size_t at = arg.find(login); at != std::string_view::npos;
         at = arg.find(login, at + 1)) {
      if (at + login.size() >= arg.size() || arg[at + login.size()] != ' ' || !ImapLoginAt(arg, at))
        continue;
      // A user, not an option (saml2aws login --username bob: a command).
      const std::size_t user = at + login.size() + 1;
      const std::size_t user_end = ProtocolWordEnd(arg, user);
      if (user_end < arg.size() && arg[user_end] == ' ' && arg[user] != '-')
        ProtocolPassword(arg, user_end + 1, spans);
    }
  }
}

// Rule 7: token shapes at word starts. After a token the scan goes on past
// its end; after a failed try the next start is at least one word later.
void TokenShapeRule(std::string_view arg, Collector* spans) {
  for (std::size_t p = 0; p < arg.size(); ++p) {
    if (p > 0 && IsWordChar(arg[p - 1])) continue;
    std::size_t end = TokenShapeAt(arg, p);
    if (end > p) {
      spans->Add(p, end);
      p = end - 1;
    }
  }
}

std::size_t Base64UrlRun(std::string_view arg, std::size_t from) {
  std::size_t i = from;
  while (i < arg.size() && IsBase64Url(arg[i])) ++i;
  return i - from;
}

// Rule 7, JSON Web Tokens. A start inside a run that failed would end at the
// same '.' and fail the same way, so the scan resumes after the run.
void JwtRule(std::string_view arg, Collector* spans) {
  for (std::size_t p = 0; p + 3 <= arg.size(); ++p) {
    if (p > 0 && IsWordChar(arg[p - 1])) continue;
    if (arg[p] != 'e' || !StartsWith(Tail(arg, p), "eyJ"sv)) continue;
    std::size_t header = Base64UrlRun(arg, p);
    std::size_t i = p + header;
    if (header < 10 || i >= arg.size() || arg[i] != '.') {
      p = i - 1;
      continue;
    }
    std::size_t payload = Base64UrlRun(arg, i + 1);
    i += 1 + payload;
    if (payload < 10 || i >= arg.size() || arg[i] != '.') {
      p = i - 1;
      continue;
    }
    i += 1 + Base64UrlRun(arg, i + 1);
    spans->Add(p, i);
    p = i - 1;
  }
}

// Rule 7, PEM private key blocks: from BEGIN to the matching END line, or to
// the end of the argument.
void PemPrivateKeyRule(std::string_view arg, Collector* spans) {
  constexpr std::string_view kBegin = "-----BEGIN ";
  constexpr std::string_view kDashes = "-----";
  std::size_t p = 0;
  while ((p = arg.find(kBegin, p)) != std::string_view::npos) {
    std::size_t label_begin = p + kBegin.size();
    std::size_t label_end = arg.find(kDashes, label_begin);
    if (label_end == std::string_view::npos) label_end = arg.size();
    std::string_view label(arg.data() + label_begin, label_end - label_begin);
    if (label.find("PRIVATE KEY") == std::string_view::npos) {
      p = label_begin;
      continue;
    }
    std::size_t end = arg.size();
    std::size_t end_marker = arg.find("-----END ", label_end);
    if (end_marker != std::string_view::npos) {
      std::size_t close = arg.find(kDashes, end_marker + 9);
      if (close != std::string_view::npos) end = close + kDashes.size();
    }
    spans->Add(p, end);
    p = end;
  }
}

// Whether the properties of Azure Pipelines' task.setvariable, as
// "variable=NAME;issecret=true", make its value a secret.
bool SetsSecretVariable(std::string_view properties) {
  std::size_t start = 0;
  for (std::size_t i = 0; i <= properties.size(); ++i) {
    if (i < properties.size() && properties[i] != ';' && !IsSpace(properties[i])) continue;
    const std::string_view property(properties.data() + start, i - start);
    start = i + 1;
    const std::size_t eq = property.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view name(property.data(), eq);
    const std::string_view value = Tail(property, eq + 1);
    if ((EqualsIgnoreCase(name, "issecret"sv) && EqualsIgnoreCase(value, "true"sv)) ||
        (EqualsIgnoreCase(name, "variable"sv) && IsSecretName(value, true)))
      return true;
  }
  return false;
}

// A CI's command that sets a value to the rest of its line (`command`, its
// properties, `close`, the value): the value, to its line's end or a quote,
// when `secret` says the properties make it one.
template <typename PropertiesSecret>
void SetCommandValues(std::string_view arg, std::string_view command, std::string_view close,
                      PropertiesSecret secret, Collector* spans) {
  for (std::size_t p = 0; (p = arg.find(command, p)) != std::string_view::npos;) {
    p += command.size();
    const std::size_t properties_end = arg.find(close, p);
    if (properties_end == std::string_view::npos) return;
    const std::size_t begin = properties_end + close.size();
    const std::size_t end = LineOrQuoteEnd(arg, begin);
    if (secret(std::string_view(arg.data() + p, properties_end - p))) spans->Add(begin, end);
    p = end;
  }
}

// Rule 7, a CI's command to mask a value in its logs (GitHub Actions'
// ::add-mask::VALUE, kMaskMarkers) or to set a secret variable (GitHub
// Actions' kWorkflowSetCommands, Azure Pipelines' kSetVariableCommand): the
// value, to its line's end or a quote.
void MaskCommandRule(std::string_view arg, Collector* spans) {
  // Every command starts with "::" or "##": most arguments have neither.
  if (arg.find(':') == std::string_view::npos && arg.find('#') == std::string_view::npos) return;
  for (std::string_view marker : redact_rules::kMaskMarkers) {
    std::size_t p = 0;
    while ((p = arg.find(marker, p)) != std::string_view::npos) {
      const std::size_t begin = p + marker.size();
      p = LineOrQuoteEnd(arg, begin);
      spans->Add(begin, p);
    }
  }
  const auto names_secret = [](std::string_view properties) {  // name=token
    return StartsWith(properties, "name="sv) && IsSecretName(Tail(properties, 5), true);
  };
  for (std::string_view command : redact_rules::kWorkflowSetCommands)
    SetCommandValues(arg, command, "::"sv, names_secret, spans);
  SetCommandValues(arg, redact_rules::kSetVariableCommand, "]"sv, SetsSecretVariable, spans);
}

std::size_t SkipSpace(std::string_view text, std::size_t at) {
  while (at < text.size() && IsSpace(text[at])) ++at;
  return at;
}

// A secret name as code and data name it: also pwd, which as a shell
// variable is a directory, but as a member or a name given a string is
// MongoDB's (and others') password.
bool IsCodeSecretName(std::string_view name) { return name == "pwd"sv || IsSecretName(name, true); }

// A name in code whose value is secret: a secret name or a credential
// header (rules 13 and 14: API_KEY = 'x', auth=(...), ('X-Api-Key', 'x'),
// s.headers['X-API-Key'] = 'x').
bool NamesCodeSecret(std::string_view name) {
  return IsCodeSecretName(name) || InWords<redact_rules::kCredentialHeaders>(name) ||
         (name.find('-') != std::string_view::npos && IsKeyHeader(name));
}

// Rule 10: a quoted member name holding a secret word, then ':' and a quoted
// or bare value ({"password":"x"}, {'token': 'x'}, "api_key": 42): the value;
// and a pair's value after its name ({"name": "DB_PASSWORD", "value": "x"}:
// kPairNames, then kPairValues).
// Inside a double-quoted shell word the quotes are escaped
// ("{\"password\":\"x\"}" in sh -c's string): \" is a quote then.
// Each quote starts at most one name scan, which ends at the next quote of
// its kind, so every byte is scanned at most twice.
// Rule 10 in XML: an element whose tag is a secret name, its text, when
// its closing tag ends it (Maven's <password>V</password>; not a usage
// line's <token>), for '<' at `at`. Returns where the scan goes on: past
// the text, or `at` when this is no such element.
std::size_t SecretXmlElement(std::string_view arg, std::size_t at, Collector* spans) {
  std::size_t name_end = at + 1;
  while (name_end < arg.size() && (IsNameChar(arg[name_end]) || arg[name_end] == ':')) ++name_end;
  if (name_end == at + 1 || name_end >= arg.size() || arg[name_end] != '>') return at;
  const std::string_view name(arg.data() + at + 1, name_end - at - 1);
  std::size_t end = name_end + 1;
  while (end < arg.size() && arg[end] != '<') ++end;
  const std::string_view close = Tail(arg, end);
  if (close.size() < name.size() + 3 || close[1] != '/' ||
      std::string_view(close.data() + 2, name.size()) != name || close[name.size() + 2] != '>' ||
      !IsSecretName(name, true))
    return at;
  if (!IsConversionOnly(std::string_view(arg.data() + name_end + 1, end - name_end - 1)))
    spans->Add(name_end + 1, end);  // printf's <password>%s</password>: its argument is
  return end - 1;
}

void QuotedMemberRule(std::string_view arg, Collector* spans) {
  // The quote at `at`: "\"" when escaped, else '"' or '\'' (empty: none).
  const auto quote_at = [arg](std::size_t at) -> std::string_view {
    if (at >= arg.size()) return {};
    if (arg[at] == '"' || arg[at] == '\'') return std::string_view(arg.data() + at, 1);
    if (arg[at] == '\\' && at + 1 < arg.size() && arg[at + 1] == '"')
      return std::string_view(arg.data() + at, 2);
    return {};
  };
  bool pair_value_secret = false;  // a pair's name named a secret: its value is next
  for (std::size_t p = 0; p < arg.size(); ++p) {
    if (arg[p] == '}') pair_value_secret = false;  // a pair is one object's
    if (arg[p] == '<') {
      p = SecretXmlElement(arg, p, spans);
      continue;
    }
    const std::string_view quote = quote_at(p);
    if (quote.empty()) continue;
    std::size_t i = p + quote.size();
    while (i < arg.size() && arg[i] != quote.back() && arg[i] != '\\') ++i;
    if (quote_at(i) != quote) continue;
    std::string_view name(arg.data() + p + quote.size(), i - p - quote.size());
    std::size_t j = SkipSpace(arg, i + quote.size());
    // Or '=' and a quoted value: PowerShell's hashtables, .reg files
    // (@{"X-Api-Key"="V"}, "Password"="V").
    const bool quoted_assignment = j + 1 < arg.size() && arg[j] == '=' && arg[j + 1] != '=' &&
                                   !quote_at(SkipSpace(arg, j + 1)).empty();
    if (name.empty() || j >= arg.size() || (arg[j] != ':' && !quoted_assignment)) continue;
    const bool pair_name = InWords<redact_rules::kPairNames>(name);
    const bool pair_value = pair_value_secret && InWords<redact_rules::kPairValues>(name);
    if (!pair_name && !pair_value && !IsCodeSecretName(name)) continue;
    pair_value_secret = false;
    j = SkipSpace(arg, j + 1);
    // A secret's object: its value member is the secret (an ARM template's
    // parameters: {"adminPassword": {"value": "V"}}).
    if (j < arg.size() && arg[j] == '{' && !pair_name && !pair_value) pair_value_secret = true;
    if (j >= arg.size() || arg[j] == '{' || arg[j] == '[')
      continue;                    // members inside get their own turn
    if (arg[j] == '$') continue;   // a variable ({"auth": $token} in jq), not a secret's text
    j = PastStringPrefix(arg, j);  // Python's f"...", b'...': the string after it
    std::size_t begin = j;
    std::size_t end = j;
    const std::string_view value_quote = quote_at(j);
    if (!value_quote.empty()) {  // to its close; \" inside "..." is no close
      begin = end = j + value_quote.size();
      while (end < arg.size() && (value_quote.size() == 2 ? quote_at(end) != value_quote
                                                          : arg[end] != value_quote[0])) {
        // Escaped quotes: \\ is one backslash of the value's own, which
        // escapes what follows it (\\\" is an escaped quote, not the close).
        const bool escaped_backslash = value_quote.size() == 2 && arg[end] == '\\' &&
                                       end + 1 < arg.size() && arg[end + 1] == '\\';
        if (escaped_backslash) {
          end += 2;
          const bool pair = end + 1 < arg.size() && arg[end] == '\\' &&
                            (arg[end + 1] == '\\' || arg[end + 1] == '"');
          end += pair ? 2 : 1;  // the escaped \\ or \", or one byte
        } else {
          end += arg[end] == '\\' ? 2 : 1;
        }
      }
      if (end > arg.size()) end = arg.size();
    } else {
      while (end < arg.size() && arg[end] != ',' && arg[end] != '}' && arg[end] != ']' &&
             arg[end] != '\\' && !IsSpace(arg[end]))
        ++end;
    }
    const std::string_view value(arg.data() + begin, end - begin);
    if (pair_name) {
      pair_value_secret = !value_quote.empty() && IsCodeSecretName(value);
    } else if (((!value_quote.empty() && !IsTemplateReference(value)) ||
                (value_quote.empty() && !InWords<redact_rules::kCodeLiterals>(value))) &&
               !IsConversionOnly(value)) {
      // A bare null, true or false holds none; f"{token}" refers; printf's
      // %s is filled by its argument (rule 11).
      spans->Add(begin, end);
    }
    p = end;  // on to after the value: its closing quote opens no name
  }
}

// Whether `word` (a keyword: letters) stands at `at` as a whole word, in
// any case; *after is where it ends.
bool KeywordAt(std::string_view text, std::size_t at, std::string_view word, std::size_t* after) {
  if (at > 0 && IsWordChar(text[at - 1])) return false;
  if (!StartsWithIgnoreCase(Tail(text, at), word)) return false;
  *after = at + word.size();
  return *after == text.size() || !IsWordChar(text[*after]);
}

// Rules 12 and 13: the inside of the quoted string opening at `open` is
// secret (to the argument's end when unclosed). Returns just past it.
std::size_t AddQuotedInside(std::string_view arg, std::size_t open, Collector* spans) {
  const std::size_t end = StringEnd(arg, open);
  const Span inside = QuotedInside(arg, open, end);
  // f"Bearer {token}": a reference to the secret, not the secret; nor is
  // printf's conversion (printf 'token = "%s"\n' X: its argument is, rule 11).
  const std::string_view text(arg.data() + inside.begin, inside.end - inside.begin);
  if (!IsPlaceholder(text)) spans->Add(inside.begin, inside.end);
  return end;
}

// Rule 12, an INSERT's values for secret columns: after INSERT INTO table
// (columns) VALUES, the strings of each tuple at the places of the columns
// whose names are secret (INSERT INTO users (name, password) VALUES ('a',
// 'x')). Returns where the scan goes on: past what was read.
std::size_t SqlInsertValues(std::string_view arg, std::size_t at, Collector* spans) {
  std::size_t q = SkipSpace(arg, at);
  std::size_t r = 0;
  if (!KeywordAt(arg, q, "into"sv, &r)) return q;
  q = SkipSpace(arg, r);
  while (q < arg.size() && (IsNameChar(arg[q]) || arg[q] == '`' || arg[q] == '"')) ++q;  // table
  q = SkipSpace(arg, q);
  if (q >= arg.size() || arg[q] != '(') return q;
  // The columns: bit i for column i, when its name is secret (64 at most).
  unsigned long long secret = 0;
  unsigned column = 0;
  std::size_t name = q + 1;
  for (++q; q < arg.size(); ++q) {
    if (arg[q] != ',' && arg[q] != ')') continue;
    // The column's name, without white space and identifier quotes.
    const auto around = [](char ch) { return IsSpace(ch) || ch == '`' || ch == '"'; };
    std::size_t begin = name;
    std::size_t end = q;
    while (begin < end && around(arg[begin])) ++begin;
    while (end > begin && around(arg[end - 1])) --end;
    if (column < 64 && IsCodeSecretName(std::string_view(arg.data() + begin, end - begin)))
      secret |= 1ull << column;
    ++column;
    name = q + 1;
    if (arg[q] == ')') break;
  }
  if (q >= arg.size()) return q;
  q = SkipSpace(arg, q + 1);
  if (secret == 0 || !KeywordAt(arg, q, "values"sv, &r)) return q;
  // Each tuple: values at depth 1 are split at ','; strings at a secret
  // column's place are hidden (inside a call too: crypt('x', ...)).
  q = SkipSpace(arg, r);
  while (q < arg.size() && arg[q] == '(') {
    unsigned place = 0;
    std::size_t depth = 0;
    for (; q < arg.size(); ++q) {
      const char c = arg[q];
      if (c == '\'' || c == '"') {
        if (place < 64 && (secret >> place & 1) != 0) {
          q = AddQuotedInside(arg, q, spans) - 1;
        } else {
          q = shell_words::QuotedEnd(arg, q, false) - 1;
        }
      } else if (c == '(') {
        ++depth;
      } else if (c == ')') {
        if (--depth == 0) break;
      } else if (c == ',' && depth == 1) {
        ++place;
      }
    }
    q = SkipSpace(arg, q + 1);
    if (q >= arg.size() || arg[q] != ',') break;
    q = SkipSpace(arg, q + 1);
  }
  return q;
}

// Db2's CONNECT TO db USER u USING pw (ATTACH TO instance ...), from just
// past CONNECT or ATTACH at `at`: the password, bare or quoted. Returns where
// the statement's words ended, or `at` when they are not these.
std::size_t Db2UsingPassword(std::string_view arg, std::size_t at, Collector* spans) {
  std::size_t q = 0;
  std::size_t r = SkipSpace(arg, at);
  // TO, then the database's name; USER, then the user's; USING.
  constexpr std::string_view kKeywords[] = {"to"sv, "user"sv};
  for (std::string_view keyword : kKeywords) {
    if (!KeywordAt(arg, r, keyword, &q)) return at;
    r = SkipSpace(arg, q);
    const std::size_t name = r;
    while (r < arg.size() && !IsSpace(arg[r]) && arg[r] != ';') ++r;
    if (r == name) return at;
    r = SkipSpace(arg, r);
  }
  if (!KeywordAt(arg, r, "using"sv, &q)) return at;
  r = SkipSpace(arg, q);
  if (r < arg.size() && (arg[r] == '\'' || arg[r] == '"')) return AddQuotedInside(arg, r, spans);
  q = r;
  while (q < arg.size() && !IsSpace(arg[q]) && arg[q] != ';' && arg[q] != '"' && arg[q] != '\'')
    ++q;
  if (!IsConversionOnly(std::string_view(arg.data() + r, q - r))) spans->Add(r, q);
  return q;
}

// Rule 12, passwords after keywords: the quoted string after IDENTIFIED BY (or
// IDENTIFIED WITH plugin BY), PASSWORD, PASSWORD = or PASSWORD FOR account =
// (CREATE USER ... IDENTIFIED BY 'x', ALTER ROLE r PASSWORD 'x', SET
// PASSWORD FOR 'u'@'%' = 'x'), PRAGMA key = (SQLCipher), or one of
// DuckDB's secret parameters and white space (CREATE SECRET (TYPE s3,
// KEY_ID 'k', SECRET 'x')), or PowerShell's ConvertTo-SecureString and
// white space (and -String): its inside. And Oracle's JDBC URL's password
// (jdbc:oracle:thin:u/PW@h), and Db2's CONNECT TO d USER u USING pw. A
// scan to '=' that fails ends where any keyword inside it would fail the
// same way, so it is not rescanned.
void KeywordPasswordRule(std::string_view arg, Collector* spans) {
  for (std::size_t p = 0; p < arg.size(); ++p) {
    // Only at a word's start, and only the keywords of its first letter.
    const char c = Lower(arg[p]);
    if ((c != 'i' && c != 'p' && c != 's' && c != 't' && c != 'c' && c != 'a') ||
        (p > 0 && IsWordChar(arg[p - 1])))
      continue;
    std::size_t q = 0;
    std::size_t r = 0;
    if ((c == 'c' && KeywordAt(arg, p, "connect"sv, &q)) ||
        (c == 'a' && KeywordAt(arg, p, "attach"sv, &q))) {
      const std::size_t next = Db2UsingPassword(arg, q, spans);
      p = next > p ? next - 1 : p;
      continue;
    }
    if (c == 'i' && KeywordAt(arg, p, "insert"sv, &q)) {
      const std::size_t next = SqlInsertValues(arg, q, spans);
      p = next > p ? next - 1 : p;
      continue;
    }
    if (c == 'i' && KeywordAt(arg, p, "identified"sv, &q)) {
      q = SkipSpace(arg, q);
      if (KeywordAt(arg, q, "with"sv, &r)) {  // the plugin's name, quoted or not
        r = SkipSpace(arg, r);
        if (r < arg.size() && (arg[r] == '\'' || arg[r] == '"' || arg[r] == '`')) {
          r = shell_words::QuotedEnd(arg, r, false);
        } else {
          while (r < arg.size() && IsWordChar(arg[r])) ++r;
        }
        q = SkipSpace(arg, r);
      }
      if (!KeywordAt(arg, q, "by"sv, &r)) {
        p = q > p ? q - 1 : p;  // past the plugin's name: a keyword in it is quoted
        continue;
      }
      q = SkipSpace(arg, r);
      // Oracle's password may be a bare word (IDENTIFIED BY pw;); not
      // MySQL's PASSWORD 'hash' (its own keyword, next) nor RANDOM PASSWORD,
      // and after Oracle's VALUES its hash is the string.
      if (KeywordAt(arg, q, "values"sv, &r)) {
        q = SkipSpace(arg, r);
      } else if (q < arg.size() && IsWordChar(arg[q]) && !KeywordAt(arg, q, "password"sv, &r) &&
                 !KeywordAt(arg, q, "random"sv, &r)) {
        r = q;
        while (r < arg.size() && (IsWordChar(arg[r]) || arg[r] == '$' || arg[r] == '#')) ++r;
        spans->Add(q, r);
        p = r - 1;
        continue;
      }
    } else if (c == 'p' && KeywordAt(arg, p, "pragma"sv, &q)) {
      // SQLCipher's key: PRAGMA [schema.]key = 'x', or rekey, hexkey,
      // hexrekey; the value also as ('x').
      q = SkipSpace(arg, q);
      r = q;
      while (r < arg.size() && IsWordChar(arg[r])) ++r;
      if (r < arg.size() && arg[r] == '.') q = r + 1;
      if (!KeywordAt(arg, q, "key"sv, &r) && !KeywordAt(arg, q, "rekey"sv, &r) &&
          !KeywordAt(arg, q, "hexkey"sv, &r) && !KeywordAt(arg, q, "hexrekey"sv, &r)) {
        p = q > p ? q - 1 : p;
        continue;
      }
      q = SkipSpace(arg, r);
      if (q < arg.size() && (arg[q] == '=' || arg[q] == '(')) q = SkipSpace(arg, q + 1);
    } else if (c == 'p' && KeywordAt(arg, p, "password"sv, &q)) {
      // A string glued to the word is not its value ("password":"x" is rule 10's).
      const std::size_t word_end = q;
      q = SkipSpace(arg, q);
      if (KeywordAt(arg, q, "for"sv, &r)) {  // the account, then '='
        while (r < arg.size() && arg[r] != '=' && arg[r] != ';') ++r;
        if (r >= arg.size() || arg[r] != '=') {
          p = r > p ? r - 1 : p;
          continue;
        }
        q = r;
      }
      if (q < arg.size() && arg[q] == '=') q = SkipSpace(arg, q + 1);
      if (q == word_end) continue;
      // Neo4j's SET PASSWORD FROM 'old' TO 'new': both.
      if (KeywordAt(arg, q, "from"sv, &r)) {
        r = SkipSpace(arg, r);
        if (r >= arg.size() || (arg[r] != '\'' && arg[r] != '"')) continue;
        q = SkipSpace(arg, AddQuotedInside(arg, r, spans));
        if (!KeywordAt(arg, q, "to"sv, &r)) {
          p = q > p ? q - 1 : p;
          continue;
        }
        q = SkipSpace(arg, r);
      }
    } else if ((c == 's' &&
                (KeywordAt(arg, p, "secret"sv, &q) || KeywordAt(arg, p, "session_token"sv, &q))) ||
               (c == 't' && KeywordAt(arg, p, "token"sv, &q)) ||
               (c == 'c' && KeywordAt(arg, p, "client_secret"sv, &q))) {
      const std::size_t word_end = q;  // DuckDB's parameters take no '='
      q = SkipSpace(arg, q);
      if (q == word_end) continue;
    } else if (c == 't' && KeywordAt(arg, p, "thin"sv, &q) && q < arg.size() && arg[q] == ':' &&
               p >= 7 && EqualsIgnoreCase(std::string_view(arg.data() + p - 7, 7), "oracle:"sv)) {
      // Oracle's JDBC URL: jdbc:oracle:thin:USER/PASSWORD@host:1521/svc.
      ConnectStringPassword(arg, q + 1, spans);
      continue;
    } else if (c == 'c' && KeywordAt(arg, p, "convertto-securestring"sv, &q)) {
      const std::size_t word_end = q;
      q = SkipSpace(arg, q);
      // Its flags may come first: -AsPlainText -Force "x", -String "x".
      while (KeywordAt(arg, q, "-string"sv, &r) || KeywordAt(arg, q, "-asplaintext"sv, &r) ||
             KeywordAt(arg, q, "-force"sv, &r))
        q = SkipSpace(arg, r);
      if (q == word_end) continue;
    } else {
      continue;
    }
    // A national or escape string: N'x' (SQL Server), E'x' (PostgreSQL).
    if (q + 1 < arg.size() && (arg[q] == 'N' || arg[q] == 'n' || arg[q] == 'E' || arg[q] == 'e') &&
        arg[q + 1] == '\'')
      ++q;
    // Its single quotes escaped, in code's string (Python's os.system('psql
    // -c "ALTER ROLE r PASSWORD \'x\'"')): to the next \'.
    if (q + 1 < arg.size() && arg[q] == '\\' && arg[q + 1] == '\'') {
      const std::size_t close = arg.find("\\'"sv, q + 2);
      const std::size_t end = close == std::string_view::npos ? arg.size() : close;
      if (!IsPlaceholder(std::string_view(arg.data() + q + 2, end - q - 2))) spans->Add(q + 2, end);
      p = (close == std::string_view::npos ? arg.size() : close + 2) - 1;
      continue;
    }
    // Its quotes escaped too, in a double-quoted string (mysql -e "... =
    // \"x\"" in a command string).
    if (q >= arg.size() || (arg[q] != '\'' && arg[q] != '"' && !EscapedQuoteAt(arg, q))) {
      p = q > p ? q - 1 : p;
      continue;
    }
    p = AddQuotedInside(arg, q, spans) - 1;
  }
}

// A ' between two letters or digits is prose's apostrophe (don't, it's),
// not a quote, unless the word before it is a string prefix (f'x', rb'x').
bool IsApostrophe(std::string_view arg, std::size_t at) {
  if (at == 0 || at + 1 >= arg.size() || !IsAlnum(arg[at - 1]) || !IsAlnum(arg[at + 1]))
    return false;
  std::size_t word = at;  // back over at most a prefix's length, and one more
  while (word > 0 && IsWordChar(arg[word - 1]) && at - word < 3) --word;
  const bool whole_word = word == 0 || !IsWordChar(arg[word - 1]);
  return !(whole_word && IsStringPrefix(std::string_view(arg.data() + word, at - word)));
}

// Whether code goes on at `at` (past blanks: ) ; , { } a line's end or the
// end), as it does after a string's closing quote ("Password:"; send ...,
// an expect script's lines), not a
// value's text (the users' password: 'X', where an apostrophe misled).
bool CodeAfter(std::string_view arg, std::size_t at) {
  while (at < arg.size() && (arg[at] == ' ' || arg[at] == '\t')) ++at;
  return at >= arg.size() || arg[at] == ')' || arg[at] == ';' || arg[at] == ',' || arg[at] == '{' ||
         arg[at] == '}' || arg[at] == '\n' || arg[at] == '\r';
}

// Rule 13's fallback: a secret name's value that is a lookup, then || ?? //
// ?: or `or`, then a string (process.env.JWT_SECRET || 'x', os.getenv('T')
// or 'x', $ENV{T} // 'x'): where that string opens, else `at`. A lookup is
// names, dots, $ and bracketed parts (their strings, names, commas and
// blanks), read for 128 bytes at most.
std::size_t FallbackStringAt(std::string_view arg, std::size_t at) {
  const std::string_view head(arg.data(), std::min(arg.size(), at + 128));
  std::size_t i = at;
  std::size_t depth = 0;
  while (i < head.size()) {
    const char c = head[i];
    if (depth > 0 && (c == '\'' || c == '"')) {
      i = shell_words::QuotedEnd(head, i, false);
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) break;
      --depth;
    } else if (!IsWordChar(c) && c != '.' && c != '$' && (depth == 0 || (c != ',' && c != ' '))) {
      break;  // inside brackets, only arguments: os.getenv('T', 'd')
    }
    ++i;
  }
  if (i == at || depth > 0) return at;
  std::size_t q = SkipSpace(arg, i);
  std::size_t r = q;
  if (q + 1 < arg.size() &&
      ((arg[q] == '|' && arg[q + 1] == '|') || (arg[q] == '?' && arg[q + 1] == '?') ||
       (arg[q] == '/' && arg[q + 1] == '/') || (arg[q] == '?' && arg[q + 1] == ':'))) {
    r = q + 2;
  } else if (!KeywordAt(arg, q, "or"sv, &r)) {
    return at;
  }
  r = SkipSpace(arg, r);
  return r < arg.size() && (arg[r] == '\'' || arg[r] == '"' || arg[r] == '`') ? r : at;
}

// A type annotation at `at` (string, str, Optional[str], Record<K, V>,
// string | undefined), read for 64 bytes at most, then '=' (not == or =>):
// past that '=' and the blanks after it; else `at`.
std::size_t PastTypeAnnotation(std::string_view arg, std::size_t at) {
  if (at >= arg.size() || !IsAlpha(arg[at])) return at;
  const std::size_t limit = std::min(arg.size(), at + 64);
  std::size_t i = at;
  while (i < limit &&
         (IsWordChar(arg[i]) || arg[i] == '.' || arg[i] == '<' || arg[i] == '>' || arg[i] == '[' ||
          arg[i] == ']' || arg[i] == '|' || arg[i] == ',' || arg[i] == '?' || arg[i] == ' '))
    ++i;
  if (i + 1 >= arg.size() || arg[i] != '=' || arg[i + 1] == '=' || arg[i + 1] == '>') return at;
  return SkipSpace(arg, i + 1);
}

// Go's typed declaration: after `var` or `const` and the name at `name`, its
// type at `at` (string, []byte, *pkg.T), then blanks: where its '=' is; else
// `at`. A single word: SQL's "password IS NULL AND role = 'x'" is none.
std::size_t PastDeclaredType(std::string_view arg, std::size_t name, std::size_t at) {
  if (at >= arg.size() || !(IsAlpha(arg[at]) || arg[at] == '[' || arg[at] == '*')) return at;
  const std::string_view keyword = WordBefore(arg, name);
  if (keyword != "var"sv && keyword != "const"sv) return at;
  std::size_t i = at;
  while (i < arg.size() &&
         (IsWordChar(arg[i]) || arg[i] == '.' || arg[i] == '[' || arg[i] == ']' || arg[i] == '*'))
    ++i;
  i = SkipSpace(arg, i);
  return i < arg.size() && arg[i] == '=' ? i : at;
}

// A string opening at `open` that is a name, as an argument or a block's
// label: --password in add_argument('--password', ...), password in
// config.get('db', 'password', ...), db_password in Terraform's variable
// "db_password" {. Its name, read for 64 bytes at most; else empty.
std::string_view GroupNameAt(std::string_view arg, std::size_t open) {
  std::size_t before = open;
  while (before > 0 && (arg[before - 1] == ' ' || arg[before - 1] == '\t')) --before;
  if (before == 0 || !(arg[before - 1] == '(' || arg[before - 1] == ',' ||
                       (IsWordChar(arg[before - 1]) &&
                        InWords<redact_rules::kNamedBlocks>(WordBefore(arg, open)))))
    return {};
  std::size_t begin = open + 1;
  while (begin < arg.size() && arg[begin] == '-') ++begin;
  std::size_t end = begin;
  while (end < arg.size() && end < open + 64 && IsNameChar(arg[end])) ++end;
  if (end == begin || end >= arg.size() || arg[end] != arg[open]) return {};
  return std::string_view(arg.data() + begin, end - begin);
}

// Where the strings a call's arguments or a block's label open so far, the
// first few: its default is secret when one is a secret's name
// (GroupNameAt). Looked up only at a default's assignment: most groups have
// none. (Offsets, not names: the rule runs deep in rule 11's nesting, where
// each byte of its frame counts against the smallest stack.)
struct GroupNames {
  std::uint32_t opens[4];
  unsigned char count = 0;

  void Add(std::size_t open) {
    if (count < std::size(opens)) opens[count++] = static_cast<std::uint32_t>(open);
  }
  bool NameSecret(std::string_view arg) const {
    for (unsigned char i = 0; i < count; ++i) {
      const std::string_view name = GroupNameAt(arg, opens[i]);
      if (!name.empty() && IsCodeSecretName(name)) return true;
    }
    return false;
  }
};

// A secret's lookup in code, from `begin` to `end` (process.env.TOKEN,
// os.getenv('API_KEY')): one of its names is a secret's.
bool LooksUpSecret(std::string_view arg, std::size_t begin, std::size_t end) {
  for (std::size_t i = begin; i < end; ++i) {
    if (!IsWordChar(arg[i])) continue;
    std::size_t word_end = i;
    while (word_end < end && IsWordChar(arg[word_end])) ++word_end;
    if (NamesCodeSecret(std::string_view(arg.data() + i, word_end - i))) return true;
    i = word_end;
  }
  return false;
}

// Rule 13, code: a secret name or credential header, unquoted (API_KEY,
// $password, obj.apiKey, os.environ['TOKEN'], Perl's $ENV{TOKEN}), then '='
// or ':' (not '=='),
// white space around it or not, then a quoted string: its inside (python -c
// "API_KEY = 'x'", node -e "{ password: 'x' }"). A name is scanned once.
void CodeAssignmentRule(std::string_view arg, Collector* spans, bool shell_words_end) {
  // Inside a string, a quote of its kind closes it and opens no value: the
  // prompt "Password:" in expect "Password:"; send ... is text, not code.
  bool in_single = false;
  bool in_double = false;
  bool pair_value_secret = false;  // a pair's name named a secret: its value is next
  GroupNames group;                // a call's or block's names: a secret's makes its default one
  for (std::size_t p = 0; p < arg.size(); ++p) {
    const char c = arg[p];
    if (c == '}' || c == ')') {  // a pair is one object's or call's
      pair_value_secret = false;
      group.count = 0;
    }
    if (c == '\\' && !in_single) {
      ++p;
      continue;
    }
    if (c == '"' && !in_single) in_double = !in_double;
    if (c == '\'' && !in_double && !IsApostrophe(arg, p)) in_single = !in_single;
    if (((c == '"' && in_double) || (c == '\'' && in_single)) && !GroupNameAt(arg, p).empty())
      group.Add(p);
    if (!(IsAlpha(c) || c == '_') || (p > 0 && IsWordChar(arg[p - 1]))) continue;
    // A quoted name may be a header's (s.headers['X-API-Key'] = 'x').
    const bool quoted_name = p > 0 && (arg[p - 1] == '\'' || arg[p - 1] == '"');
    std::size_t i = p;
    while (i < arg.size() && (IsWordChar(arg[i]) || (quoted_name && arg[i] == '-'))) ++i;
    std::size_t j = i;
    bool single = in_single;
    bool double_ = in_double;
    if (j < arg.size() && (arg[j] == '\'' || arg[j] == '"')) {  // environ['NAME'] =
      if (arg[j] == '\'') {
        single = !single;
      } else {
        double_ = !double_;
      }
      ++j;
      // $ENV{"NAME"} =, Scala's sys.props("NAME") =
      if (j < arg.size() && (arg[j] == ']' || arg[j] == '}' || arg[j] == ')')) ++j;
    } else if (j < arg.size() && arg[j] == '}' && p > 0 && arg[p - 1] == '{') {
      ++j;  // Perl's hash element: $ENV{NAME} =
    }
    while (j < arg.size() && (arg[j] == ' ' || arg[j] == '\t')) ++j;
    // token := "x", @token ||= "x", jq's and yq's .auth.token |= "x".
    j = CompoundAssignmentEquals(arg, j);
    j = PastDeclaredType(arg, p, j);  // var password string = "x"
    const bool assigns = j < arg.size() && (arg[j] == ':' || arg[j] == '=') &&
                         (j + 1 >= arg.size() || arg[j + 1] != '=');
    // PHP's, Perl's and Ruby's fat arrow: "password" => 'x'.
    if (assigns && arg[j] == '=' && j + 1 < arg.size() && arg[j + 1] == '>') ++j;
    std::size_t k = j + 1;
    while (assigns && k < arg.size() && (arg[k] == ' ' || arg[k] == '\t')) ++k;
    // A type annotation between the name and its '=' (TypeScript's apiKey:
    // string = 'x', Python's api_key: str = 'x').
    if (assigns && arg[j] == ':') k = PastTypeAnnotation(arg, k);
    if (assigns) k = PastStringPrefix(arg, k);  // Python's f"...", b'...'
    const std::string_view name(arg.data() + p, i - p);
    // A string in a string, its quotes escaped: GraphQL in a JSON body
    // ({"query": "mutation { login(password: \"x\") }"}).
    const bool escaped_quote = assigns && k + 1 < arg.size() && arg[k] == '\\' && arg[k + 1] == '"';
    // A quoted label, its ':' inside its quotes ("Password:" x, escaped in
    // bash -c 'expect -c "expect \"Password:\"; send ..."', or in a
    // single-quoted script there): no value.
    const bool label = assigns && arg[j] == ':' && j == i && k == j + 1 && p >= 1 &&
                       (escaped_quote ? p >= 2 && EscapedQuoteAt(arg, p - 2)
                                      : k < arg.size() && (arg[k] == '"' || arg[k] == '\'') &&
                                            arg[p - 1] == arg[k]);
    if (label) continue;
    // A lookup's fallback: JWT_SECRET = process.env.JWT_SECRET || 'x'.
    // (The name is looked up only for a fallback found: most are none.)
    bool secret_fallback = false;
    if (assigns && !escaped_quote && k < arg.size() && arg[k] != '\'' && arg[k] != '"' &&
        arg[k] != '`') {
      // And a secret's lookup whatever the name: const t = process.env.TOKEN || 'x'.
      const std::size_t fallback = FallbackStringAt(arg, k);
      if (fallback != k) {
        secret_fallback = NamesCodeSecret(name) || LooksUpSecret(arg, k, fallback);
        if (secret_fallback) k = fallback;
      }
    }
    // A pair given by name: put_parameter(Name='db_password', Value='x').
    // (Looked up only for an assignment: most names are none.)
    const bool pair_name =
        assigns && !escaped_quote && !secret_fallback && InWords<redact_rules::kPairNames>(name);
    const bool pair_value =
        assigns && ((pair_value_secret && InWords<redact_rules::kPairValues>(name)) ||
                    (InWords<redact_rules::kDefaultNames>(name) && group.NameSecret(arg)));
    if (!assigns || k >= arg.size() ||
        (!escaped_quote && arg[k] != '\'' && arg[k] != '"' && arg[k] != '`') ||
        // Inside a string, its closing quote opens no value ("Password: " x,
        // a prompt's text); a single quote may be an apostrophe that misled
        // (the users' password: 'X'), unless code goes on after it or the
        // text is a shell's command string (grep -c '^API_KEY=' .env).
        (arg[k] == '"' && double_) ||
        (arg[k] == '\'' && single && (shell_words_end || CodeAfter(arg, k + 1))) ||
        (!pair_name && !pair_value && !secret_fallback && !NamesCodeSecret(name))) {
      p = i - 1;
      continue;
    }
    pair_value_secret = false;
    if (pair_name) {
      const std::size_t end = shell_words::QuotedEnd(arg, k, false);
      const Span inside = QuotedInside(arg, k, end);
      pair_value_secret =
          IsCodeSecretName(std::string_view(arg.data() + inside.begin, inside.end - inside.begin));
      in_single = single;
      in_double = double_;
      p = end - 1;
      continue;
    }
    if (escaped_quote) {  // to the next \" (the outer string goes on)
      std::size_t end = k + 2;
      while (end < arg.size() && !(arg[end] == '\\' && end + 1 < arg.size() && arg[end + 1] == '"'))
        end += arg[end] == '\\' ? 2 : 1;
      if (end > arg.size()) end = arg.size();
      if (!IsConversionOnly(std::string_view(arg.data() + k + 2, end - k - 2)))
        spans->Add(k + 2, end);
      p = end + 1;  // past the closing \", which toggles no quote
      continue;
    }
    in_single = single;  // past the name's own closing quote, if any
    in_double = double_;
    p = AddQuotedInside(arg, k, spans) - 1;
  }
}

// A command's name as the tool rows know it: /usr/bin/curl is curl.
std::string_view Basename(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : Tail(path, slash + 1);
}

// A file whose contents are a secret by its name (kCredentialFiles).
bool IsCredentialFile(std::string_view path) {
  std::string_view name = Basename(path);
  if (!name.empty() && name[0] == '.') name.remove_prefix(1);
  return !name.empty() &&
         (InWords<redact_rules::kCredentialFiles>(name) || IsSecretName(name, true));
}

// A call that opens a file (open(F, 'w'), Path(F)) or writes one
// (f.write(S), File.write(F, S), fs.writeFileSync(F, S)): kFileOpenCalls,
// kFileWriteCalls.
enum class FileCall : unsigned char { kNone, kOpens, kWrites };

FileCall FileCallNamed(std::string_view name) {
  if (InWords<redact_rules::kFileOpenCalls>(name)) return FileCall::kOpens;
  if (InWords<redact_rules::kFileWriteCalls>(name)) return FileCall::kWrites;
  return FileCall::kNone;
}

// A call that runs a command: its strings an argv (kArgvCalls), or its
// first string a command line (kShellStringCalls: subprocess.run("curl
// ...", shell=True), execSync("..."), shell_exec("...")).
enum class ProcessCall : unsigned char { kNone, kArgv, kShellString };

ProcessCall ProcessCallNamed(std::string_view name) {
  if (InWords<redact_rules::kArgvCalls>(name)) return ProcessCall::kArgv;
  if (InWords<redact_rules::kShellStringCalls>(name)) return ProcessCall::kShellString;
  return ProcessCall::kNone;
}

// A credential file (IsCredentialFile) opened by the last file call that
// closed: the strings its .write() is given are secret.
bool g_credential_file_open = false;

// Rule 14's open groups ( [ { in code, in static storage like the spans:
// the innermost kMaxCodeGroups are followed, in a ring (deeper code takes
// the outermost's place, which is then followed no more).
struct CodeGroup {
  const redact_rules::SecretCall* call = nullptr;  // a call of kSecretCalls, or none
  FileCall file_call = FileCall::kNone;
  bool credential_file = false;  // a file call's first argument names a credential file
  // The value of a secret name (auth=('u', 'PW'), auth=HTTPBasicAuth(...)):
  // each string argument but the first, or the only one.
  bool secret_value = false;
  // A call of kNamingCalls as that value (token = os.getenv('T', 'PW')): its
  // only string names the secret and is shown; the others are as above.
  bool names_first = false;
  bool at_argument_start = true;
  unsigned argument = 1;  // counted from 1
  unsigned strings = 0;   // string arguments seen, for secret_value
  Span first{0, 0};       // the first one's inside (or a lone call's first argument's)
  bool list = false;      // opened with '['
  bool object = false;    // opened with '{': its pairs are name: value (rule 10's)
  ProcessCall process_call = ProcessCall::kNone;
  // An argv list (['curl', '-u', ...]): its command, fed each string
  // element as an argument; or, past the record's kMaxCommands, every
  // element hidden.
  Redactor* argv = nullptr;
  bool hide_elements = false;
  // A list of command lines (aws ssm's commands=["cd /srv", "curl ..."]):
  // each element is one, read by a shell's redactor in `argv`.
  bool command_lines = false;
  // A call's first string argument, when one word: the command of the list
  // that comes next (Node's spawn('curl', ['-u', ...])).
  std::string_view command;
  // The argument that was a string naming a secret ('API_KEY', 'X'), 0: none.
  unsigned secret_name_argument = 0;
  // A call without parentheses (Ruby's req.basic_auth 'u', 'PW'): it ends
  // with its line or statement, or with the group around it.
  bool bare = false;
};
constexpr std::size_t kMaxCodeGroups = 8;
CodeGroup g_code_groups[kMaxCodeGroups];
// The argv lists' commands, one per ring slot, apart from rule 11's.
alignas(Redactor) AGT_LATE_BSS unsigned char g_list_commands[kMaxCodeGroups][sizeof(Redactor)];
// The commands that prefixes and runners run, in a record's arguments
// (Redactor::running_): a chain at most this deep (sudo env timeout 5 curl).
constexpr unsigned kMaxRunDepth = 4;
alignas(Redactor) AGT_LATE_BSS unsigned char g_run_commands[kMaxRunDepth][sizeof(Redactor)];
// The record's redactor, whose kMaxCommands each argv list's command counts
// toward (it costs a Redactor's rows): past them, a list's elements are
// hidden whole, unread.
Redactor* g_record = nullptr;
// Set while rule 14 reads an argument: an argv list's element, which meets
// the other rules through its command, does not meet this one again.
bool g_in_code_calls = false;
// Set while rule 11 reads a command line: its levels (g_levels) are in use,
// so an argv list's element met inside one is not split again.
bool g_in_command_lines = false;

// The last dotted part of each kSecretCalls name (jwt.encode: encode): most
// names before '(' are rejected by InWords' filter on these.
constexpr std::string_view LastDottedPart(std::string_view name) {
  const std::size_t dot = name.rfind('.');
  return dot == std::string_view::npos
             ? name
             : std::string_view(name.data() + dot + 1, name.size() - dot - 1);
}

constexpr std::size_t kSecretCallCount = std::size(redact_rules::kSecretCalls);
constexpr std::array<std::string_view, kSecretCallCount> MakeCallLastParts() {
  std::array<std::string_view, kSecretCallCount> parts{};
  for (std::size_t i = 0; i < kSecretCallCount; ++i)
    parts[i] = LastDottedPart(redact_rules::kSecretCalls[i].name);
  return parts;
}
constexpr std::array<std::string_view, kSecretCallCount> kCallLastParts = MakeCallLastParts();

const redact_rules::SecretCall* SecretCallNamed(std::string_view name) {
  const std::string_view last = LastDottedPart(name);
  if (!InWords<kCallLastParts>(last)) return nullptr;
  for (const redact_rules::SecretCall& call : redact_rules::kSecretCalls) {
    if (call.name.find('.') == std::string_view::npos) {
      if (EqualsIgnoreCase(last, call.name)) return &call;
    } else if (EndsWithIgnoreCase(name, call.name) &&
               (name.size() == call.name.size() ||
                name[name.size() - call.name.size() - 1] == '.')) {
      return &call;  // jwt.encode, or x.jwt.encode
    }
  }
  return nullptr;
}

// Whether a string in code is one word (no white space, not empty): a
// command's name, or a name.
bool IsOneWord(std::string_view text) {
  if (text.empty() || text.size() > 255) return false;
  for (char c : text) {
    if (IsSpace(c)) return false;
  }
  return true;
}

// The command of an argv list, in the ring slot `slot`: false past the
// record's kMaxCommands.
bool StartArgvList(CodeGroup* group, std::size_t slot, std::string_view name) {
  if (g_record == nullptr || !g_record->Charge()) {
    group->hide_elements = true;
    return false;
  }
  group->argv = new (g_list_commands[slot]) Redactor(Basename(name));
  return true;
}

// One element of an argv list, at [begin, ...) in the argument.
void FeedArgvList(CodeGroup* group, std::string_view element, std::size_t begin, Collector* spans) {
  if (group->hide_elements) {
    spans->Add(begin, begin + element.size());
    return;
  }
  const std::size_t base = spans->base();
  spans->set_base(base + begin);
  group->argv->ListArgument(element, group->command_lines, spans);
  spans->set_base(base);
}

// A string argument of the innermost group (in ring slot `slot`), [open,
// end) with its quotes.
void CodeString(CodeGroup* group, std::size_t slot, std::size_t open, std::size_t end,
                std::string_view arg, Collector* spans) {
  const Span inside = QuotedInside(arg, open, end);
  const std::string_view text(arg.data() + inside.begin, inside.end - inside.begin);
  // What a secret string hides: none of printf's conversion (printf "...
  // PASSWORD '%s'" X), whose argument is the secret (rule 11).
  const Span secret = IsConversionOnly(text) ? Span{inside.begin, inside.begin} : inside;
  if (group->call != nullptr && group->argument >= group->call->first &&
      group->argument <= group->call->last) {
    spans->Add(secret.begin, secret.end);
  }
  if (group->call != nullptr && group->call->lone && group->argument == 1) group->first = secret;
  if (group->secret_value && ++group->strings == 1) {
    group->first = secret;
  } else if (group->secret_value) {
    spans->Add(secret.begin, secret.end);
  }
  // A credential file written: File.write('.netrc', 'PW'),
  // fs.writeFileSync('.pgpass', 'PW'); open('token.txt', 'w').write('PW').
  if (group->file_call != FileCall::kNone && group->argument == 1 && IsCredentialFile(text)) {
    group->credential_file = true;
  } else if (group->file_call == FileCall::kWrites &&
             (group->credential_file || g_credential_file_open)) {
    spans->Add(secret.begin, secret.end);
  }
  // A name, then its value: os.environ.setdefault('API_KEY', 'PW'),
  // setRequestHeader('X-Api-Key', 'PW'), ('password', 'PW').
  if (group->secret_name_argument != 0 && group->argument == group->secret_name_argument + 1)
    spans->Add(secret.begin, secret.end);
  // Not in a list, an argv's or data's (['kubectl', 'get', 'secret', 'db']),
  // nor in an argv call's (system('sshpass', '-p', ...)), nor in an object
  // ({"secrets": [], "x": 1}), and not an option's name
  // (add_argument('--token', '-t')).
  const bool one_word = IsOneWord(text);
  if (one_word && !group->list && group->process_call != ProcessCall::kArgv && !group->object &&
      text[0] != '-' && group->file_call == FileCall::kNone && NamesCodeSecret(text))
    group->secret_name_argument = group->argument;
  // Argv lists: ['sshpass', '-p', 'PW', 'ssh', 'h'] is sshpass's argv;
  // ['--password', 'PW'] one without a command.
  if (group->argv != nullptr || group->hide_elements) {
    FeedArgvList(group, text, inside.begin, spans);
  } else if (group->argument == 1 && one_word) {
    if (!group->list) group->command = text;
    if ((group->list || group->process_call == ProcessCall::kArgv) &&
        StartArgvList(group, slot, text[0] == '-' ? std::string_view() : text) && text[0] == '-') {
      FeedArgvList(group, text, inside.begin, spans);
    }
  } else if (group->argument == 1 && group->process_call != ProcessCall::kNone) {
    // A command line a shell runs (subprocess.run("curl -u ...", shell=True),
    // Ruby's system("curl -u ...")): read as sh -c's; the other arguments not.
    group->command_lines = StartArgvList(group, slot, "sh"sv);
    FeedArgvList(group, text, inside.begin, spans);
    group->argv = nullptr;
    group->command_lines = false;
    group->hide_elements = false;
  }
}

// A group closed (or the argument ended in it): a secret value's only
// string is secret.
void EndCodeGroup(const CodeGroup& group, Collector* spans) {
  if (group.file_call == FileCall::kOpens) g_credential_file_open = group.credential_file;
  if (group.secret_value && group.strings == 1 && !group.names_first)
    spans->Add(group.first.begin, group.first.end);
  // A call's only argument, a string, where the call takes it alone; in
  // parentheses (prose may read "login 'admin' first").
  if (group.call != nullptr && group.call->lone && !group.bare && group.argument == 1)
    spans->Add(group.first.begin, group.first.end);
}

// Just past a member's operator at `at`, ':' (not "::") or the fat arrow
// "=>" of PHP, Perl and Ruby; `at` when there is none.
std::size_t MemberOperatorEnd(std::string_view arg, std::size_t at) {
  if (at >= arg.size()) return at;
  if (arg[at] == ':' && (at + 1 >= arg.size() || arg[at + 1] != ':')) return at + 1;
  if (arg[at] == '=' && at + 1 < arg.size() && arg[at + 1] == '>') return at + 2;
  return at;
}

// A template's filter after `at` (Jinja's 'PW' | password_hash('sha512'),
// where the piped value is the call's first argument and those in its
// parentheses the next ones): the kSecretCalls row it names, or none.
const redact_rules::SecretCall* FilterAfter(std::string_view arg, std::size_t at) {
  at = SkipSpace(arg, at);
  if (at + 1 >= arg.size() || arg[at] != '|' || arg[at + 1] == '|') return nullptr;
  at = SkipSpace(arg, at + 1);
  std::size_t end = at;
  while (end < arg.size() && (IsWordChar(arg[end]) || arg[end] == '.')) ++end;
  return end > at ? SecretCallNamed(std::string_view(arg.data() + at, end - at)) : nullptr;
}

// The name starting at `at` is a filter: a single '|' before it.
bool IsFilterName(std::string_view arg, std::size_t at) {
  while (at > 0 && IsSpace(arg[at - 1])) --at;
  return at > 0 && arg[at - 1] == '|' && (at < 2 || arg[at - 2] != '|');
}

// Rule 14, code: string arguments of the calls in kSecretCalls (s.login('me',
// 'PW'), new PDO(dsn, 'u', 'PW')), and of a tuple, list or call assigned to a
// secret name (requests.get(u, auth=('me', 'PW')), auth=HTTPBasicAuth(...)):
// every one but the first, or the only one. One pass, each byte once.
void CodeCallRule(std::string_view arg, Collector* spans) {
  // No group and no string, nothing to read: one pass, where most text ends
  // (and none for the short words of a command line: f('x') is 6 bytes).
  if (g_in_code_calls || arg.size() < 6) return;
  bool any = false;
  for (const char c : arg) {
    if (c == '(' || c == '[' || c == '"' || c == '\'') {
      any = true;
      break;
    }
  }
  if (!any) return;
  g_in_code_calls = true;
  std::size_t depth = 0;
  const redact_rules::SecretCall* call = nullptr;  // the name just before '(' names one
  bool filter = false;  // ... as a template's filter: its first argument came before
  ProcessCall process_call = ProcessCall::kNone;  // ... or one that runs a command
  bool naming_call = false;                       // ... or one of kNamingCalls
  FileCall file_call = FileCall::kNone;           // ... or a file's
  g_credential_file_open = false;
  // The name before the last '=' or ':', when only a name came since: a
  // group opening now is its value (looked up only then: most are not).
  std::string_view assigned;
  // Inside a double-quoted string whose own strings' quotes are escaped, up
  // to its closing quote: read as code (EscapedStringEnd); 0 when not.
  std::size_t escaped_code_end = 0;
  for (std::size_t i = 0; i < arg.size(); ++i) {
    const std::size_t slot = depth > 0 ? (depth - 1) % kMaxCodeGroups : 0;
    CodeGroup* group = depth > 0 ? &g_code_groups[slot] : nullptr;
    const char c = arg[i];
    // A bare call's end: its statement's or line's, or its group's.
    if (group != nullptr && group->bare &&
        (c == ';' || c == '\n' || c == ')' || c == ']' || c == '}')) {
      EndCodeGroup(*group, spans);
      --depth;
      if (c == ';' || c == '\n') continue;
      --i;  // the group around it closes too
      continue;
    }
    if (IsSpace(c)) continue;
    if (c == '"' && i + 1 == escaped_code_end) {
      escaped_code_end = 0;
      continue;
    }
    const bool escaped = c == '\\' && i < escaped_code_end && EscapedQuoteAt(arg, i);
    if (c == '\'' || c == '"' || escaped) {
      const std::size_t end = escaped ? EscapedStringEnd(arg, i, escaped_code_end)
                                      : shell_words::QuotedEnd(arg, i, false);
      // Not inside a group: a list's string element (["mysql -e \"select 1\""]) is one.
      if (c == '"' && group == nullptr && escaped_code_end == 0 && HoldsEscapedQuote(arg, i, end)) {
        escaped_code_end = end;
        continue;
      }
      if (group != nullptr && group->at_argument_start) CodeString(group, slot, i, end, arg, spans);
      // A secret call's key= (wandb.login(key="PW")), though "key" alone
      // names no secret elsewhere.
      if (group != nullptr && group->call != nullptr && EqualsIgnoreCase(assigned, "key"sv)) {
        const Span inside = QuotedInside(arg, i, end);
        spans->Add(inside.begin, inside.end);
      }
      if (group != nullptr) group->at_argument_start = false;
      if (const redact_rules::SecretCall* piped_into = FilterAfter(arg, end);
          piped_into != nullptr && piped_into->first == 1) {
        const Span inside = QuotedInside(arg, i, end);
        spans->Add(inside.begin, inside.end);
      }
      assigned = std::string_view();
      call = nullptr;
      process_call = ProcessCall::kNone;
      file_call = FileCall::kNone;
      // A quoted name given a value: "password" => bcrypt('x'), 'token': f('x').
      const std::size_t next = SkipSpace(arg, end);
      const std::size_t past = MemberOperatorEnd(arg, next);
      if (past > next) {
        const Span inside = QuotedInside(arg, i, end);
        assigned = std::string_view(arg.data() + inside.begin, inside.end - inside.begin);
        i = past - 1;
      } else {
        i = end - 1;
      }
      continue;
    }
    if (IsAlpha(c) || c == '_') {
      std::size_t end = i;
      while (end < arg.size() && (IsWordChar(arg[end]) || arg[end] == '.')) ++end;
      const std::string_view name(arg.data() + i, end - i);
      const bool prefix = end < arg.size() &&
                          (arg[end] == '\'' || arg[end] == '"' ||
                           (end < escaped_code_end && EscapedQuoteAt(arg, end))) &&
                          IsStringPrefix(name);
      std::size_t next = end;
      while (next < arg.size() && (arg[next] == ' ' || arg[next] == '\t')) ++next;
      // A whole argument naming a secret, then its value:
      // curl_setopt($ch, CURLOPT_USERPWD, "u:PW"), os.getenv(TOKEN, 'PW').
      if (group != nullptr && group->at_argument_start && next < arg.size() && arg[next] == ',' &&
          IsCodeSecretName(LastDottedPart(name)))
        group->secret_name_argument = group->argument;
      if (group != nullptr && !prefix) group->at_argument_start = false;
      const bool assigns = next < arg.size() && (arg[next] == '=' || arg[next] == ':') &&
                           (next + 1 >= arg.size() || arg[next + 1] != arg[next]);
      if (assigns) {
        assigned = name;
        call = nullptr;
        process_call = ProcessCall::kNone;
        file_call = FileCall::kNone;
        const std::size_t past = MemberOperatorEnd(arg, next);  // ':' or "=>"
        i = past > next ? past - 1 : next;                      // on past it, or past '='
        continue;
      }
      // A call without parentheses, its first argument a string (Ruby's
      // req.basic_auth 'u', 'PW').
      const bool bare = end < arg.size() && arg[end] == ' ' && next < arg.size() &&
                        (arg[next] == '\'' || arg[next] == '"') && !prefix;
      const redact_rules::SecretCall* bare_call = bare ? SecretCallNamed(name) : nullptr;
      if (bare_call != nullptr) {
        ++depth;
        CodeGroup& opened = g_code_groups[(depth - 1) % kMaxCodeGroups];
        opened = CodeGroup{};
        opened.call = bare_call;
        opened.bare = true;
        call = nullptr;
        i = next - 1;
      } else {
        const bool opens = end < arg.size() && arg[end] == '(';
        call = opens ? SecretCallNamed(name) : nullptr;
        filter = call != nullptr && IsFilterName(arg, i);
        process_call = opens ? ProcessCallNamed(LastDottedPart(name)) : ProcessCall::kNone;
        file_call = opens ? FileCallNamed(LastDottedPart(name)) : FileCall::kNone;
        naming_call =
            opens && !assigned.empty() && InWords<redact_rules::kNamingCalls>(LastDottedPart(name));
        i = end - 1;
      }
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      // A subscript (process.env['JWT_SECRET']) is a lookup, no value.
      const bool subscript =
          c == '[' && i > 0 && (IsWordChar(arg[i - 1]) || arg[i - 1] == ']' || arg[i - 1] == ')');
      // spawn('curl', [...]): the list is that command's arguments.
      const bool command_list = c == '[' && group != nullptr && group->at_argument_start &&
                                group->argument == 2 && !group->command.empty();
      if (group != nullptr) group->at_argument_start = false;
      const bool secret_value =
          c != '{' && !subscript && !assigned.empty() && NamesCodeSecret(assigned);
      ++depth;
      const std::size_t opened_slot = (depth - 1) % kMaxCodeGroups;
      CodeGroup& opened = g_code_groups[opened_slot];
      opened = CodeGroup{};
      opened.call = c == '(' ? call : nullptr;
      if (c == '(' && call != nullptr && filter) opened.argument = 2;
      opened.file_call = c == '(' ? file_call : FileCall::kNone;
      opened.secret_value = secret_value;
      opened.names_first = c == '(' && naming_call;
      opened.list = c == '[';
      opened.object = c == '{';
      opened.process_call = c == '(' ? process_call : ProcessCall::kNone;
      if (command_list) StartArgvList(&opened, opened_slot, group->command);
      if (c == '[' && !subscript && !assigned.empty() &&
          InWords<redact_rules::kCommandListNames>(assigned)) {
        opened.command_lines = StartArgvList(&opened, opened_slot, "sh"sv);
      }
    } else if (c == ')' || c == ']' || c == '}') {
      if (group != nullptr) {
        EndCodeGroup(*group, spans);
        // The group outside, whose place this one took: no longer followed.
        if (depth > kMaxCodeGroups) {
          *group = CodeGroup{};
          group->at_argument_start = false;
        }
        --depth;
      }
    } else if (c == ',' && group != nullptr) {
      ++group->argument;
      group->at_argument_start = true;
    } else if (c == '/' && group != nullptr && group->at_argument_start) {
      // A pattern naming a secret, then what replaces it: awk's
      // gsub(/API_TOKEN/, "PW"), JavaScript's s.replace(/API_KEY/, 'PW').
      std::size_t end = i + 1;
      while (end < arg.size() && IsWordChar(arg[end])) ++end;
      group->at_argument_start = false;
      if (end < arg.size() && arg[end] == '/' && end > i + 1) {
        if (NamesCodeSecret(std::string_view(arg.data() + i + 1, end - i - 1)))
          group->secret_name_argument = group->argument;
        i = end;
      }
    } else if (group != nullptr &&
               !(c == ':' && i + 1 < arg.size() && (IsAlpha(arg[i + 1]) || arg[i + 1] == '_'))) {
      // (A ':' before a name marks a symbol, Ruby's and Elixir's: put_env(:app,
      // :api_key, "PW") names a secret as 'API_KEY' would.)
      group->at_argument_start = false;
    }
    // A scope's "::" goes on with the call's name: "password" =>
    // Hash::make('PW') is the value of the name before it.
    const bool scope =
        c == ':' && ((i + 1 < arg.size() && arg[i + 1] == ':') || (i > 0 && arg[i - 1] == ':'));
    if (scope) continue;
    assigned = std::string_view();
    call = nullptr;
    process_call = ProcessCall::kNone;
    naming_call = false;
    file_call = FileCall::kNone;
  }
  for (std::size_t d = depth < kMaxCodeGroups ? depth : kMaxCodeGroups; d > 0; --d)
    EndCodeGroup(g_code_groups[d - 1], spans);  // the ring's slots, in any order
  g_in_code_calls = false;
}

// Past white space, one '(' and options (-re, --) from `at`: where an
// expect pattern or a send's text starts.
std::size_t PastPromptOptions(std::string_view arg, std::size_t at) {
  at = SkipSpace(arg, at);
  if (at < arg.size() && arg[at] == '(') at = SkipSpace(arg, at + 1);
  while (at < arg.size() && arg[at] == '-') {
    while (at < arg.size() && !IsSpace(arg[at])) ++at;
    at = SkipSpace(arg, at);
  }
  return at;
}

bool NamesSecretPrompt(std::string_view pattern) {
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    for (std::string_view word : redact_rules::kSecretPrompts) {
      if (StartsWithIgnoreCase(Tail(pattern, i), word)) return true;
    }
  }
  return false;
}

// Rule 15, prompts answered in code: after an expect (kPromptWaits) whose
// quoted pattern (or a quoted pattern before a brace, in an expect block)
// asks for a secret (kSecretPrompts), the quoted text the next answer
// (kPromptAnswers) gives (expect -c 'spawn ssh h; expect "password:"; send
// "PW\r"', pexpect's c.expect('Password:'); c.sendline('PW'), telnetlib's
// t.read_until(b"Password: "); t.write(b"PW\n")).
void PromptAnswerRule(std::string_view arg, Collector* spans) {
  // Most text: a search or two (and none for a word too short for expect "x").
  if (arg.size() < 10 || (arg.find("expect"sv) == std::string_view::npos &&
                          arg.find("read_until"sv) == std::string_view::npos))
    return;
  bool asked = false;
  for (std::size_t p = 0; p < arg.size(); ++p) {
    if ((arg[p] == '"' || arg[p] == '\'') && (p == 0 || arg[p - 1] != '\\')) {
      // expect { "yes/no" {...} "password:" {...} }: a quoted pattern before
      // its action's brace. (An escaped quote opens nothing: each byte is
      // then passed by at most one scan per kind of quote.)
      const std::size_t close = shell_words::QuotedEnd(arg, p, false);
      const std::size_t after = SkipSpace(arg, close);
      if (after < arg.size() && arg[after] == '{') {
        asked = NamesSecretPrompt(std::string_view(arg.data() + p, close - p));
        p = after;
      }
      continue;
    }
    if (!IsAlpha(arg[p]) || (p > 0 && IsWordChar(arg[p - 1]))) continue;
    std::size_t end = p;
    while (end < arg.size() && IsWordChar(arg[end])) ++end;
    const std::string_view word(arg.data() + p, end - p);
    const bool expect = InWords<redact_rules::kPromptWaits>(word);
    const bool answer = asked && InWords<redact_rules::kPromptAnswers>(word);
    p = end - 1;
    if (!expect && !answer) continue;
    const std::size_t open = PastStringPrefix(arg, PastPromptOptions(arg, end));  // b"Password: "
    // Quoted, or escaped inside a double-quoted script (bash -c 'expect -c
    // "... send \"PW\r\""').
    if (open >= arg.size() || (arg[open] != '"' && arg[open] != '\'' && !EscapedQuoteAt(arg, open)))
      continue;
    if (answer) {
      p = AddQuotedInside(arg, open, spans) - 1;
      asked = false;
      continue;
    }
    const std::size_t close = StringEnd(arg, open);
    asked = NamesSecretPrompt(std::string_view(arg.data() + open, close - open));
    p = close - 1;
  }
}

// One of `name`'s words, split at '_', '-' and '.', is in kPlaceholderWords.
bool HasPlaceholderWord(std::string_view name) {
  std::size_t begin = 0;
  for (std::size_t i = 0; i <= name.size(); ++i) {
    if (i < name.size() && name[i] != '_' && name[i] != '-' && name[i] != '.') continue;
    if (InWords<redact_rules::kPlaceholderWords>(std::string_view(name.data() + begin, i - begin)))
      return true;
    begin = i + 1;
  }
  return false;
}

// A template's placeholder for a secret, as a substitution's pattern: a
// secret name set off by marks on both sides (__DB_PASSWORD__,
// {{ api_token }}, ${TOKEN}, @password@, %SECRET%, <password>) or holding
// a word that says it is one (TOKEN_PLACEHOLDER, YOUR_API_KEY), or a
// default password's word (changeme, changeit).
bool IsSecretPlaceholder(std::string_view pattern) {
  if (InWords<redact_rules::kPlaceholderPasswords>(pattern)) return true;
  std::size_t begin = 0;
  std::size_t end = pattern.size();
  const auto mark = [](char c) {
    return c == '_' || c == '{' || c == '}' || c == '@' || c == '%' || c == '<' || c == '>' ||
           c == '$' || c == '\\' || c == ' ' || c == '[' || c == ']';
  };
  while (begin < end && mark(pattern[begin])) ++begin;
  while (end > begin && mark(pattern[end - 1])) --end;
  if (begin == end) return false;
  const std::string_view name(pattern.data() + begin, end - begin);
  for (const char c : name) {
    if (!IsNameChar(c)) return false;
  }
  // Unmarked, a word must say it is one (TOKEN_PLACEHOLDER, YOUR_API_KEY).
  const bool marked = begin > 0 && end < pattern.size();
  return (marked || HasPlaceholderWord(name)) && IsSecretName(name, true);
}

// Rule 16: a line [begin, end) of `arg` that a command writes to a file, read
// as rule 1 reads a config file's (token: X; password_min_length: 12 shown)
// or as a secret name's assignment (DB_PASSWORD=X), hidden to `end`.
void WrittenLineRule(std::string_view arg, std::size_t begin, std::size_t end, Collector* spans) {
  const std::string_view line(arg.data(), end);
  std::size_t name_end = 0;
  bool pair = false;
  if (HeaderRule(line, begin, spans, &pair) == begin && AssignmentAt(line, begin, &name_end) &&
      IsSecretName(std::string_view(arg.data() + begin, name_end - begin), true) &&
      name_end + 1 < end)
    spans->Add(name_end + 1, end);
}

// Rule 16, substitutions: s/PATTERN/REPLACEMENT/ (sed, perl -pe, vim's :s)
// writes REPLACEMENT as a line of a file, so it gets the rules for a line's
// start: a header (token: X) or a secret name's assignment (DB_PASSWORD=X),
// to REPLACEMENT's end; and where PATTERN is a secret's placeholder
// (s/__DB_PASSWORD__/X/, s/changeme/X/), REPLACEMENT is the secret. The
// delimiter is any of /|#,:@!% after an 's' that starts a word. A delimiter
// with too few left after one try is not tried again, and a found
// replacement is passed over: linear.
void SubstitutionRule(std::string_view arg, Collector* spans) {
  constexpr std::string_view kDelimiters = "/|#,:@!%"sv;
  bool exhausted[kDelimiters.size()] = {};
  for (std::size_t p = 0; p + 1 < arg.size(); ++p) {
    if (arg[p] != 's' || (p > 0 && (IsWordChar(arg[p - 1]) || arg[p - 1] == '-'))) continue;
    const std::size_t d = kDelimiters.find(arg[p + 1]);
    if (d == std::string_view::npos || exhausted[d]) continue;
    const char delimiter = arg[p + 1];
    std::size_t ends[2] = {0, 0};  // the pattern's and the replacement's closing delimiters
    std::size_t found = 0;
    for (std::size_t i = p + 2; i < arg.size() && found < 2; ++i) {
      if (arg[i] == '\\') {
        ++i;
      } else if (arg[i] == delimiter) {
        ends[found++] = i;
      }
    }
    if (found < 2) {
      exhausted[d] = true;
      continue;
    }
    const std::size_t begin = ends[0] + 1;
    if (begin < ends[1] &&
        IsSecretPlaceholder(std::string_view(arg.data() + p + 2, ends[0] - p - 2))) {
      spans->Add(begin, ends[1]);
    } else {
      WrittenLineRule(arg, begin, ends[1], spans);
    }
    p = ends[1];  // past the replacement
  }
}

// Rule 16, sed's text: ADDRESS a\TEXT, i TEXT, c\TEXT (GNU's one-line
// forms, or the text on the next line) write TEXT as a file's line, read as
// a substitution's replacement is (/^token:/c\token: X). The command's
// letter follows an address ($, a line's number, /regex/), a separator or
// the script's start, and precedes '\', a blank or the end.
void SedTextRule(std::string_view script, Collector* spans) {
  for (std::size_t p = 0; p < script.size(); ++p) {
    const char command = script[p];
    if (command != 'a' && command != 'i' && command != 'c') continue;
    const char before = p == 0 ? ';' : script[p - 1];
    if (before != '$' && before != '/' && before != ';' && before != '{' && before != '!' &&
        before != '\n' && before != ' ' && !IsDigit(before))
      continue;
    std::size_t begin = p + 1;
    if (begin < script.size() && script[begin] != '\\' && !IsSpace(script[begin])) continue;
    if (begin < script.size() && script[begin] == '\\') ++begin;
    begin = SkipSpace(script, begin);
    const std::size_t end = LineEnd(script, begin, '\n');
    WrittenLineRule(script, begin, end, spans);
    p = end;
  }
}

// A name that code calls or reads: letters, digits, '_' and '.', not a
// digit first.
bool IsCallName(std::string_view value) {
  if (value.empty() || !(IsAlpha(value[0]) || value[0] == '_')) return false;
  for (const char c : value) {
    if (!IsWordChar(c) && c != '.') return false;
  }
  return true;
}

// A bare value that is code's, not a secret: a lookup or a call
// (cfg.password, process.env.PW, ENV['PW'], get_pw()), a variable's
// reference, or a literal (null, true).
bool IsCodeLookup(std::string_view value) {
  for (char c : value) {
    if (c == '.' || c == '(' || c == '[') return true;
  }
  return value.empty() || value[0] == '$' || InWords<redact_rules::kCodeLiterals>(value);
}

// Rule 10's bare values: YAML's flow mappings and code's object literals
// ({password: X, user: u} in kubectl patch -p, helm --set-json, ansible
// -e). After '{', or ',' inside braces, a secret name, ':' and a blank: the
// value to ',' '}' or the line's end. A quoted value (escaped too, or a
// template's backquotes) is rule 10's or 13's; "a:b" is no pair (a URL's, a
// time's). Each byte is read once: a value's scan stops at the ',' that
// opens the next pair.
void FlowMappingRule(std::string_view arg, Collector* spans) {
  std::size_t depth = 0;
  std::size_t parentheses = 0;
  bool call_argument = false;  // a '{' opened inside a call's parentheses
  for (std::size_t i = 0; i < arg.size(); ++i) {
    if (arg[i] == '(') ++parentheses;
    if (arg[i] == ')' && parentheses > 0) --parentheses;
    if (arg[i] == '}' && depth > 0 && --depth == 0) call_argument = false;
    if (arg[i] == '{') {
      ++depth;
      call_argument = call_argument || parentheses > 0;
    }
    if ((arg[i] != '{' && arg[i] != ',') || depth == 0) continue;
    std::size_t k = i + 1;
    while (k < arg.size() && (arg[k] == ' ' || arg[k] == '\t')) ++k;
    const std::size_t name_begin = k;
    while (k < arg.size() && IsNameChar(arg[k])) ++k;
    const std::string_view name(arg.data() + name_begin, k - name_begin);
    if (name.empty() || k + 1 >= arg.size() || arg[k] != ':' ||
        (arg[k + 1] != ' ' && arg[k + 1] != '\t'))
      continue;
    k += 2;
    while (k < arg.size() && (arg[k] == ' ' || arg[k] == '\t')) ++k;
    if (k >= arg.size() || arg[k] == '\'' || arg[k] == '"' || arg[k] == '`' || arg[k] == '{' ||
        arg[k] == '[' || EscapedQuoteAt(arg, k) || StartsWith(Tail(arg, k), "\\`"sv))
      continue;
    std::size_t end = k;
    while (end < arg.size() && arg[end] != ',' && arg[end] != '}' && arg[end] != '\n' &&
           !WrittenNewlineAt(arg, end))
      ++end;
    std::size_t value_end = end;
    while (value_end > k && IsSpace(arg[value_end - 1])) --value_end;
    const std::string_view value(arg.data() + k, value_end - k);
    // A call's object literal names its values by variables: connect({user:
    // u, password: pw}).
    const bool variable = call_argument && IsCallName(value);
    if (IsSecretName(name, true) && !variable && !IsCodeLookup(value) && !IsPlaceholder(value))
      spans->Add(k, value_end);
    i = end - 1;  // the ',' or '}' that ends the value is read next
  }
}

// The rules that read the text alone, all but rule 14's calls. Out of line:
// their locals are gone before a call's argv list nests another redactor,
// whose rules then run on stack this frame does not hold (a denial must
// still record under the smallest stack a static no-op survives).
// `shell_words_end`: rule 5's, for a shell's command string.
// `prose`: the text is a message, a title or a body (kProseOptions).
[[gnu::noinline]] void TextRules(std::string_view text, Collector* spans, bool shell_words_end,
                                 bool prose) {
  HeadersAnywhere(text, spans, prose, shell_words_end);
  UrlRule(text, spans);
  SchemelessUserinfoRule(text, spans);
  AssignmentRule(text, spans, shell_words_end);
  ParameterDefaultRule(text, spans);
  if (!prose && !shell_words_end) OptionInTextRule(text, spans);
  AuthSchemeRule(text, spans);
  if (!prose) ProtocolPasswordRule(text, spans);
  TokenShapeRule(text, spans);
  JwtRule(text, spans);
  PemPrivateKeyRule(text, spans);
  MaskCommandRule(text, spans);
  QuotedMemberRule(text, spans);
  if (!prose) FlowMappingRule(text, spans);
  KeywordPasswordRule(text, spans);
  CodeAssignmentRule(text, spans, shell_words_end);
  PromptAnswerRule(text, spans);
  SubstitutionRule(text, spans);
}

void ContextFreeRules(std::string_view text, Collector* spans, bool shell_words_end = false,
                      bool prose = false) {
  TextRules(text, spans, shell_words_end, prose);
  CodeCallRule(text, spans);
}

// Whether `word` is one of the space-separated `list`, or `any` is.
bool InList(std::string_view list, std::string_view word, std::string_view any = {}) {
  std::size_t start = 0;
  for (std::size_t i = 0; i <= list.size(); ++i) {
    if (i < list.size() && list[i] != ' ') continue;
    std::string_view item(list.data() + start, i - start);
    if (item == word || (!any.empty() && item == any)) return true;
    start = i + 1;
  }
  return false;
}

bool ToolMatches(std::string_view tools, std::string_view binary) {
  return InList(tools, binary, "*"sv);
}

// A name's two bits of 64 (by FNV-1a), and a row's tools list's union of its
// names' bits ("*": every bit), computed at compile time. A row whose bits
// lack a name's cannot name it, so most rows are passed over without their
// lists being scanned: a Redactor looks its name up in every table, once
// per command of a command line. A name longer than any a table holds gets
// every bit, unhashed (a word may be most of a 128 KiB argument): only "*"
// rows, and any list whose bits happen to be all set, are scanned for it.
constexpr std::size_t kLongestToolName = 64;
constexpr std::uint64_t NameBits(std::string_view name) {
  if (name.size() > kLongestToolName) return ~std::uint64_t{0};
  std::uint64_t hash = 14695981039346656037ull;
  for (char c : name) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return std::uint64_t{1} << (hash & 63) | std::uint64_t{1} << (hash >> 6 & 63);
}

// Not constexpr: reached while a table's bits are computed, it fails the
// build.
inline void ToolNameLongerThanKLongestToolName() {}

constexpr std::uint64_t ToolsBits(std::string_view tools) {
  std::uint64_t bits = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= tools.size(); ++i) {
    if (i < tools.size() && tools[i] != ' ') continue;
    const std::string_view item(tools.data() + start, i - start);
    if (item == "*"sv) return ~std::uint64_t{0};
    if (item.size() > kLongestToolName) ToolNameLongerThanKLongestToolName();
    bits |= NameBits(item);
    start = i + 1;
  }
  return bits;
}

template <const auto& kRows>
constexpr std::array<std::uint64_t, std::size(kRows)> MakeToolsBits() {
  std::array<std::uint64_t, std::size(kRows)> bits{};
  for (std::size_t i = 0; i < std::size(kRows); ++i) bits[i] = ToolsBits(kRows[i].tools);
  return bits;
}

template <const auto& kRows>
constexpr std::array<std::uint64_t, std::size(kRows)> kToolsBits = MakeToolsBits<kRows>();

// A tool's name with its NameBits, hashed once for all the tables it is
// looked up in (a Redactor looks in each). Made from a bare name where it is
// looked up in one table only.
struct ToolName {
  ToolName(std::string_view tool_name) : name(tool_name), bits(NameBits(tool_name)) {}
  std::string_view name;
  std::uint64_t bits;
};

// Whether kRows[i] names `tool`, or is a "*" row when `any`.
template <const auto& kRows>
bool RowNames(std::size_t i, const ToolName& tool, bool any) {
  if ((kToolsBits<kRows>[i] & tool.bits) != tool.bits) return false;
  return any ? ToolMatches(kRows[i].tools, tool.name) : InList(kRows[i].tools, tool.name);
}

// Bit i: kRows[i] names `tool` (the rows a Redactor meets per argument,
// looked up once).
template <const auto& kRows>
RowSet RowsFor(const ToolName& tool) {
  static_assert(std::size(kRows) <= sizeof(RowSet) * 8);
  RowSet rows = 0;
  for (std::size_t i = 0; i < std::size(kRows); ++i) {
    if (RowNames<kRows>(i, tool, true)) rows |= RowSet{1} << i;
  }
  return rows;
}

// The lowest set bit's index (`rows` not 0).
unsigned Lowest(RowSet rows) {
  const auto low = static_cast<std::uint64_t>(rows);
  if (low != 0) return static_cast<unsigned>(__builtin_ctzll(low));
  return 64 + static_cast<unsigned>(__builtin_ctzll(static_cast<std::uint64_t>(rows >> 64)));
}

// Whether `word` is the option of one of `rows`, rows of a ToolWord table
// (gcloud's --command, kSecretFileOptions' --config).
template <const auto& kRows>
bool IsRowOption(RowSet rows, std::string_view word) {
  for (; rows != 0; rows &= rows - 1) {
    if (word == kRows[Lowest(rows)].option) return true;
  }
  return false;
}

bool HasSpace(std::string_view text) {
  for (char c : text) {
    if (IsSpace(c)) return true;
  }
  return false;
}

// A shell word as the command sees it, when it is one quoted string.
// (Not substr(): its bounds check would throw, and the shim has no exceptions.)
std::string_view Inner(std::string_view text, const shell_words::Token& token) {
  return std::string_view(text.data() + token.inner_begin, token.inner_end - token.inner_begin);
}

// Whether a word's name (to its first '=') ends in `suffix` (lower case),
// in any case, '-', '_' and '.' left out: --password-command and
// RESTIC_PASSWORD_COMMAND end in "passwordcommand".
bool NameEndsIn(std::string_view word, std::string_view suffix) {
  const std::size_t eq = word.find('=');
  std::size_t i = eq == std::string_view::npos ? word.size() : eq;
  std::size_t k = suffix.size();
  while (i > 0 && k > 0) {
    const char c = word[i - 1];
    --i;
    if (c == '-' || c == '_' || c == '.') continue;
    if (Lower(c) != suffix[k - 1]) return false;
    --k;
  }
  return k == 0;
}

// Whether a word's name ends in one of kSecretCommandNames: its value is a
// command that prints a secret.
bool NamesSecretCommand(std::string_view word) {
  for (std::string_view suffix : redact_rules::kSecretCommandNames) {
    if (NameEndsIn(word, suffix)) return true;
  }
  return false;
}

// A redirection opening a command line's word (> f, 2>>f, &>f, <<< w,
// >&2): neither it nor its target is an argument.
struct Redirection {
  bool found = false;
  // >, >>, >|, 1>, &>: what the command prints goes to the target (not
  // 2>, <, nor >&2, a descriptor).
  bool writes_output = false;
  std::string_view target;  // the rest of the word; empty: the next word
};

Redirection ParseRedirection(std::string_view word) {
  Redirection redirection;
  std::size_t i = 0;
  while (i < word.size() && (IsDigit(word[i]) || word[i] == '&')) ++i;
  if (i >= word.size() || (word[i] != '>' && word[i] != '<')) return redirection;
  const std::string_view descriptor(word.data(), i);
  const char direction = word[i];
  while (i < word.size() && (word[i] == '>' || word[i] == '<' || word[i] == '|' || word[i] == '&'))
    ++i;
  redirection.found = true;
  redirection.writes_output = direction == '>' && word[i - 1] != '&' &&
                              (descriptor.empty() || descriptor == "1"sv || descriptor == "&"sv);
  redirection.target = Tail(word, i);
  return redirection;
}

// A command's name without the backslash before it (\curl), which only
// keeps an alias from expanding.
std::string_view WithoutAliasEscape(std::string_view word) {
  return word.size() > 1 && word[0] == '\\' ? Tail(word, 1) : word;
}

// '<' or '>' when `word`, whose first byte as written is `first` (no
// quote), is a redirection; else 0. Out of line: its locals stay off the
// frame of rule 11's loop, which nested commands run under.
[[gnu::noinline]] char UnquotedRedirection(char first, std::string_view word) {
  return (first == '<' || first == '>') && ParseRedirection(word).found ? first : 0;
}

// -c, -lc, -ec: the option after which sh, bash, su and zsh take the
// command string.
bool IsCommandStringOption(std::string_view arg) {
  if (arg.size() < 2 || arg[0] != '-' || arg[1] == '-') return false;
  bool c = false;
  for (std::size_t i = 1; i < arg.size(); ++i) {
    if (!IsAlpha(arg[i])) return false;
    c = c || arg[i] == 'c';
  }
  return c;
}

// A word that is one quoted string with white space inside ('curl -u a:b x')
// is split in turn. Only then: a word split into words gives itself back
// unless its quotes were taken off (x'a b' is one word, again and again).
bool IsQuotedCommandLine(const shell_words::Token& token, std::string_view word) {
  return token.inner_begin != token.begin && HasSpace(word);
}

// Whether a row of kRows names `binary` itself (not by "*").
template <const auto& kRows>
bool NamedBy(const ToolName& tool) {
  for (std::size_t i = 0; i < std::size(kRows); ++i) {
    if (RowNames<kRows>(i, tool, false)) return true;
  }
  return false;
}

// Whether a table names `binary` (a row of its own, not a "*" one): then
// rules 8 and 9 hold in its command lines, and after a prefix it starts
// the command (sudo vault login X, sudo git config user.password X).
bool HasOwnRows(const ToolName& tool) {
  return NamedBy<redact_rules::kToolOptions>(tool) ||
         NamedBy<redact_rules::kPositionalSecrets>(tool) ||
         NamedBy<redact_rules::kSettingNames>(tool) ||
         NamedBy<redact_rules::kMarkedSecrets>(tool) ||
         NamedBy<redact_rules::kCountedOperands>(tool) ||
         NamedBy<redact_rules::kSecretStores>(tool) ||
         NamedBy<redact_rules::kToolStdinSecretOptions>(tool) ||
         NamedBy<redact_rules::kOptionPairs>(tool) ||
         NamedBy<redact_rules::kSecretFileOptions>(tool) ||
         NamedBy<redact_rules::kRunnerSubcommands>(tool) ||
         NamedBy<redact_rules::kFieldReaderSubcommands>(tool) ||
         NamedBy<redact_rules::kProseOptions>(tool) ||
         NamedBy<redact_rules::kCommandStringOptions>(tool);
}

bool IsOneLetterOption(std::string_view option) {
  return option.size() == 2 && option[0] == '-' && option[1] != '-';
}

// The run of letters after a single '-' (-sSLu:v gives sSLu, -kS gives
// kS): one-letter flags given together. Empty for --long and non-options.
std::string_view BundledFlags(std::string_view arg) {
  if (arg.size() < 2 || arg[0] != '-' || arg[1] == '-') return std::string_view();
  std::size_t end = 1;
  while (end < arg.size() && IsAlpha(arg[end])) ++end;
  return std::string_view(arg.data() + 1, end - 1);
}

// The last bytes of the secret suffixes, either case: most words end
// otherwise and skip the suffix loop.
constexpr std::array<bool, 256> MakeSuffixLastBytes() {
  std::array<bool, 256> last{};
  for (std::string_view suffix : redact_rules::kSecretSuffixes) {
    char c = suffix.back();
    last[static_cast<unsigned char>(c)] = true;
    last[static_cast<unsigned char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c)] = true;
  }
  return last;
}
constexpr std::array<bool, 256> kSuffixLastBytes = MakeSuffixLastBytes();

}  // namespace

bool IsSecretName(std::string_view name, bool allow_exclusions) {
  return SecretName(name, allow_exclusions, false);
}

namespace {

bool SecretName(std::string_view name, bool allow_exclusions, bool last_word_only) {
  // PWD and OLDPWD are the shell's directories, not passwords.
  if (EqualsIgnoreCase(name, "pwd"sv) || EqualsIgnoreCase(name, "oldpwd"sv)) return false;
  bool secret = false;
  std::string_view previous;
  std::string_view word;
  bool first = true;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= name.size(); ++i) {
    bool separator = i == name.size() || name[i] == '-' || name[i] == '_' || name[i] == '.' ||
                     name[i] == ':' || name[i] == '/' || name[i] == ' ';
    bool camel = !separator && i > start && CamelHumpAt(name, i);
    if (!separator && !camel) continue;
    word = std::string_view(name.data() + start, i - start);
    start = separator ? i + 1 : i;
    if (word.empty()) continue;
    if (allow_exclusions && first && InWords<redact_rules::kNonSecretFirstWords>(word))
      return false;
    if (allow_exclusions && InWords<redact_rules::kReferenceWords>(word)) return false;
    first = false;
    if (last_word_only) secret = false;
    if (InWords<redact_rules::kSecretWords>(word)) secret = true;
    if (kSuffixLastBytes[static_cast<unsigned char>(word.back())]) {
      for (std::string_view suffix : redact_rules::kSecretSuffixes) {
        if (EndsWithIgnoreCase(word, suffix)) secret = true;
      }
    }
    for (const redact_rules::QualifiedWord& qualified : redact_rules::kQualifiedWords) {
      if (!EqualsIgnoreCase(word, qualified.word)) continue;
      for (std::size_t q = 0; q < qualified.count; ++q) {
        if (EqualsIgnoreCase(previous, qualified.qualifiers[q])) secret = true;
      }
    }
    previous = word;
  }
  if (InWords<redact_rules::kSecretLastWords>(previous)) secret = true;
  // `previous` is now the last word, and the one before it decides "id".
  if (allow_exclusions && secret && InWords<redact_rules::kNonSecretLastWords>(previous)) {
    if (!EqualsIgnoreCase(previous, "id"sv)) return false;
    // secret_id / SecretId, Vault's VAULT_DEV_ROOT_TOKEN_ID: the id is the
    // secret. Find the words before "id".
    std::size_t end = name.size() - previous.size();
    while (end > 0 && (name[end - 1] == '-' || name[end - 1] == '_' || name[end - 1] == '.')) --end;
    const std::string_view before(name.data(), end);
    if (!EndsWithIgnoreCase(before, "secret"sv) && !EndsWithIgnoreCase(before, "root_token"sv) &&
        !EndsWithIgnoreCase(before, "roottoken"sv))
      return false;
  }
  return secret;
}

}  // namespace

Redactor::Redactor(std::string_view binary) : tool_(binary) {
  const ToolName tool(binary);  // hashed once for every table below
  for (std::size_t i = 0; i < std::size(redact_rules::kToolOptions); ++i) {
    if (row_count_ < kMaxToolRows && RowNames<redact_rules::kToolOptions>(i, tool, true))
      rows_[row_count_++] = &redact_rules::kToolOptions[i];
  }
  setting_rows_ = RowsFor<redact_rules::kSettingNames>(tool);
  SettingsAfter(""sv);
  // A command named as the word a row waits for: set NAME V as a command
  // (msfconsole -x 'set PASSWORD V').
  SettingsAfter(binary);
  positional_rows_ = RowsFor<redact_rules::kPositionalSecrets>(tool);
  for (RowSet rows = positional_rows_; rows != 0; rows &= rows - 1) {
    const redact_rules::PositionalSecret& row = redact_rules::kPositionalSecrets[Lowest(rows)];
    if (!row.trigger.empty()) continue;
    if (row.offset == redact_rules::kEveryOperand) every_operand_row_ = &row;
    if (row.offset == 0) operand_row_ = &row;
  }
  marked_rows_ = RowsFor<redact_rules::kMarkedSecrets>(tool);
  store_rows_ = RowsFor<redact_rules::kSecretStores>(tool);
  has_own_rows_ = HasOwnRows(tool);
  runs_command_ = InWords<redact_rules::kCommandPrefixes>(binary);
  runs_shell_command_lines_ = InWords<redact_rules::kShellCommandRunners>(binary);
  printf_ = binary == "printf"sv;
  if (binary == "for"sv || binary == "select"sv) loop_ = Loop::kName;
  sed_ = InWords<redact_rules::kSedCommands>(binary);
  free_text_ = InWords<redact_rules::kPatternSearchers>(binary);
  runner_rows_ = RowsFor<redact_rules::kRunnerSubcommands>(tool);
  field_reader_rows_ = RowsFor<redact_rules::kFieldReaderSubcommands>(tool);
  option_pair_rows_ = RowsFor<redact_rules::kOptionPairs>(tool);
  secret_file_rows_ = RowsFor<redact_rules::kSecretFileOptions>(tool);
  prose_rows_ = RowsFor<redact_rules::kProseOptions>(tool);
  command_string_rows_ = RowsFor<redact_rules::kCommandStringOptions>(tool);
  if (const RowSet rows = RowsFor<redact_rules::kCountedOperands>(tool); rows != 0)
    counted_row_ = &redact_rules::kCountedOperands[Lowest(rows)];
}

bool Redactor::Applies(std::size_t row) const {
  return rows_[row]->after.empty() || (seen_after_ >> row & 1) != 0;
}

// Rule 2. Returns true when `arg` is one of this tool's secret options;
// *reference set when its attached value is a kReference.
bool Redactor::ToolOption(std::string_view arg, Collector* spans, bool* reference) {
  using redact_rules::Form;
  if (arg.size() < 2 || (arg[0] != '-' && arg[0] != '/')) return false;
  // Exact options and their attached forms: --user v, --user=v, -passin v,
  // -pV, /p:V.
  for (std::size_t r = 0; r < row_count_; ++r) {
    const redact_rules::ToolOption& row = *rows_[r];
    if (!Applies(r) || !StartsWith(arg, row.option)) continue;
    // Past a runner's container and a command no row names, the option is
    // that command's: a reference of the runner's own (podman run --secret
    // NAME IMAGE) is no reason to show its value (docker exec c exo config
    // add --secret V).
    if (runner_operands_ >= 2 && row.value == Value::kReference) continue;
    std::size_t rest = row.option.size();
    if (arg.size() == rest) {
      if ((row.forms & Form::kSeparate) == 0) continue;
      pending_ = Pending{true, row.value, false};
      return true;
    }
    if ((row.forms & Form::kAttached) == 0) continue;
    // Glued on: -pV, /p:V, and any option that takes its value only so
    // (rar's -hpV).
    const bool glued =
        IsOneLetterOption(row.option) || row.option.back() == ':' || row.forms == Form::kAttached;
    if (!glued && arg[rest] != '=') continue;
    ToolValue(row.value, arg, glued ? rest : rest + 1, spans);
    *reference = row.value == Value::kReference;
    return true;
  }
  // Bundled after other one-letter flags (-su v, -sSLu:v): the first letter
  // with a bundling row in the leading run of letters takes the rest.
  const std::string_view flags = BundledFlags(arg);
  for (std::size_t f = 0; f < flags.size(); ++f) {
    for (std::size_t r = 0; r < row_count_; ++r) {
      const redact_rules::ToolOption& row = *rows_[r];
      if (!Applies(r) || (row.forms & Form::kBundled) == 0 || !IsOneLetterOption(row.option) ||
          row.option[1] != flags[f]) {
        continue;
      }
      const std::size_t i = f + 1;  // the flag's place in arg
      // A lone -H: the next argument meets rule 1 unaided.
      if (i + 1 < arg.size()) {
        ToolValue(row.value, arg, i + 1, spans);
      } else if (row.value != Value::kHeader) {
        pending_ = Pending{true, row.value, false};
      }
      return true;
    }
  }
  return false;
}

// As NextArgument reads an argument, its command lines too (['sh', '-c',
// 'mysql -pX'] in subprocess.run, a container's command in JSON), or as a
// command string itself (`command_line`); inside a command line already, a
// command string is hidden whole instead.
void Redactor::ListArgument(std::string_view arg, bool command_line, Collector* spans) {
  const bool command_string = command_line || after_command_string_option_;
  const bool prints_secret = after_secret_command_option_;
  Collect(arg, spans);
  if (!HasSpace(arg)) return;
  if (!g_in_command_lines) {
    CommandLines(arg, command_string, prints_secret || NamesSecretCommand(arg), spans);
  } else if (command_string || prints_secret) {
    spans->Add(0, arg.size());
  }
}

void Redactor::NextArgument(std::string_view arg, Spans* out) {
  g_record = this;
  // The redactor that reads this argument: the command a prefix or runner
  // runs, from the argument after its name on.
  Redactor* reader = running_;
  Collector spans(arg.size());
  if (reader->runs_command_ && run_depth_ < kMaxRunDepth) {
    // Past the record's bound, which command reads a prefix's argument is
    // not known: it is redacted unread, as rule 11 does past the bound.
    if (commands_left_ == 0) {
      spans.Add(0, arg.size());
      spans.Finish(out);
      return;
    }
    if (reader->StartsCommand(arg))
      running_ = new (g_run_commands[run_depth_++]) Redactor(Basename(arg));
  }
  const bool command_string = reader->after_command_string_option_;
  const bool prints_secret = reader->after_secret_command_option_;
  // A shell runs it (sh -c, ssh's remote command): its variables expand.
  const bool shell_runs =
      command_string && (InWords<redact_rules::kShells>(reader->tool_) ||
                         InWords<redact_rules::kPowerShells>(reader->tool_) ||
                         (reader->runs_shell_command_lines_ &&
                          !InWords<redact_rules::kLiteralCommandRunners>(reader->tool_)));
  reader->Collect(arg, &spans);
  if (HasSpace(arg)) {
    // --password-command='echo X', BORG_PASSCOMMAND='echo X' given to env.
    reader->CommandLines(arg, command_string, prints_secret || NamesSecretCommand(arg), &spans);
  }
  spans.Finish(out, shell_runs ? arg : std::string_view());
}

namespace {

// A positional secret's count of arguments passes over a flag
// (attic login --set-default NAME URL TOKEN): over a long one anywhere, over
// a short one before the secret's own slot, which may start with '-'; and
// over a Windows option with a value (net use \\h\s /user:bob PASSWORD).
bool FlagBeforeSlot(std::string_view arg, unsigned arguments_left) {
  std::size_t letters = 1;
  while (letters < arg.size() && IsAlpha(arg[letters])) ++letters;
  const bool windows_option =
      arg.size() > 2 && arg[0] == '/' && letters > 1 && letters < arg.size() && arg[letters] == ':';
  return StartsWith(arg, "--"sv) || windows_option ||
         (arguments_left > 1 && arg.size() >= 2 && arg[0] == '-');
}

// $PASS, "${DB_PASSWORD}": a reference to a secret's variable alone.
bool ReferencesSecret(std::string_view word) {
  std::string_view name = Unquoted(word);
  if (name.size() < 2 || name[0] != '$' || !IsVariableReference(name)) return false;
  name.remove_prefix(1);
  if (name[0] == '{') name = std::string_view(name.data() + 1, name.size() - 2);
  return IsSecretName(name, true);
}

// What a substitution opening after `word` (its '<' or '$' taken off) is
// the value of: the word before it (--password-file <(...), or after a
// label: ansible's --vault-id prod@<(...)), or what comes before an
// attached '=' (--pwfile=<(...)); empty when neither.
std::string_view SubstitutionOwner(std::string_view word, std::string_view previous) {
  if (word.empty()) return previous;
  if (word.back() == '@' && word.find('=') == std::string_view::npos) return previous;
  if (word.back() != '=') return std::string_view();
  return std::string_view(word.data(), word.size() - 1);
}

}  // namespace

void Redactor::Collect(std::string_view arg, Collector* out) {
  Collector& spans = *out;
  const bool is_option = arg.size() >= 2 && arg[0] == '-';
  // env -S 'A=1 cmd args': a command line split into words as a shell does.
  const bool splits_string = tool_ == "env"sv;
  const bool shell_command_string =
      after_command_string_option_ &&
      (runs_shell_command_lines_ || splits_string || InWords<redact_rules::kShells>(tool_));
  // sh -c 'cd /app && exec "$@"' sh mysql -pX: the arguments after $0 are
  // a command line the string runs.
  if (runs_script_arguments_) {
    runs_script_arguments_ = false;
    runs_command_ = true;
  }
  if (shell_command_string &&
      (arg.find("$@"sv) != std::string_view::npos || arg.find("$*"sv) != std::string_view::npos))
    runs_script_arguments_ = true;
  // Windows' cmd /c and /k: a command string, %VAR% its variables.
  const bool cmd = tool_ == "cmd"sv || tool_ == "cmd.exe"sv;
  after_command_string_option_ =
      runs_shell_command_lines_ || IsCommandStringOption(arg) ||
      IsRowOption<redact_rules::kCommandStringOptions>(command_string_rows_, arg) ||
      (splits_string && (arg == "-S"sv || arg == "--split-string"sv)) ||
      (cmd && (EqualsIgnoreCase(arg, "/c"sv) || EqualsIgnoreCase(arg, "/k"sv)));
  // A message, a title or a body: this argument after such an option, or
  // its attached value (--message=...).
  bool prose = after_prose_option_;
  after_prose_option_ = false;
  for (RowSet rows = prose_rows_; rows != 0; rows &= rows - 1) {
    const std::string_view option = redact_rules::kProseOptions[Lowest(rows)].option;
    if (arg == option) after_prose_option_ = true;
    if (StartsWith(arg, option) && arg.size() > option.size() && arg[option.size()] == '=')
      prose = true;
  }
  after_secret_command_option_ =
      is_option && arg.find('=') == std::string_view::npos && NamesSecretCommand(arg);
  if (positional_more_ > 0) {
    --positional_more_;
    pending_ = Pending{true, Value::kWhole, false};
  } else if (positional_left_ > 0 && !FlagBeforeSlot(arg, positional_left_) &&
             --positional_left_ == 0) {
    pending_ = Pending{true, Value::kWhole, false};
    positional_more_ = positional_count_ - 1;
  }
  // The operand rows' secret operand, which is never an option, NAME=value
  // or the value of one of the row's value_options.
  const redact_rules::PositionalSecret* operand =
      operand_row_ != nullptr ? operand_row_ : every_operand_row_;
  const bool an_options_value = value_next_;
  value_next_ = operand != nullptr && InList(operand->value_options, arg);
  if (operand != nullptr && !an_options_value && !StartsWith(arg, "-"sv) &&
      arg.find('=') == std::string_view::npos) {
    operand_row_ = nullptr;
    ToolValue(operand->value, arg, 0, &spans);
  }
  bool positional_trigger = false;
  for (RowSet rows = positional_rows_; rows != 0; rows &= rows - 1) {
    const redact_rules::PositionalSecret& row = redact_rules::kPositionalSecrets[Lowest(rows)];
    // An operand's trigger is a subcommand, matched whole in any case
    // (vault login, redis-cli AUTH); an offset's, the argument's start in
    // any case (http-basic.HOST, hdbuserstore SET).
    const bool operand = row.offset == 0 || row.offset == redact_rules::kEveryOperand;
    const bool triggered = operand ? !row.trigger.empty() && EqualsIgnoreCase(arg, row.trigger)
                                   : StartsWithIgnoreCase(arg, row.trigger);
    if (!triggered) continue;
    positional_trigger = true;
    if (row.offset == redact_rules::kEveryOperand) {
      every_operand_row_ = &row;
    } else if (row.offset == 0) {
      operand_row_ = &row;
    } else {
      positional_left_ = row.offset;
      positional_count_ = row.count;
    }
  }
  MarkedSecret(arg, &spans);
  CountedOperand(arg, &spans);
  PrintfOperand(arg, &spans);
  LoopWord(arg, &spans);
  StoredValue(arg, &spans);
  Pending pending = pending_;
  pending_ = Pending{};
  // Rule 9's value is not an option: gh secret set NAME --body V leaves the
  // value to the option (a tool row).
  // Nor Windows' one-letter switch: reg add K /v Password /d V.
  const bool one_letter_switch =
      arg.size() == 2 && (arg[0] == '-' || arg[0] == '/') && IsAlpha(arg[1]);
  if (pending.active && pending.setting && (StartsWith(arg, "-"sv) || one_letter_switch))
    pending = Pending{};
  // Nor a lone '=' (SQL's SET password_hash = crypt(...)) or '==' (code's
  // password == "x"): the word after it.
  if (pending.active && pending.setting && (arg == "="sv || arg == "=="sv)) {
    pending_ = pending;
    pending = Pending{};
  }
  // Nor a comparison: the name is a column's (WHERE password IS NULL).
  if (pending.active && pending.setting && InWords<redact_rules::kSqlComparisons>(arg))
    pending = Pending{};
  // Nor a task: the keyword is a subcommand (pscale password create db).
  if (pending.active && pending.setting && InWords<redact_rules::kTaskVerbs>(arg))
    pending = Pending{};
  // Nor a lone one-letter flag, no password: the secret option before it
  // asks for one (psql --password -h h, age --passphrase -o f.age).
  if (pending.active && arg.size() == 2 && arg[0] == '-' && IsAlpha(arg[1])) pending = Pending{};
  if (pending.active && pending.value == Value::kWhole) {
    if (!HoldsNoSecret(arg)) spans.Add(0, arg.size());
    // az login -p /dev/stdin: the secret is what the command reads.
    if (InWords<redact_rules::kStdinPaths>(arg)) reads_secret_on_stdin_ = true;
    // Still a setting's name for rule 9: pulumi config set --secret NAME V.
    SettingName(arg, is_option);
    return;
  }
  if (pending.active) ToolValue(pending.value, arg, 0, &spans);
  // A secret's reference (docker build --secret id=npm,env=NPM_TOKEN,
  // gcloud --set-secrets=DB_PASSWORD=db-password:latest): no rule reads it.
  // An option is not one (trino --password --truststore-password V: a flag
  // before it).
  bool reference = pending.active && pending.value == Value::kReference && !is_option;

  if (runs_command_ && !is_option && runner_operands_ < 2 &&
      arg.find('=') == std::string_view::npos)
    ++runner_operands_;
  if (!ToolOption(arg, &spans, &reference) && is_option) {
    // Rule 3: --name=value / --name value, and -name=value / -name value.
    std::size_t name_begin = arg[1] == '-' ? 2 : 1;
    std::size_t eq = arg.find('=');
    std::size_t name_end = eq == std::string_view::npos ? arg.size() : eq;
    std::string_view name(arg.data() + name_begin, name_end - name_begin);
    // -Dname=value (Java's, CMake's): the name is past the D
    // (-DENABLE_AUTH=ON, -Ddb.password=X); a launcher passes one on to its
    // JVM as -J-D or -R-D (keytool -J-Dx=V, jshell -R-Dapi.key=X).
    if (name_begin == 1 && eq != std::string_view::npos) {
      const bool passed_on =
          name.size() > 3 && (name[0] == 'J' || name[0] == 'R') && name[1] == '-' && name[2] == 'D';
      if (passed_on) {
        name.remove_prefix(3);
      } else if (name[0] == 'D' && name.size() > 1) {
        name.remove_prefix(1);
      }
    }
    bool long_enough = name_begin == 2 ? !name.empty() : name.size() >= 3;
    bool plain = true;
    for (char c : name) plain = plain && IsNameChar(c);
    // An option ending in id names a secret, it does not hold one
    // (aws --secret-id NAME), unlike Vault's secret_id=VALUE.
    bool names_one = EndsWithIgnoreCase(name, "-id"sv) || EndsWithIgnoreCase(name, "_id"sv);
    if (long_enough && plain && !names_one && IsSecretName(name, true)) {
      // A private or client key's option may name its file instead
      // (ansible --private-key ~/.ssh/id, kubectl --client-key=k.pem): a
      // path is shown.
      const Value value = NameEndsIn(name, "privatekey"sv) || NameEndsIn(name, "clientkey"sv) ||
                                  NameEndsIn(name, "credentials"sv)
                              ? Value::kUnlessPath
                              : Value::kWhole;
      if (eq != std::string_view::npos) {
        if (!InWords<redact_rules::kStdinPaths>(Tail(arg, eq + 1)))
          ToolValue(value, arg, eq + 1, &spans);
      } else {
        pending_ = Pending{true, value, false};
      }
    }
  }
  PairOption(arg, is_option, &spans);
  // A secret's variable compared: test "$TOKEN" = V, [[ $PASS == V ]] (a
  // lone '=' elsewhere assigns: Perl's my $token = $ENV{T}).
  if (after_secret_reference_ &&
      (arg == "=="sv || arg == "!="sv ||
       (arg == "="sv && (tool_ == "test"sv || tool_ == "["sv || tool_ == "[["sv))))
    pending_ = Pending{true, Value::kWhole, false};
  after_secret_reference_ = ReferencesSecret(arg);
  for (std::size_t r = 0; r < row_count_; ++r) {
    if (!rows_[r]->after.empty() && arg == rows_[r]->after) seen_after_ |= 1u << r;
  }
  // Rule 8: "password V", V never an option (influx user password -n u);
  // and a secret name with '=' and no value, then its value (sc.exe's
  // "password= V").
  const bool empty_assignment = !is_option && arg.size() > 1 && arg.find('=') == arg.size() - 1 &&
                                IsSecretName(std::string_view(arg.data(), arg.size() - 1), true);
  // A positional row's trigger is a subcommand, its secret counted from it
  // (chef-server-ctl password USER V, ipmitool user set password ID V): no
  // keyword of rule 8's, no setting's name of rule 9's.
  if (!free_text_ && !pending_.active && !positional_trigger &&
      (InWords<redact_rules::kSecretKeywords>(arg) || empty_assignment))
    pending_ = Pending{true, Value::kWhole, true};
  if (positional_trigger) {
    after_set_ = false;
  } else {
    SettingName(arg, is_option);
  }
  SettingsAfter(arg);
  // A runner's subcommand: from the next argument on, it runs a command.
  for (RowSet rows = runner_rows_; rows != 0 && !runs_command_; rows &= rows - 1) {
    if (InList(redact_rules::kRunnerSubcommands[Lowest(rows)].subcommands, arg))
      runs_command_ = true;
  }
  // A password manager's reader: from its subcommand on, words name fields.
  for (RowSet rows = field_reader_rows_; rows != 0 && !free_text_; rows &= rows - 1) {
    if (InList(redact_rules::kFieldReaderSubcommands[Lowest(rows)].subcommands, arg))
      free_text_ = true;
  }
  if (!reference) ContextFreeRules(arg, &spans, shell_command_string, prose);
  if (sed_ && !is_option) SedTextRule(arg, &spans);
}

// Rule 3's pairs: --value V after --name API_KEY, a pair name's option whose
// value is a secret name (eas secret:create, az keyvault secret set).
void Redactor::PairOption(std::string_view arg, bool is_option, Collector* spans) {
  const bool names_pair = pair_name_next_;
  pair_name_next_ = false;
  if (names_pair && !is_option) {
    secret_pair_ = IsSecretName(Unquoted(arg), true);
    return;
  }
  // A tool's pair of options (reg add KEY /v ApiKey /d V): kOptionPairs.
  for (RowSet rows = option_pair_rows_; rows != 0; rows &= rows - 1) {
    const redact_rules::OptionPair& row = redact_rules::kOptionPairs[Lowest(rows)];
    if (EqualsIgnoreCase(arg, row.name_option)) {
      pair_name_next_ = true;
    } else if (secret_pair_ && EqualsIgnoreCase(arg, row.value_option)) {
      secret_pair_ = false;
      pending_ = Pending{true, Value::kWhole, false};
    } else if (secret_pair_ && arg.size() > row.value_option.size() &&
               arg[row.value_option.size()] == '=' &&
               StartsWithIgnoreCase(arg, row.value_option)) {  // --body=V
      secret_pair_ = false;
      ToolValue(Value::kWhole, arg, row.value_option.size() + 1, spans);
    }
  }
  // --key NAME, --key=NAME, PowerShell's -Path NAME (New-Item -Path
  // Env:\API_KEY -Value V); or a NAME=VALUE argument (glab api -f key=TOKEN
  // -f value=V).
  const std::size_t eq = arg.find('=');
  const std::size_t name_begin = !is_option ? 0 : arg[1] == '-' ? 2 : 1;
  if (!is_option && eq == std::string_view::npos) return;
  const std::string_view name(arg.data() + name_begin,
                              (eq == std::string_view::npos ? arg.size() : eq) - name_begin);
  if (InWords<redact_rules::kPairNames>(name)) {
    if (eq == std::string_view::npos) {
      pair_name_next_ = true;
    } else {
      secret_pair_ = IsSecretName(Unquoted(Tail(arg, eq + 1)), true);
    }
  } else if (secret_pair_ && InWords<redact_rules::kPairValues>(name)) {
    secret_pair_ = false;
    if (eq == std::string_view::npos) {
      pending_ = Pending{true, Value::kWhole, false};
    } else {
      ToolValue(Value::kWhole, arg, eq + 1, spans);
    }
  }
}

// Rule 11: a process substitution's '<' (`word`, the '(' next) as the
// value of one of this tool's kSecretFileOptions, after it (`previous`) or
// attached (--config=<).
bool Redactor::NamesSecretFile(std::string_view word, std::string_view previous) const {
  if (secret_file_rows_ == 0 || word.empty() || word.back() != '<') return false;
  word.remove_suffix(1);
  return IsRowOption<redact_rules::kSecretFileOptions>(secret_file_rows_,
                                                       SubstitutionOwner(word, previous));
}

// kMarkedSecrets: >PASSWORD after redis-cli's ACL SETUSER.
void Redactor::MarkedSecret(std::string_view arg, Collector* spans) {
  for (RowSet rows = marked_rows_; rows != 0; rows &= rows - 1) {
    const redact_rules::MarkedSecret& row = redact_rules::kMarkedSecrets[Lowest(rows)];
    if (EqualsIgnoreCase(arg, row.after)) {
      marked_secrets_ = true;
    } else if (marked_secrets_ && arg.size() > 1 &&
               row.marks.find(arg[0]) != std::string_view::npos) {
      spans->Add(1, arg.size());
    }
  }
}

// kSecretStores: once the row's word was seen, each NAME=VALUE's value,
// unless the name's last word says it is not the secret (db_user=app,
// DATABASE_URL=..., whose password rule 4 finds), or the value names the
// standard input (vault kv put secret/app password=-).
void Redactor::StoredValue(std::string_view arg, Collector* spans) {
  if (store_rows_ == 0) return;
  if (!stored_values_) {
    for (RowSet rows = store_rows_; rows != 0; rows &= rows - 1) {
      if (EqualsIgnoreCase(arg, redact_rules::kSecretStores[Lowest(rows)].after))
        stored_values_ = true;
    }
    return;
  }
  std::size_t at = 0;  // --from-literal=NAME=VALUE: past the option's '='
  bool file_option = false;
  if (StartsWith(arg, "-"sv)) {
    const std::size_t eq = arg.find('=');
    if (eq == std::string_view::npos) return;
    at = eq + 1;
    file_option = InWords<redact_rules::kStoreFileOptions>(std::string_view(arg.data(), eq));
  }
  std::size_t name_end = 0;
  if (!AssignmentAt(arg, at, &name_end)) return;
  const std::string_view name(arg.data() + at, name_end - at);
  const std::string_view value = Tail(arg, name_end + 1);
  if (!InWords<redact_rules::kNonSecretLastWords>(LastNameWord(name)) &&
      !InWords<redact_rules::kStdinPaths>(value) && !(file_option && NamesAFile(value)))
    spans->Add(name_end + 1, arg.size());
}

// kCountedOperands: htpasswd -b's password, its third operand (-nb: second).
void Redactor::CountedOperand(std::string_view arg, Collector* spans) {
  if (counted_row_ == nullptr) return;
  const redact_rules::CountedOperand& row = *counted_row_;
  const bool value = counted_value_next_;
  counted_value_next_ = InList(row.value_options, arg);
  if (arg.size() >= 2 && arg[0] == '-' && arg[1] != '-') {  // -b, -nb, -bc
    const std::string_view flags = BundledFlags(arg);
    counted_flag_ = counted_flag_ || flags.find(row.flag) != std::string_view::npos;
    fewer_flag_ = fewer_flag_ || flags.find(row.fewer_flag) != std::string_view::npos;
    // The last of bundled flags may take the next argument (htpasswd -bnBC 10).
    if (!flags.empty() && flags.size() + 1 == arg.size()) {
      const char last[] = {'-', flags.back()};
      counted_value_next_ = counted_value_next_ || InList(row.value_options, {last, 2});
    }
    return;
  }
  if (value || StartsWith(arg, "-"sv)) return;
  ++operands_seen_;
  const unsigned fewer = fewer_flag_ ? 1u : 0u;
  const bool secret = operands_seen_ == row.operand - fewer ||
                      (row.also_operand != 0 && operands_seen_ == row.also_operand - fewer);
  if ((row.flag == 0 || counted_flag_) && secret) spans->Add(0, arg.size());
}

namespace {

// SQL's SET PASSWORD FOR account before the '=' at `eq`, looked for back to
// `from` (the previous conversion's end) and 128 bytes at most, so each
// byte of a format is read once.
bool SqlPasswordForBefore(std::string_view format, std::size_t from, std::size_t eq) {
  std::size_t after = 0;
  for (std::size_t p = std::max(from, eq > 128 ? eq - 128 : 0); p < eq; ++p) {
    if (KeywordAt(format, p, "password"sv, &after) &&
        KeywordAt(format, SkipSpace(format, after), "for"sv, &after))
      return true;
  }
  return false;
}

// Db2's USER name before the word USING at `at` (connect to d user u using %s).
bool Db2UserBefore(std::string_view format, std::size_t at) {
  const std::string_view user = WordBefore(format, at);
  if (user.empty()) return false;
  return EqualsIgnoreCase(WordBefore(format, static_cast<std::size_t>(user.data() - format.data())),
                          "user"sv);
}

// The arguments printf's `format` takes: bit i of the result is set when
// argument i fills a conversion that follows a secret name's '=' or ':',
// quoted or not (API_KEY=%s, "password": "%s", token = '%s', SQL's SET
// PASSWORD FOR u = '%s'), or a secret name, SQL's IDENTIFIED BY or Db2's
// USER u USING and blanks (requirepass %s, PASSWORD '%s'), or an XML
// element named by a secret name (<password>%s), bit 31 for any from the
// 32nd on; *count is how many arguments one pass of the format takes (a '*'
// width one more). %% takes none.
std::uint32_t SecretConversions(std::string_view format, unsigned* count) {
  std::uint32_t secret = 0;
  *count = 0;
  std::size_t previous_end = 0;  // the previous conversion's
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') continue;
    if (i + 1 < format.size() && format[i + 1] == '%') {
      ++i;
      continue;
    }
    unsigned stars = 0;
    const std::size_t end = ConversionEnd(format, i, &stars);
    if (end == std::string_view::npos) continue;
    *count += stars;
    // Back from the '%' over quotes, escapes and blanks, to '=' or ':'.
    const auto skip_back = [format](std::size_t at) {
      while (at > 0 && (format[at - 1] == '"' || format[at - 1] == '\'' || format[at - 1] == '\\' ||
                        format[at - 1] == ' '))
        --at;
      return at;
    };
    std::size_t j = skip_back(i);
    if (j > 1 && j == i && format[j - 1] == '>') {
      // An XML element's text: <password>%s</password>.
      std::size_t name_begin = j - 1;
      while (name_begin > previous_end &&
             (IsNameChar(format[name_begin - 1]) || format[name_begin - 1] == ':'))
        --name_begin;
      if (name_begin > 0 && format[name_begin - 1] == '<' && name_begin < j - 1 &&
          IsSecretName(std::string_view(format.data() + name_begin, j - 1 - name_begin), true))
        secret |= 1u << (*count < 31 ? *count : 31);
    } else if (j > 0 && (format[j - 1] == '=' || format[j - 1] == ':')) {
      const std::size_t name_end = skip_back(j - 1);
      std::size_t name_begin = name_end;
      while (name_begin > 0 && IsNameChar(format[name_begin - 1])) --name_begin;
      // Not an escape's letter: \nkey=%s names key.
      if (name_begin > 0 && format[name_begin - 1] == '\\') ++name_begin;
      const std::string_view name(format.data() + name_begin, name_end - name_begin);
      if ((!name.empty() && IsSecretName(name, true)) ||
          (format[j - 1] == '=' && SqlPasswordForBefore(format, previous_end, j - 1)))
        secret |= 1u << (*count < 31 ? *count : 31);
    } else if (j < i && (ProtocolPasswordBefore(format, j) ||  // 'AUTH %s\r\n'
                         ImapLoginPasswordBefore(format, j))) {
      secret |= 1u << (*count < 31 ? *count : 31);
    } else if (j < i) {
      const std::string_view word = WordBefore(format, j);
      const std::size_t word_begin = j - word.size();
      if ((!word.empty() && IsSecretName(word, true)) ||
          (EqualsIgnoreCase(word, "by"sv) &&
           EqualsIgnoreCase(WordBefore(format, word_begin), "identified"sv)) ||
          (EqualsIgnoreCase(word, "using"sv) && Db2UserBefore(format, word_begin)))
        secret |= 1u << (*count < 31 ? *count : 31);
    }
    ++*count;
    i = end - 1;
    previous_end = end;
  }
  return secret;
}
}  // namespace

// Rule 11's printf: an argument filling a conversion that follows a
// secret name in the format is secret (printf 'API_KEY=%s\n' X >> .env); the
// format is reused while arguments remain, as printf does.
void Redactor::PrintfOperand(std::string_view arg, Collector* spans) {
  if (!printf_) return;
  if (printf_target_next_) {
    printf_target_next_ = false;
    return;
  }
  // A redirection, but not a tag's '<' (printf '<password>%s</password>').
  if (const Redirection redirection = ParseRedirection(arg);
      redirection.found && !(arg[0] == '<' && arg.find('>') != std::string_view::npos)) {
    printf_target_next_ = redirection.target.empty();
    return;
  }
  if (!format_seen_) {
    if (printf_variable_next_) {
      printf_variable_next_ = false;
      printf_secret_variable_ = IsSecretName(arg, true);
    } else if (arg == "-v"sv) {
      printf_variable_next_ = true;
    } else if (arg != "--"sv) {
      format_seen_ = true;
      secret_conversions_ = SecretConversions(arg, &conversions_);
      // printf -v TOKEN '%s' V: the format and every conversion fill the
      // secret's variable (a format of conversions alone holds none).
      if (printf_secret_variable_) {
        secret_conversions_ = ~std::uint32_t{0};
        if (!IsConversionOnly(arg)) spans->Add(0, arg.size());
      }
    }
    return;
  }
  if (conversions_ == 0) return;
  const unsigned conversion = printf_arguments_++ % conversions_;
  if ((secret_conversions_ >> (conversion < 31 ? conversion : 31) & 1) != 0)
    spans->Add(0, arg.size());
}

// The shell's for NAME in WORDS (and select's): each word is secret when
// NAME is a secret's (for token in X Y; do ...), but a variable's or a
// substitution's, whose value is not written here.
void Redactor::LoopWord(std::string_view arg, Collector* spans) {
  switch (loop_) {
    case Loop::kNone: return;
    case Loop::kName: loop_ = IsSecretName(arg, true) ? Loop::kIn : Loop::kNone; return;
    case Loop::kIn: loop_ = arg == "in"sv ? Loop::kSecretWords : Loop::kNone; return;
    case Loop::kSecretWords:  // not a reference or a substitution's ($TOKENS, $(cat f))
      if (!StartsWith(arg, "$"sv) && !StartsWith(arg, "\"$"sv)) spans->Add(0, arg.size());
      return;
  }
}

namespace {
// A lower-case letter followed by an upper-case one (secretKey).
bool HasCamelHump(std::string_view word) {
  for (std::size_t i = 1; i < word.size(); ++i) {
    if (CamelHumpAt(word, i)) return true;
  }
  return false;
}
}  // namespace

// Rule 9: the first non-option argument after "set" (kSettingNames) is a
// setting's name; where every one may be, so is each one with '.' or '_'
// or a camel hump, or that is a secret word (wifi-sec.psk,
// secret_access_key, secretKey, pass: not a value such as wpa-psk).
void Redactor::SettingName(std::string_view arg, bool is_option) {
  if (free_text_ || is_option) return;
  if (after_set_ && operands_before_name_ > 0) {
    --operands_before_name_;
    return;
  }
  const bool name = after_set_ || (every_name_ &&
                                   (arg.find_first_of("._"sv) != std::string_view::npos ||
                                    HasCamelHump(arg) || InWords<redact_rules::kSecretWords>(arg)));
  after_set_ = false;
  if (name && arg.find('=') == std::string_view::npos && IsSecretName(arg, true))
    pending_ = Pending{true, Value::kWhole, true};
}

// Rule 9: the rows of kSettingNames that `arg` (or, from the constructor,
// the start) turns on.
void Redactor::SettingsAfter(std::string_view arg) {
  for (RowSet rows = setting_rows_; rows != 0; rows &= rows - 1) {
    const redact_rules::SettingNames& row = redact_rules::kSettingNames[Lowest(rows)];
    if (!EqualsIgnoreCase(arg, row.after)) continue;  // redis-cli CONFIG SET
    if (row.every) {
      every_name_ = true;
    } else {
      after_set_ = true;
      operands_before_name_ = row.operands_before;
    }
  }
}

namespace {

// What one command, or a group of them, prints: an echo's arguments, a <<<
// word; a group's, up to four (those of a longer group merge into the
// fourth, the text between them hidden too, never shown).
struct Printed {
  static constexpr std::size_t kMaxTexts = 4;
  Span texts[kMaxTexts];
  std::size_t count;
  void Add(Span text) {
    if (text.end <= text.begin) return;
    if (count == kMaxTexts) {
      texts[kMaxTexts - 1].end = text.end;
      return;
    }
    texts[count++] = text;
  }
};

// Rule 11's state, in static storage like the spans: a command line nested
// in quotes is followed without recursion, so a denial's stack stays as
// small as before. Level 0 is the argument; level N + 1 the inside of a
// quoted word of level N. Each level has one command at a time.
struct Level {
  std::string_view text;
  std::size_t base;  // where `text` starts in the argument
  std::size_t pos;
  shell_words::Inside inside;  // the quotes the text was inside
  bool command_string;         // the text followed -c: rules 8 and 9 hold for any command
  Redactor* command;           // the current simple command's, or none before its name
  bool prefix;                 // that command is a prefix (sudo, env, if, ...)
  // Pipelines into a command that reads a secret on its standard input
  // (kStdinSecretOptions, kStdinSecretCommands): the text that feeds it, as
  // [begin, end) in the argument (end 0: none).
  bool echo;       // the current command is echo or printf
  Span echo_args;  // its arguments so far
  Printed piped;   // what the command or group before a '|' printed into the current one
  // A group, ( ... ) or { ...; }: what its commands printed so far, and
  // whether it closed just before (its ')' or '}'), for a '|' after it
  // ((echo X; echo X) | smbpasswd -s, { echo u; echo X; } | ftp -n h).
  Printed group_output;
  bool group_closed;
  Span here_string;                 // the current command's <<< word
  bool after_here_string_operator;  // the last word was <<<
  // A here-document (<<EOF, <<-'EOF'): its delimiter, until the line after
  // the command line's end, where its body starts (empty: none).
  std::string_view heredoc_delimiter;
  bool heredoc_tabs;               // <<-: the body's lines lose leading tabs
  bool after_heredoc_operator;     // the last word was << or <<-
  bool echo_redirected;            // the echo's output went to a file: no more arguments
  bool after_redirect_operator;    // the last word was > or >>
  bool tee;                        // the current command is tee
  bool copies;                     // ... is install, cp or dd (kCopyCommands)
  bool read;                       // ... is read, mapfile or readarray (kReadCommands)
  bool reads_secret;               // the current command reads a secret on its input
  RowSet stdin_rows;               // the kToolStdinSecretOptions rows of the current command
  bool last_was_pipe;              // the last token was '|' ('||' is no pipe)
  std::string_view last_argument;  // the current command's, for StdinForSecret
  bool prints_secret;  // the text is a command that prints a secret (kSecretCommandNames)
  // A process substitution read as a secret's file (--password-file
  // <(echo X)): the '(' after the '<' is next, then how deep inside it the
  // commands are (0: outside).
  bool secret_substitution_next;
  unsigned secret_substitution_depth;
  // The current command named a secret (docker secret create, gcloud
  // secrets versions add): a process substitution after it is the secret.
  bool after_secret_word;
  // curl's config (curl -K <(echo 'user = u:X') h, echo ... | curl -K - h,
  // cat > ~/.curlrc <<EOF): the '(' of a process substitution after -K is
  // next, then how deep inside it the commands are; or the current command
  // reads one on its input.
  bool curl;  // the current command is curl
  bool curl_config_next;
  unsigned curl_config_depth;
  bool reads_curl_config;
  // The last word assigned an array (args=(, declare -a A+=(): the '('
  // next opens its elements, read as one nameless command's arguments
  // (args=(--password X); mysql "${args[@]}"), or a named one's after a
  // tool's name, as after a prefix (CMD=(curl -u u:X h)).
  bool array_next;
};
Level g_levels[kMaxCommandDepth];
alignas(Redactor) AGT_LATE_BSS unsigned char g_commands[kMaxCommandDepth][sizeof(Redactor)];

// A new level's state: nothing seen yet. Set in place: a Level on the stack
// would sit under every rule the level's commands run.
void StartLevel(Level* level, std::string_view text, std::size_t base, bool command_string,
                bool prints_secret) {
  *level = Level{};
  level->text = text;
  level->base = base;
  level->command_string = command_string;
  level->prints_secret = prints_secret;
}

// A text fed to a command that is an answer to a question, not a secret
// (echo yes | keytool -importcert ...).
bool IsConfirmation(const Level& level, Span text) {
  const std::string_view word = Unquoted(
      std::string_view(level.text.data() + (text.begin - level.base), text.end - text.begin));
  return InWords<redact_rules::kConfirmations>(word);
}

// The text fed to the current command on its standard input is secret once
// it is known to read one.
void FeedSecret(const Level& level, Collector* spans) {
  // What an echo prints where the output is a secret.
  if (level.prints_secret || level.secret_substitution_depth > 0)
    spans->Add(level.echo_args.begin, level.echo_args.end);
  if (!level.reads_secret) return;
  for (std::size_t i = 0; i < level.piped.count; ++i) {
    if (!IsConfirmation(level, level.piped.texts[i]))
      spans->Add(level.piped.texts[i].begin, level.piped.texts[i].end);
  }
  if (level.here_string.end > level.here_string.begin && !IsConfirmation(level, level.here_string))
    spans->Add(level.here_string.begin, level.here_string.end);
}

// NAME= or NAME+= before an array's '(' (args=(...), args+=(...)).
bool AssignsArray(std::string_view word) {
  if (word.empty() || word.back() != '=') return false;
  word.remove_suffix(1);
  if (!word.empty() && word.back() == '+') word.remove_suffix(1);
  std::size_t name_end = 0;
  return !word.empty() && !AssignmentAt(word, 0, &name_end) && name_end == word.size();
}

// A separator ends the current command; a single '|' pipes what it, or
// the group that closed before it, printed into the next.
void EndCommand(Level* level, char separator) {
  const bool pipe = separator == '|' && !level->last_was_pipe;
  // An echo's arguments, or a command's <<< word (cat <<< X | vault login -).
  const Span own = level->echo ? level->echo_args : level->here_string;
  if (pipe && level->group_closed) {
    level->piped = level->group_output;
  } else {
    level->piped.count = 0;
    if (pipe) level->piped.Add(own);
  }
  if (separator == '(' || pipe || level->group_closed) {
    level->group_output = Printed{};  // a group opens, or its output went to a command
  } else {
    level->group_output.Add(own);
  }
  level->group_closed = separator == ')';
  level->last_was_pipe = separator == '|';
  level->echo = false;
  level->echo_args = Span{0, 0};
  level->here_string = Span{0, 0};
  level->after_here_string_operator = false;
  level->after_heredoc_operator = false;
  level->echo_redirected = false;
  level->after_redirect_operator = false;
  level->tee = false;
  level->copies = false;
  level->read = false;
  level->reads_secret = false;
  level->curl = false;
  level->reads_curl_config = false;
  level->stdin_rows = 0;
  level->last_argument = std::string_view();
  level->after_secret_word = false;
  level->command = nullptr;
}

// `item` is one of `list`'s comma-separated parts.
bool InCommaList(std::string_view list, std::string_view item) {
  for (std::size_t start = 0; start <= list.size();) {
    std::size_t end = list.find(',', start);
    if (end == std::string_view::npos) end = list.size();
    if (std::string_view(list.data() + start, end - start) == item) return true;
    start = end + 1;
  }
  return false;
}

// kToolStdinSecretOptions: `word` is one of the options (`rows`, of the
// current command) that make it read a secret on its standard input.
bool ToolReadsSecret(RowSet rows, std::string_view word) {
  for (; rows != 0; rows &= rows - 1) {
    const redact_rules::ToolWord& row = redact_rules::kToolStdinSecretOptions[Lowest(rows)];
    if (word == row.option) return true;
    // sshfs -o allow_other,password_stdin: one of a list of mount options.
    if (!StartsWith(row.option, "-"sv) && InCommaList(word, row.option)) return true;
    // -S among other one-letter flags: -kS, -Sk (not -S=x, not --stdin's).
    const std::string_view flags = BundledFlags(word);
    if (IsOneLetterOption(row.option) && flags.size() > 1 && flags.size() + 1 == word.size() &&
        flags.find(row.option[1]) != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

// A config file of "NAME VALUE" lines by its name (kConfigFileSuffixes).
bool IsConfigFile(std::string_view path) {
  const std::string_view name = Basename(path);
  for (const std::string_view suffix : redact_rules::kConfigFileSuffixes) {
    if (name.size() > suffix.size() && EndsWithIgnoreCase(name, suffix)) return true;
  }
  return name.size() > 3 && name[0] == '.' && EndsWithIgnoreCase(name, "rc"sv);
}

// The level's text to the end of `written` (an echo's arguments, a piped or
// here-string's text), where its lines are read from *start (empty: none).
std::string_view WrittenLines(const Level& level, Span written, std::size_t* start) {
  if (written.end <= written.begin) return std::string_view();
  *start = written.begin - level.base;
  return std::string_view(level.text.data(), std::min(written.end - level.base, level.text.size()));
}

// Past a line's opening blanks and quotes (echo 'NAME VALUE', "...\n NAME V").
std::size_t PastLineOpening(std::string_view lines, std::size_t at) {
  while (at < lines.size() && (IsSpace(lines[at]) || lines[at] == '\'' || lines[at] == '"')) ++at;
  return at;
}

// Where the line after the one at `at` starts: past its newline, real or
// written out (\n).
std::size_t NextLine(std::string_view lines, std::size_t at) {
  while (at < lines.size() && lines[at] != '\n' && !WrittenNewlineAt(lines, at)) ++at;
  return at + (at < lines.size() && lines[at] == '\\' ? 2 : 1);
}

// The lines an echo writes to a config file, `written` (an echo's arguments,
// in the level's text): after a secret name and blanks at a line's start
// (its quote passed over), the rest of the line, to a newline (real or
// written out) or a quote.
void ConfigWordLines(const Level& level, Span written, Collector* spans) {
  const std::size_t base = level.base;
  std::size_t i = 0;
  const std::string_view lines = WrittenLines(level, written, &i);
  while (i < lines.size()) {
    i = PastLineOpening(lines, i);
    std::size_t name_begin = i;
    while (i < lines.size() && IsNameChar(lines[i])) ++i;
    std::string_view name(lines.data() + name_begin, i - name_begin);
    // A shell's own (config.fish's set -gx NAME V, .cshrc's setenv NAME V):
    // the name after the command and its options.
    if (name == "set"sv || name == "setenv"sv) {
      while (i < lines.size() &&
             (lines[i] == ' ' || lines[i] == '\t' ||
              (lines[i] == '-' && (lines[i - 1] == ' ' || lines[i - 1] == '\t')))) {
        if (lines[i] != '-') {
          ++i;
          continue;
        }
        while (i < lines.size() && !IsSpace(lines[i])) ++i;  // an option: -gx, -Ux
      }
      name_begin = i;
      while (i < lines.size() && IsNameChar(lines[i])) ++i;
      name = std::string_view(lines.data() + name_begin, i - name_begin);
    }
    const std::size_t blanks = i;
    while (i < lines.size() && (lines[i] == ' ' || lines[i] == '\t')) ++i;
    // NAME = V, NAME: V are rules 1's and 5's.
    const bool word_value = i < lines.size() && lines[i] != '=' && lines[i] != ':';
    std::size_t value_end = i;
    while (value_end < lines.size() && lines[value_end] != '\n' && lines[value_end] != '\'' &&
           lines[value_end] != '"' && !WrittenNewlineAt(lines, value_end))
      ++value_end;
    // A quote escaped in a double-quoted word (credentials \"h\" { ... }).
    if (value_end > i && value_end < lines.size() && lines[value_end - 1] == '\\') --value_end;
    // printf 'requirepass %s\n' X >> redis.conf: the argument is (rule 11).
    const std::string_view value(lines.data() + i, value_end - i);
    if (word_value && i > blanks && value_end > i && !name.empty() && IsSecretName(name, true) &&
        !IsConversionOnly(value))
      spans->Add(base + i, base + value_end);
    i = NextLine(lines, value_end);  // each byte is read once
  }
}

// The value of a curl config line's option, `value` at `at` in the
// argument, read as curl reads its option's (user = u:X, header =
// "Authorization: Bearer X"): by curl's rows, and "*" rows, for --NAME (or
// -N, `dashes` 1); else whole where the name is secret (oauth2-bearer X).
void CurlConfigOption(std::string_view name, std::size_t dashes, std::string_view value,
                      std::size_t at, Collector* spans) {
  const ToolName curl("curl"sv);
  Value read = IsSecretName(name, false) ? Value::kWhole : Value::kReference;
  for (std::size_t i = 0; i < std::size(redact_rules::kToolOptions); ++i) {
    const redact_rules::ToolOption& row = redact_rules::kToolOptions[i];
    const std::size_t row_dashes = StartsWith(row.option, "--"sv) ? 2 : 1;
    if ((dashes == 1) == (row_dashes == 1) && Tail(row.option, row_dashes) == name &&
        row.after.empty() && RowNames<redact_rules::kToolOptions>(i, curl, true)) {
      read = row.value;
      break;
    }
  }
  const std::size_t saved = spans->base();
  spans->set_base(saved + at);
  ToolValue(read, value, 0, spans);  // kReference: nothing
  spans->set_base(saved);
}

// The lines of a curl config written to it, `written` (in the level's text):
// an option's long name, with its dashes or none (or a one-letter one with
// its dash), then blanks, '=' or ':', and its value, in double quotes
// (written \" inside a double-quoted word) or to a blank.
void CurlConfigLines(const Level& level, Span written, Collector* spans) {
  const std::size_t base = level.base;
  std::size_t i = 0;
  const std::string_view lines = WrittenLines(level, written, &i);
  while (i < lines.size()) {
    i = PastLineOpening(lines, i);
    std::size_t dashes = 0;
    while (i < lines.size() && lines[i] == '-') ++i, ++dashes;
    const std::size_t name_begin = i;
    while (i < lines.size() && (IsAlnum(lines[i]) || lines[i] == '-')) ++i;
    const std::string_view name(lines.data() + name_begin, i - name_begin);
    while (i < lines.size() && (lines[i] == ' ' || lines[i] == '\t')) ++i;
    if (i < lines.size() && (lines[i] == '=' || lines[i] == ':')) ++i;
    while (i < lines.size() && (lines[i] == ' ' || lines[i] == '\t')) ++i;
    const bool escaped_quote = EscapedQuoteAt(lines, i);
    const bool quoted = escaped_quote || (i < lines.size() && lines[i] == '"');
    i += escaped_quote ? 2 : quoted ? 1 : 0;
    std::size_t value_end = i;
    while (value_end < lines.size() && lines[value_end] != '\n' && lines[value_end] != '"' &&
           lines[value_end] != '\'' && !WrittenNewlineAt(lines, value_end) &&
           !(escaped_quote && EscapedQuoteAt(lines, value_end)) &&
           !(!quoted && IsSpace(lines[value_end])))
      ++value_end;
    if (!name.empty() && value_end > i)
      CurlConfigOption(name, dashes == 1 && name.size() == 1 ? 1 : 2,
                       std::string_view(lines.data() + i, value_end - i), base + i, spans);
    i = NextLine(lines, value_end);  // each byte is read once
  }
}

// curl's option that names its config file, -K or --config.
bool IsCurlConfigOption(std::string_view word) { return word == "-K"sv || word == "--config"sv; }

// What a command that reads curl's config was fed: its lines.
void CurlConfigInput(const Level& level, Collector* spans) {
  if (!level.reads_curl_config) return;
  for (std::size_t i = 0; i < level.piped.count; ++i)
    CurlConfigLines(level, level.piped.texts[i], spans);
  CurlConfigLines(level, level.here_string, spans);
}

// curl's config file by its name: ~/.curlrc, Windows' _curlrc,
// $XDG_CONFIG_HOME/curlrc.
bool IsCurlConfigFile(std::string_view path) {
  std::string_view name = Basename(path);
  if (!name.empty() && (name[0] == '.' || name[0] == '_')) name.remove_prefix(1);
  return name == "curlrc"sv;
}

// echo's -n, -e, -E (printf's format may hold the secret: it stays in).
bool IsEchoFlag(std::string_view word) {
  if (word.size() < 2 || word[0] != '-') return false;
  for (std::size_t i = 1; i < word.size(); ++i) {
    if (word[i] != 'n' && word[i] != 'e' && word[i] != 'E') return false;
  }
  return true;
}

// An option whose name is secret, its value in the next word: --password-file
// counts too, for its value names where the secret is read from.
bool IsSecretOptionName(std::string_view word) {
  if (word.size() < 2 || word[0] != '-' || word.find('=') != std::string_view::npos) return false;
  std::size_t dashes = 0;
  while (dashes < word.size() && word[dashes] == '-') ++dashes;
  return dashes < word.size() && IsSecretName(Tail(word, dashes), false);
}

// kStdinPaths as a secret's value: NAME=- or --name=/dev/stdin with a secret
// name (the last one before '=': --from-file=password=/dev/stdin), or the
// word after a secret option (`previous`). Names are looked up only after a
// path is found: most words are none.
constexpr std::size_t MakeLongestStdinPath() {
  std::size_t longest = 0;
  for (std::string_view path : redact_rules::kStdinPaths) longest = std::max(longest, path.size());
  return longest;
}
constexpr std::size_t kLongestStdinPath = MakeLongestStdinPath();

bool StdinForSecret(std::string_view word, std::string_view previous) {
  // The last '=' within a path's length of the end: none further back can
  // start one.
  std::size_t eq = std::string_view::npos;
  for (std::size_t i = word.size(); i > 0 && word.size() - i <= kLongestStdinPath; --i) {
    if (word[i - 1] == '=') {
      eq = i - 1;
      break;
    }
  }
  if (eq == std::string_view::npos)
    return InWords<redact_rules::kStdinPaths>(word) && IsSecretOptionName(previous);
  if (!InWords<redact_rules::kStdinPaths>(Tail(word, eq + 1))) return false;
  const std::size_t before = eq == 0 ? std::string_view::npos : word.rfind('=', eq - 1);
  std::size_t begin = before == std::string_view::npos ? 0 : before + 1;
  while (begin < eq && word[begin] == '-') ++begin;
  return begin < eq && IsSecretName(std::string_view(word.data() + begin, eq - begin), false);
}

// A here-document's body in `text`: from `begin` (a line's start) to the
// end of the line before the one that is `delimiter` (after leading tabs
// for <<-), or to the end when none is. *resume: past the delimiter's line.
Span HeredocBody(std::string_view text, std::size_t begin, std::string_view delimiter, bool tabs,
                 std::size_t* resume) {
  std::size_t line = begin;
  while (line < text.size()) {
    std::size_t end = text.find('\n', line);
    if (end == std::string_view::npos) end = text.size();
    std::size_t start = line;
    while (tabs && start < end && text[start] == '\t') ++start;
    if (std::string_view(text.data() + start, end - start) == delimiter) {
      *resume = end;
      return Span{begin, line > begin ? line - 1 : begin};
    }
    line = end + 1;
  }
  *resume = text.size();
  return Span{begin, text.size()};
}

// One word of the current command (its name or an argument), at [begin,
// end) in the argument: what rule 11's pipelines learn from it.
void PipelineWord(Level* level, std::string_view word, std::size_t begin, std::size_t end,
                  bool is_name, Collector* spans) {
  if (level->after_here_string_operator) {
    level->after_here_string_operator = false;
    level->here_string = Span{begin, end};
  } else if (level->after_heredoc_operator) {
    level->after_heredoc_operator = false;
    level->heredoc_delimiter = Unquoted(word);
  } else if (word == "<<<"sv) {
    level->after_here_string_operator = true;
  } else if (StartsWith(word, "<<<"sv)) {
    level->here_string = Span{begin + 3, end};  // <<<word
  } else if (StartsWith(word, "<<"sv)) {
    // <<EOF, <<-EOF, << EOF: a here-document, its body after the line.
    std::size_t at = 2;
    level->heredoc_tabs = at < word.size() && word[at] == '-';
    if (level->heredoc_tabs) ++at;
    if (at == word.size()) {
      level->after_heredoc_operator = true;
    } else {
      level->heredoc_delimiter = Unquoted(Tail(word, at));
    }
  }
  if (is_name) {
    const std::string_view name = Basename(word);
    if (name == "{"sv) level->group_output = Printed{};
    level->group_closed = name == "}"sv;
    level->echo = InWords<redact_rules::kEchoCommands>(name);
    level->tee = InWords<redact_rules::kTeeCommands>(name);
    level->copies = InWords<redact_rules::kCopyCommands>(name);
    level->read = InWords<redact_rules::kReadCommands>(name);
    level->curl = name == "curl"sv;
    level->reads_secret = level->reads_secret || InWords<redact_rules::kStdinSecretCommands>(name);
    level->stdin_rows = RowsFor<redact_rules::kToolStdinSecretOptions>(name);
  } else {
    const Redirection parsed = ParseRedirection(word);
    const bool redirection = parsed.writes_output;
    const std::string_view target =
        level->after_redirect_operator ? word : (redirection ? parsed.target : ""sv);
    const bool to_file = redirection || level->after_redirect_operator;
    level->after_redirect_operator = redirection && target.empty();
    if (level->echo && to_file) {
      level->echo_redirected = true;
      if (!target.empty() && IsCredentialFile(target)) {
        spans->Add(level->echo_args.begin, level->echo_args.end);
      } else if (!target.empty() && IsCurlConfigFile(target)) {
        CurlConfigLines(*level, level->echo_args, spans);
      } else if (!target.empty() && IsConfigFile(target)) {
        ConfigWordLines(*level, level->echo_args, spans);
      }
    } else if (level->echo && !level->echo_redirected &&
               !(level->echo_args.end == 0 && (IsEchoFlag(word) || IsConversionOnly(word)))) {
      // printf %s X > token: the format alone holds no secret.
      if (level->echo_args.end == 0) level->echo_args.begin = begin;
      level->echo_args.end = end;
    }
    if (ToolReadsSecret(level->stdin_rows, word)) level->reads_secret = true;
    // tee FILE: what is piped in is written there, a secret whole or a
    // config file's lines (echo "masterauth X" | tee -a redis.conf).
    if (level->tee && !to_file && !word.empty() && word[0] != '-') {
      if (IsCredentialFile(word)) {
        level->reads_secret = true;
      } else if (IsCurlConfigFile(word)) {
        level->reads_curl_config = true;
      } else if (IsConfigFile(word)) {
        for (std::size_t i = 0; i < level->piped.count; ++i)
          ConfigWordLines(*level, level->piped.texts[i], spans);
      }
    }
    // A command writing to a credential file: what it reads is written
    // there (cat >> ~/.pgpass <<< X, echo X | base64 -d > ~/.kube/token).
    if (to_file && !target.empty() && IsCredentialFile(target)) level->reads_secret = true;
    // install -m 600 /dev/stdin ~/.pgpass <<< X, dd of=token <<< X: copied there.
    if (level->copies && !word.empty() && word[0] != '-' &&
        IsCredentialFile(StartsWith(word, "of="sv) ? Tail(word, 3) : word))
      level->reads_secret = true;
    // cat > ~/.curlrc <<EOF, curl -K - <<< 'user = u:X': curl's config.
    if (to_file && !target.empty() && IsCurlConfigFile(target)) level->reads_curl_config = true;
    if (level->curl && ((word == "-"sv && IsCurlConfigOption(level->last_argument)) ||
                        word == "-K-"sv || word == "--config=-"sv))
      level->reads_curl_config = true;
    if (StdinForSecret(word, level->last_argument)) level->reads_secret = true;
    // read -r TOKEN <<< X, mapfile -t TOKENS <<< X: what is read into a
    // secret name.
    if (level->read && !word.empty() && word[0] != '-' && IsSecretName(word, true))
      level->reads_secret = true;
    level->last_argument = word;
  }
  if (InWords<redact_rules::kStdinSecretOptions>(word)) level->reads_secret = true;
  FeedSecret(*level, spans);
}

// A crontab line's schedule word, before its command.
bool IsCronSchedule(std::string_view word) {
  if (InWords<redact_rules::kCronSchedules>(word)) return true;
  for (char c : word) {
    if (!IsDigit(c) && c != '*' && c != ',' && c != '-' && c != '/') return false;
  }
  return !word.empty();
}

// A word that is "secret" or "secrets", or has one as a ':'-separated part
// (firebase functions:secrets:set NAME): what it is given is a secret.
bool NamesSecretStore(std::string_view word) {
  std::size_t start = 0;
  for (std::size_t i = 0; i <= word.size(); ++i) {
    if (i < word.size() && word[i] != ':') continue;
    const std::string_view part(word.data() + start, i - start);
    if (EqualsIgnoreCase(part, "secret"sv) || EqualsIgnoreCase(part, "secrets"sv)) return true;
    start = i + 1;
  }
  return false;
}

// A process substitution's '<' or a command substitution's '$' (`word`
// ends in it, the '(' next) where a secret's file or value is named: after
// a secret option (--vault-password-file <, `previous`), attached to one
// (--password-file=<, TOKEN=$, vault's password=@<, the AWS CLI's
// --secret-string file://<), or after a secret name (wg's private-key <):
// what the commands inside print is the secret.
bool FeedsSecretFile(std::string_view word, std::string_view previous) {
  if (word.empty() || (word.back() != '<' && word.back() != '$')) return false;
  word.remove_suffix(1);
  // A file's prefix: vault's @FILE, the AWS CLI's file://, OpenSSL's file:.
  if (!word.empty() && word.back() == '@') word.remove_suffix(1);
  constexpr std::string_view kFilePrefixes[] = {"file://"sv, "fileb://"sv, "file:"sv};
  for (std::string_view prefix : kFilePrefixes) {
    if (EndsWithIgnoreCase(word, prefix) &&
        (word.size() == prefix.size() || word[word.size() - prefix.size() - 1] == '=')) {
      word.remove_suffix(prefix.size());
      break;
    }
  }
  std::string_view name = SubstitutionOwner(word, previous);
  while (!name.empty() && name[0] == '-') name.remove_prefix(1);
  if (name.empty() || IsSecretName(name, false)) return !name.empty();
  for (std::string_view file : redact_rules::kSecretFileOptionEnds) {
    if (NameEndsIn(name, file)) return true;
  }
  return false;
}

// Counts the parentheses of a process substitution, from its '(' (*next
// says one opens there) to the ')' that closes it.
void CountSubstitution(char separator, bool* next, unsigned* depth) {
  if (separator == '(' && *next) {
    *depth = 1;
  } else if (separator == '(' && *depth > 0) {
    ++*depth;
  } else if (separator == ')' && *depth > 0) {
    --*depth;
  }
  *next = false;
}

// Those that feed a secret's file, and those that are curl's config (curl
// -K <(echo 'user = u:X')).
void SecretSubstitution(Level* level, char separator) {
  CountSubstitution(separator, &level->secret_substitution_next, &level->secret_substitution_depth);
  CountSubstitution(separator, &level->curl_config_next, &level->curl_config_depth);
}

// The value of NAME=VALUE, or of an option's --name=VALUE: what follows '='
// (empty when `word` is neither); of a pair given as an option's value,
// the pair's (gcloud --metadata=startup-script=curl ...).
std::string_view AssignedValue(std::string_view word) {
  std::size_t at = 0;
  while (at < word.size() && word[at] == '-') ++at;
  std::size_t name_end = 0;
  if (!AssignmentAt(word, at, &name_end)) return std::string_view();
  const std::string_view value = Tail(word, name_end + 1);
  return at > 0 && AssignmentAt(value, 0, &name_end) ? Tail(value, name_end + 1) : value;
}

// A value that is one quoted string, with white space inside, to the word's
// end (GIT_SSH_COMMAND="sshpass -p X ssh", ProxyCommand='...'): its inside,
// a command line a shell will run. False for anything else.
bool QuotedCommandValue(std::string_view value, std::string_view* inside) {
  if (value.size() < 2 || (value[0] != '"' && value[0] != '\'')) return false;
  if (shell_words::QuotedEnd(value, 0, false) != value.size() || value.back() != value[0])
    return false;
  *inside = std::string_view(value.data() + 1, value.size() - 2);
  return HasSpace(*inside);
}

}  // namespace

// Rule 11: each simple command of a command line, from its name.
void Redactor::CommandLines(std::string_view arg, bool command_string, bool prints_secret,
                            Collector* spans) {
  // An argv list's element is read at its place in the argument.
  const std::size_t outer_base = spans->base();
  struct Reading {  // g_in_command_lines, until this returns
    bool outer = g_in_command_lines;
    Reading() { g_in_command_lines = true; }
    ~Reading() { g_in_command_lines = outer; }
  } reading;
  int top = 0;
  StartLevel(&g_levels[0], arg, 0, command_string, prints_secret);
  while (top >= 0) {
    Level& level = g_levels[top];
    shell_words::Token token;
    if (!shell_words::Next(level.text, &level.pos, &token, level.inside)) {
      CurlConfigInput(level, spans);
      --top;
      continue;
    }
    if (token.separator) {
      const char separator = level.text[token.begin];
      // The line ends: a here-document's body follows, to its delimiter's
      // line. Fed to a command that reads a secret, it is secret whole and
      // not read as commands (cat <<EOF | docker login --password-stdin).
      // Only then is the body looked for: it is skipped, so each byte is
      // scanned once.
      if (separator == '\n' && !level.heredoc_delimiter.empty() &&
          (level.reads_secret || level.reads_curl_config)) {
        std::size_t resume = 0;
        const Span body = HeredocBody(level.text, level.pos, level.heredoc_delimiter,
                                      level.heredoc_tabs, &resume);
        if (level.reads_secret) {
          spans->Add(level.base + body.begin, level.base + body.end);
        } else {  // cat > ~/.curlrc <<EOF: its lines
          CurlConfigLines(level, Span{level.base + body.begin, level.base + body.end}, spans);
        }
        level.pos = resume;
      }
      // An echo in a substitution read as curl's config; a command's input
      // that is one.
      if (level.curl_config_depth > 0)
        CurlConfigLines(level, level.echo ? level.echo_args : level.here_string, spans);
      CurlConfigInput(level, spans);
      if (separator == '\n') level.heredoc_delimiter = std::string_view();
      SecretSubstitution(&level, separator);
      EndCommand(&level, separator);
      if (separator == '(' && level.array_next && Charge()) {
        level.command = new (g_commands[top]) Redactor(""sv);
        level.command->free_text_ = !level.command_string;  // as for a command no row names
        level.prefix = true;  // a command's words: CMD=(curl -u u:X h)
      }
      level.array_next = false;
      continue;
    }
    level.last_was_pipe = false;
    const std::string_view previous = level.last_argument;
    const std::string_view word = Inner(level.text, token);
    // A '(' right after the word: a substitution's ($(, <() or an array's.
    const bool opens_paren = token.end < level.text.size() && level.text[token.end] == '(';
    level.array_next = opens_paren && AssignsArray(word);
    const std::size_t at = level.base + token.inner_begin;
    std::size_t name_end = 0;
    const bool quoted_command_line = IsQuotedCommandLine(token, word);
    // What is split in turn after this word: the word without its quotes,
    // or an assignment's quoted value (GIT_SSH_COMMAND="sshpass -p X ssh",
    // ssh's ProxyCommand="...", rsync's --rsh='...'): a command line a shell
    // runs, though not a command string (rules 8 and 9 only where rows are).
    std::string_view nested = word;
    const std::string_view value = quoted_command_line ? std::string_view() : AssignedValue(word);
    const bool nests = quoted_command_line || QuotedCommandValue(value, &nested);
    bool inner_command_string = quoted_command_line && level.command_string;
    if (level.command == nullptr || (level.prefix && StartsCommand(word))) {
      if (word.empty()) continue;
      // An unquoted value that names a command a table knows is that
      // command (ProxyCommand=sshpass -p X ssh j, one argument of ssh -o);
      // a later word may still start the one the assignment is for.
      const bool value_is_command = !nests && !value.empty() &&
                                    value.find("://"sv) == std::string_view::npos &&
                                    StartsCommand(value);
      const bool skipped =  // A=1 curl, 0 3 * * * curl
          !quoted_command_line && !value_is_command &&
          (AssignmentAt(word, 0, &name_end) || IsCronSchedule(word));
      // TOKEN=$(echo X) ./run: what the substitution prints is the value.
      level.secret_substitution_next = skipped && opens_paren && FeedsSecretFile(word, previous);
      // 0 * * * * root mysqldump -pX (an /etc/cron.d line): from a schedule
      // on, the words until a command's name (the user's) are a prefix's.
      if (skipped && !nests && level.command == nullptr && IsCronSchedule(word) && Charge()) {
        level.command = new (g_commands[top]) Redactor(""sv);
        level.command->free_text_ = !level.command_string;  // as for a command no row names
        level.prefix = true;
      }
      if (skipped && !nests) continue;
      if (!skipped && !Charge()) {
        spans->Add(level.base + token.begin, arg.size());  // past the bound: the rest, unread
        return;
      }
      if (quoted_command_line) {
        // A quoted command line where a name would be: os.system('curl ...')
        // in python -c's code. Its own commands are found inside it.
        spans->set_base(outer_base + at);
        ContextFreeRules(word, spans);
        spans->set_base(outer_base);
      } else if (!skipped) {
        const std::string_view name_word = WithoutAliasEscape(value_is_command ? value : word);
        const std::size_t name_begin = level.base + token.end - name_word.size();
        PipelineWord(&level, name_word, name_begin, level.base + token.end, true, spans);
        const std::string_view name = Basename(name_word);
        Redactor* command = new (g_commands[top]) Redactor(name);
        // Outside a command string, text with white space may be prose
        // ("rotate the password check"): a command no row names keeps its
        // words unless an option or a shape marks them, rules 8 and 9 off.
        if (!level.command_string && !command->has_own_rows_) command->free_text_ = true;
        level.command = command;
        level.prefix = value_is_command || InWords<redact_rules::kCommandPrefixes>(name);
      }
    } else {
      // One of the command's arguments; one that follows -c is a command
      // string for any command inside it.
      inner_command_string = quoted_command_line && level.command->after_command_string_option_;
      PipelineWord(&level, word, level.base + token.begin, level.base + token.end, false, spans);
      // docker login --password-stdin < <(echo X): the input redirected.
      level.secret_substitution_next =
          opens_paren &&
          (level.after_secret_word || FeedsSecretFile(word, previous) ||
           (word == "<"sv && level.reads_secret) || level.command->NamesSecretFile(word, previous));
      // curl -K <(echo 'user = u:X'), --config=<(...).
      level.curl_config_next = opens_paren && level.curl &&
                               ((word == "<"sv && IsCurlConfigOption(previous)) ||
                                word == "-K<"sv || word == "--config=<"sv);
      if (NamesSecretStore(word)) level.after_secret_word = true;
      // gh auth login --with-token < token.txt: a redirection, written
      // unquoted, is no value of the option before it; an input's is what
      // the option asks for (mytool --password <<< X).
      if (level.command->pending_.active) {
        if (const char direction = UnquotedRedirection(level.text[token.begin], word)) {
          level.command->pending_ = Pending{};
          if (direction == '<') level.command->reads_secret_on_stdin_ = true;
        }
      }
      spans->set_base(outer_base + at);
      // Code read as a command line (auth=HTTPDigestAuth(...) in python3
      // -c's): the value before '(' is a call's name, no secret; rule 14
      // reads the call's strings.
      const bool call_name = opens_paren && IsCallName(value);
      level.command->Collect(
          call_name ? std::string_view(word.data(), word.size() - value.size()) : word, spans);
      // mysql -p$(echo X), curl -u u:$(echo X): the secret a tool's row hid
      // is what the substitution prints.
      if (opens_paren && !word.empty() && word.back() == '$' && spans->HidesTo(word.size()))
        level.secret_substitution_next = true;
      spans->set_base(outer_base);
      if (level.command->reads_secret_on_stdin_ && !level.reads_secret) {
        level.reads_secret = true;
        FeedSecret(level, spans);
      }
      // docker exec db mysql -pX: past its subcommand a runner is a prefix.
      if (level.command->runs_command_) level.prefix = true;
    }
    if (!nests) continue;
    const std::size_t nested_at =
        level.base + static_cast<std::size_t>(nested.data() - level.text.data());
    // A quoted value that is an object or a list (kubectl run
    // --overrides='{"spec": ... "command": ["sh", "-c", "mysql -pX"]}'):
    // data for the code rules, no command line.
    if (!quoted_command_line && (nested[0] == '{' || nested[0] == '[')) {
      spans->set_base(outer_base + nested_at);
      ContextFreeRules(nested, spans);
      spans->set_base(outer_base);
      continue;
    }
    if (top + 1 == static_cast<int>(kMaxCommandDepth)) {
      // Quotes escaped inside quotes escaped (a fourth level of quoting in
      // one argument): hidden whole, unread. The bound sizes the static
      // levels.
      spans->Add(nested_at, nested_at + nested.size());
      continue;
    }
    ++top;
    // restic --password-command 'echo X', BORG_PASSCOMMAND="echo X".
    const bool nested_prints_secret =
        quoted_command_line ? StartsWith(previous, "-"sv) && NamesSecretCommand(previous)
                            : NamesSecretCommand(word);
    StartLevel(&g_levels[top], nested, nested_at, inner_command_string, nested_prints_secret);
    const bool double_quoted = nested.data() > level.text.data() && nested.data()[-1] == '"';
    g_levels[top].inside = quoted_command_line && token.joined
                               ? shell_words::Inside::kJoinedSingleQuotes
                           : double_quoted ? shell_words::Inside::kDoubleQuotes
                                           : shell_words::Inside::kNone;
  }
}

// After a prefix: does `word` name the command it runs? Looking a name up
// in the rows is paid from the record's bound like a command; with nothing
// left it counts as one, which CommandLines then redacts.
bool Redactor::StartsCommand(std::string_view word) {
  std::size_t name_end = 0;
  word = WithoutAliasEscape(word);
  if (word.empty() || word[0] == '-' || AssignmentAt(word, 0, &name_end)) return false;
  const std::string_view name = Basename(word);
  if (InWords<redact_rules::kCommandPrefixes>(name)) return true;
  if (!Charge()) return true;
  // And those rule 11's pipelines name (sudo echo X | ..., | sudo tee F),
  // and shells, whose command strings expand variables (sudo sh -c '...').
  // So are those whose rows are lists of names: sed's texts, a runner's
  // command lines (sudo msfconsole -x 'set PASSWORD V'), a searcher's
  // pattern (sudo grep -rn password src/).
  return HasOwnRows(name) || InWords<redact_rules::kShells>(name) ||
         InWords<redact_rules::kEchoCommands>(name) || InWords<redact_rules::kTeeCommands>(name) ||
         InWords<redact_rules::kStdinSecretCommands>(name) ||
         InWords<redact_rules::kSedCommands>(name) ||
         InWords<redact_rules::kShellCommandRunners>(name) ||
         InWords<redact_rules::kPatternSearchers>(name);
}

bool Redactor::Charge() {
  Redactor& record = g_record != nullptr ? *g_record : *this;
  if (record.commands_left_ == 0) return false;
  --record.commands_left_;
  return true;
}

void Standalone(std::string_view text, Spans* out) {
  Collector spans(text.size());
  // A record's redactor only for a command line or an argv list: most
  // paths and names are neither, and its rows cost a lookup each.
  const bool command_line = HasSpace(text);
  alignas(Redactor) unsigned char slot[sizeof(Redactor)];
  Redactor* record = nullptr;
  if (command_line || text.find('[') != std::string_view::npos) record = new (slot) Redactor(""sv);
  g_record = record;
  ContextFreeRules(text, &spans);
  // argv[0] may be set to a whole command line (exec -a 'curl -u me:pw x'):
  // rule 11, as for an argument that did not follow -c.
  if (command_line) record->CommandLines(text, false, false, &spans);
  g_record = nullptr;
  spans.Finish(out);
}

}  // namespace redact
