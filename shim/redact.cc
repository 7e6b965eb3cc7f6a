#include "redact.h"

#include <array>

namespace redact {

// string_view literals: their length is known when compiled (a plain "..."
// compared with a string_view costs a strlen() call at -Os).
using namespace std::string_view_literals;

namespace {

constexpr char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Character classes by table: one load per test, small enough to be inlined
// even at -Os, since the rules test every byte of every argument many times.
enum : unsigned char { kAlphaBit = 1, kDigitBit = 2, kUnderscoreBit = 4, kSpaceBit = 8 };

constexpr std::array<unsigned char, 256> MakeClasses() {
  std::array<unsigned char, 256> classes{};
  for (int c = 0; c < 256; ++c) {
    unsigned char bits = 0;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) bits |= kAlphaBit;
    if (c >= '0' && c <= '9') bits |= kDigitBit;
    if (c == '_') bits |= kUnderscoreBit;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') bits |= kSpaceBit;
    classes[static_cast<std::size_t>(c)] = bits;
  }
  return classes;
}
constexpr std::array<unsigned char, 256> kClasses = MakeClasses();

constexpr bool HasClass(char c, unsigned bits) { return (kClasses[static_cast<unsigned char>(c)] & bits) != 0; }
constexpr bool IsAlpha(char c) { return HasClass(c, kAlphaBit); }
constexpr bool IsDigit(char c) { return HasClass(c, kDigitBit); }
constexpr bool IsAlnum(char c) { return HasClass(c, kAlphaBit | kDigitBit); }
constexpr bool IsWordChar(char c) { return HasClass(c, kAlphaBit | kDigitBit | kUnderscoreBit); }
constexpr bool IsSpace(char c) { return HasClass(c, kSpaceBit); }
constexpr bool IsUpperAlnum(char c) { return (c >= 'A' && c <= 'Z') || IsDigit(c); }
constexpr bool IsBase64Url(char c) { return IsAlnum(c) || c == '-' || c == '_'; }
constexpr bool IsAlnumDash(char c) { return IsAlnum(c) || c == '-'; }
constexpr bool IsTokenChar(char c) {
  return IsAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' || c == '=';
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

bool EndsWithIgnoreCase(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         EqualsIgnoreCase(std::string_view(text.data() + text.size() - suffix.size(), suffix.size()), suffix);
}

// A byte loop rather than string_view::compare: the rules call this at every
// position of every argument, and most calls fail on the first byte.
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

constexpr std::array<std::string_view, 16> kSecretWords = {
    "password", "passwd", "passphrase", "pass", "pwd", "secret", "secrets", "token",
    "tokens", "apikey", "key", "credential", "credentials", "auth", "bearer", "cookie",
};
// A word ending like this is secret too: "dbpassword", "accesstoken".
constexpr std::array<std::string_view, 5> kSecretSuffixes = {"password", "passwd", "token", "secret", "apikey"};
// Option words saying the value is not the secret itself (a flag, a file).
constexpr std::array<std::string_view, 13> kNonSecretWords = {
    "no", "stdin", "file", "path", "prompt", "type", "env", "cmd", "command", "helper", "length", "id", "dir",
};
constexpr std::array<std::string_view, 4> kCredentialHeaders = {
    "authorization", "proxy-authorization", "cookie", "set-cookie",
};

template <std::size_t N>
bool InWords(std::string_view word, const std::array<std::string_view, N>& words) {
  for (std::string_view w : words) {
    if (EqualsIgnoreCase(word, w)) return true;
  }
  return false;
}

// Collects spans in any order; Finish() sorts and merges them.
class Collector {
 public:
  explicit Collector(std::size_t text_size) : text_size_(text_size) {}

  void Add(std::size_t begin, std::size_t end) {
    if (end <= begin) return;
    if (overflow_ || count_ == 2 * kMaxSpans) {
      overflow_ = true;
      if (begin < overflow_begin_) overflow_begin_ = begin;
      return;
    }
    raw_[count_++] = Span{begin, end};
    if (begin < overflow_begin_) overflow_begin_ = begin;
  }

  void Finish(Spans* out) {
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
  Span raw_[2 * kMaxSpans];  // only [0, count_) is ever read
  std::size_t count_ = 0;
  std::size_t text_size_;
  bool overflow_ = false;
  std::size_t overflow_begin_ = static_cast<std::size_t>(-1);
};

// Rule 1, on text starting at `offset` within the argument.
void HeaderRule(std::string_view arg, std::size_t offset, Collector* spans) {
  std::size_t i = offset;
  while (i < arg.size() && IsSpace(arg[i])) ++i;
  std::size_t name_begin = i;
  while (i < arg.size() && (IsAlnum(arg[i]) || arg[i] == '-' || arg[i] == '_')) ++i;
  std::string_view name(arg.data() + name_begin, i - name_begin);
  while (i < arg.size() && (arg[i] == ' ' || arg[i] == '\t')) ++i;
  if (name.empty() || i >= arg.size() || arg[i] != ':') return;
  if (!InWords(name, kCredentialHeaders) && !IsSecretName(name, false)) return;
  ++i;
  while (i < arg.size() && IsSpace(arg[i])) ++i;
  spans->Add(i, arg.size());
}

// Rule 2: everything after the first ':' of the text at `offset`.
void UserRule(std::string_view arg, std::size_t offset, Collector* spans) {
  for (std::size_t i = offset; i < arg.size(); ++i) {
    if (arg[i] == ':') {
      spans->Add(i + 1, arg.size());
      return;
    }
  }
}

// Rule 4.
void UrlUserinfoRule(std::string_view arg, Collector* spans) {
  for (std::size_t i = 0; i + 3 <= arg.size(); ++i) {
    if (arg[i] != ':' || !StartsWith(Tail(arg, i), "://"sv)) continue;
    std::size_t s = i;
    while (s > 0 && (IsAlnum(arg[s - 1]) || arg[s - 1] == '+' || arg[s - 1] == '.' || arg[s - 1] == '-')) --s;
    if (s == i || !IsAlpha(arg[s])) continue;
    std::size_t begin = i + 3;
    std::size_t at = std::string_view::npos;
    std::size_t j = begin;
    for (; j < arg.size(); ++j) {
      char c = arg[j];
      if (c == '/' || c == '?' || c == '#' || IsSpace(c)) break;
      if (c == '@') at = j;  // the last '@': passwords may hold a raw '@'
    }
    if (at != std::string_view::npos) spans->Add(begin, at);
    i = j > i ? j - 1 : i;
  }
}

// Rule 5.
void AssignmentRule(std::string_view arg, Collector* spans) {
  for (std::size_t p = 0; p < arg.size(); ++p) {
    bool at_start = p == 0;
    if (!at_start) {
      char before = arg[p - 1];
      if (before != '?' && before != '&' && before != ';' && before != '=' && before != ',' && !IsSpace(before)) {
        continue;
      }
    }
    if (!(IsAlpha(arg[p]) || arg[p] == '_')) continue;
    std::size_t i = p;
    while (i < arg.size() && (IsWordChar(arg[i]) || arg[i] == '-' || arg[i] == '.')) ++i;
    if (i >= arg.size() || arg[i] != '=') continue;
    if (!IsSecretName(std::string_view(arg.data() + p, i - p), true)) continue;
    std::size_t begin = i + 1;
    std::size_t end = begin;
    if (at_start) {
      end = arg.size();
    } else {
      while (end < arg.size() && arg[end] != '&' && arg[end] != '#' && arg[end] != ',' && !IsSpace(arg[end]) &&
             arg[end] != '\'' && arg[end] != '"') {
        ++end;
      }
    }
    spans->Add(begin, end);
    p = end > p ? end - 1 : p;
  }
}

// Rule 6.
void AuthSchemeRule(std::string_view arg, Collector* spans) {
  for (std::string_view scheme : {std::string_view("bearer"), std::string_view("basic")}) {
    for (std::size_t p = 0; p + scheme.size() < arg.size(); ++p) {
      if (p > 0 && IsWordChar(arg[p - 1])) continue;
      if (!EqualsIgnoreCase(std::string_view(arg.data() + p, scheme.size()), scheme)) continue;
      std::size_t i = p + scheme.size();
      if (!IsSpace(arg[i])) continue;
      while (i < arg.size() && IsSpace(arg[i])) ++i;
      std::size_t end = i;
      while (end < arg.size() && IsTokenChar(arg[end])) ++end;
      if (end - i >= 8) spans->Add(i, end);
    }
  }
}

struct TokenShape {
  std::string_view prefix;
  bool (*is_body_char)(char);
  std::size_t min_body;  // characters after the prefix
};

constexpr bool IsAlnumUnderscore(char c) { return IsAlnum(c) || c == '_'; }
constexpr bool IsAlnumChar(char c) { return IsAlnum(c); }
constexpr bool IsUpperAlnumChar(char c) { return IsUpperAlnum(c); }
constexpr bool IsBase64UrlChar(char c) { return IsBase64Url(c); }
constexpr bool IsAlnumDashChar(char c) { return IsAlnumDash(c); }

// Rule 7 (all but JWTs and PEM blocks).
constexpr std::array<TokenShape, 26> kTokenShapes = {{
    {"AKIA", IsUpperAlnumChar, 16}, {"ASIA", IsUpperAlnumChar, 16}, {"AGPA", IsUpperAlnumChar, 16},
    {"AIDA", IsUpperAlnumChar, 16}, {"AROA", IsUpperAlnumChar, 16}, {"AIPA", IsUpperAlnumChar, 16},
    {"ANPA", IsUpperAlnumChar, 16}, {"ANVA", IsUpperAlnumChar, 16}, {"ghp_", IsAlnumChar, 30},
    {"gho_", IsAlnumChar, 30},      {"ghu_", IsAlnumChar, 30},      {"ghs_", IsAlnumChar, 30},
    {"ghr_", IsAlnumChar, 30},      {"github_pat_", IsAlnumUnderscore, 22},
    {"glpat-", IsBase64UrlChar, 20}, {"xoxa-", IsAlnumDashChar, 10}, {"xoxb-", IsAlnumDashChar, 10},
    {"xoxp-", IsAlnumDashChar, 10}, {"xoxr-", IsAlnumDashChar, 10}, {"xoxs-", IsAlnumDashChar, 10},
    {"AIza", IsBase64UrlChar, 30},  {"sk-", IsBase64UrlChar, 20},   {"sk_live_", IsAlnumChar, 16},
    {"rk_live_", IsAlnumChar, 16},  {"npm_", IsAlnumChar, 30},      {"hf_", IsAlnumChar, 30},
}};

// The first bytes of the prefixes above, so most positions are passed over
// with one lookup.
constexpr std::array<bool, 256> MakeTokenShapeStarts() {
  std::array<bool, 256> starts{};
  for (const TokenShape& shape : kTokenShapes) starts[static_cast<unsigned char>(shape.prefix[0])] = true;
  return starts;
}
constexpr std::array<bool, 256> kTokenShapeStarts = MakeTokenShapeStarts();

void TokenShapeRule(std::string_view arg, Collector* spans) {
  for (std::size_t p = 0; p < arg.size(); ++p) {
    if (p > 0 && IsWordChar(arg[p - 1])) continue;
    if (!kTokenShapeStarts[static_cast<unsigned char>(arg[p])]) continue;
    for (const TokenShape& shape : kTokenShapes) {
      if (arg[p] != shape.prefix[0] || !StartsWith(Tail(arg, p), shape.prefix)) continue;
      std::size_t end = p + shape.prefix.size();
      while (end < arg.size() && shape.is_body_char(arg[end])) ++end;
      if (end - p - shape.prefix.size() >= shape.min_body) spans->Add(p, end);
    }
  }
}

std::size_t Base64UrlRun(std::string_view arg, std::size_t from) {
  std::size_t i = from;
  while (i < arg.size() && IsBase64Url(arg[i])) ++i;
  return i - from;
}

void JwtRule(std::string_view arg, Collector* spans) {
  for (std::size_t p = 0; p + 3 <= arg.size(); ++p) {
    if (p > 0 && IsWordChar(arg[p - 1])) continue;
    if (arg[p] != 'e' || !StartsWith(Tail(arg, p), "eyJ"sv)) continue;
    std::size_t header = Base64UrlRun(arg, p);
    std::size_t i = p + header;
    if (header < 10 || i >= arg.size() || arg[i] != '.') continue;
    std::size_t payload = Base64UrlRun(arg, i + 1);
    i += 1 + payload;
    if (payload < 10 || i >= arg.size() || arg[i] != '.') continue;
    i += 1 + Base64UrlRun(arg, i + 1);
    spans->Add(p, i);
    p = i - 1;
  }
}

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

// Rule 10: a quoted member name holding a secret word, then ':' and a quoted
// or bare value ({"password":"x"}, {'token': 'x'}, "api_key": 42): the value.
// Each quote starts at most one name scan, which ends at the next quote, so
// the rule stays linear in the argument's length.
void QuotedMemberRule(std::string_view arg, Collector* spans) {
  for (std::size_t p = 0; p < arg.size(); ++p) {
    char quote = arg[p];
    if (quote != '"' && quote != '\'') continue;
    std::size_t i = p + 1;
    while (i < arg.size() && arg[i] != quote && arg[i] != '\\') ++i;
    if (i >= arg.size() || arg[i] != quote) continue;
    std::string_view name(arg.data() + p + 1, i - p - 1);
    std::size_t j = i + 1;
    while (j < arg.size() && IsSpace(arg[j])) ++j;
    if (name.empty() || j >= arg.size() || arg[j] != ':' || !IsSecretName(name, true)) continue;
    ++j;
    while (j < arg.size() && IsSpace(arg[j])) ++j;
    if (j >= arg.size() || arg[j] == '{' || arg[j] == '[') continue;  // members inside get their own turn
    std::size_t begin = j;
    std::size_t end = j;
    if (arg[j] == '"' || arg[j] == '\'') {
      char value_quote = arg[j];
      begin = end = j + 1;
      while (end < arg.size() && arg[end] != value_quote) end += arg[end] == '\\' ? 2 : 1;
      if (end > arg.size()) end = arg.size();
    } else {
      while (end < arg.size() && arg[end] != ',' && arg[end] != '}' && arg[end] != ']' && !IsSpace(arg[end])) ++end;
    }
    spans->Add(begin, end);
    p = end;  // on to after the value: its closing quote opens no name
  }
}

void ContextFreeRules(std::string_view text, Collector* spans) {
  HeaderRule(text, 0, spans);
  UrlUserinfoRule(text, spans);
  AssignmentRule(text, spans);
  AuthSchemeRule(text, spans);
  TokenShapeRule(text, spans);
  JwtRule(text, spans);
  PemPrivateKeyRule(text, spans);
  QuotedMemberRule(text, spans);
}

// Rules 1 and 2 for short options, alone or bundled after flags as curl and
// getopt allow (-u v, -uv, -su v, -sSLu:v, -sHName: v): the first u, U, E or
// H in the leading run of letters takes the rest of the argument. Returns true
// when nothing follows a u, U or E: the next argument is then "user:pass".
bool ShortOptionCluster(std::string_view arg, Collector* spans) {
  for (std::size_t i = 1; i < arg.size() && IsAlpha(arg[i]); ++i) {
    char c = arg[i];
    if (c != 'u' && c != 'U' && c != 'E' && c != 'H') continue;
    bool value_follows = i + 1 < arg.size();
    if (c == 'H') {
      // "-H" alone: the next argument "Name: value" meets rule 1 unaided.
      if (value_follows) HeaderRule(arg, i + 1, spans);
    } else if (value_follows) {
      UserRule(arg, i + 1, spans);
    } else {
      return true;
    }
    return false;
  }
  return false;
}

}  // namespace

bool IsSecretName(std::string_view name, bool allow_exclusions) {
  bool secret = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= name.size(); ++i) {
    if (i < name.size() && name[i] != '-' && name[i] != '_' && name[i] != '.') continue;
    std::string_view word(name.data() + start, i - start);
    start = i + 1;
    if (word.empty()) continue;
    if (allow_exclusions && InWords(word, kNonSecretWords)) return false;
    if (InWords(word, kSecretWords)) secret = true;
    for (std::string_view suffix : kSecretSuffixes) {
      if (EndsWithIgnoreCase(word, suffix)) secret = true;
    }
  }
  return secret;
}

Redactor::Redactor(std::string_view binary) {
  for (const LoginPasswordOption& row : kLoginPasswordOptions) {
    if (row.binary == binary) login_password_option_ = row.option;
  }
}

void Redactor::NextArgument(std::string_view arg, Spans* out) {
  Collector spans(arg.size());
  Pending pending = pending_;
  pending_ = Pending::kNone;
  if (pending == Pending::kWholeValue) {
    spans.Add(0, arg.size());
    spans.Finish(out);
    return;
  }
  if (pending == Pending::kUserPassword) UserRule(arg, 0, &spans);

  if (StartsWith(arg, "--"sv) && arg.size() > 2) {
    std::size_t eq = arg.find('=');
    std::size_t name_end = eq == std::string_view::npos ? arg.size() : eq;
    std::string_view name(arg.data() + 2, name_end - 2);
    bool has_value = eq != std::string_view::npos;
    if (name == "user"sv || name == "proxy-user"sv || name == "cert"sv || name == "proxy-cert"sv) {
      if (has_value) {
        UserRule(arg, eq + 1, &spans);
      } else {
        pending_ = Pending::kUserPassword;
      }
    } else if (name == "header"sv || name == "proxy-header"sv) {
      if (has_value) HeaderRule(arg, eq + 1, &spans);
    } else if (IsSecretName(name, true)) {
      if (has_value) {
        spans.Add(eq + 1, arg.size());
      } else {
        pending_ = Pending::kWholeValue;
      }
    }
  } else if (after_login_ && !login_password_option_.empty() && StartsWith(arg, login_password_option_)) {
    if (arg.size() == login_password_option_.size()) {
      pending_ = Pending::kWholeValue;
    } else {
      spans.Add(login_password_option_.size(), arg.size());
    }
  } else if (arg.size() >= 2 && arg[0] == '-' && arg[1] != '-') {
    if (ShortOptionCluster(arg, &spans)) pending_ = Pending::kUserPassword;
  }
  if (arg == "login"sv) after_login_ = true;
  // Rule 9: the first non-option argument after "set" is a setting's name.
  if (after_set_ && !StartsWith(arg, "-"sv)) {
    after_set_ = false;
    if (arg.find('=') == std::string_view::npos && IsSecretName(arg, true)) pending_ = Pending::kWholeValue;
  }
  if (arg == "set"sv) after_set_ = true;
  ContextFreeRules(arg, &spans);
  spans.Finish(out);
}

void Standalone(std::string_view text, Spans* out) {
  Collector spans(text.size());
  ContextFreeRules(text, &spans);
  spans.Finish(out);
}

}  // namespace redact
