#include "record_validator.h"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <cstring>
#include <utility>

#include "canonical_json.h"
#include "json_insitu_stream.h"

namespace record_validator {
namespace {

enum class KeyType { kString, kCount, kBool, kStringArray };

struct KeyRow {
  std::string_view name;
  KeyType type;
  bool required;  // written by upstream's Python shim too
  const char* help;
};

// The record vocabulary: one row per key, in RecordKey order (byte-sorted).
constexpr KeyRow kKeys[kRecordKeyCount] = {
    {"argc", KeyType::kCount, false, "the original argc the kernel passed (includes argv[0])"},
    {"argv", KeyType::kStringArray, true, "arguments after argv[0], redacted, possibly truncated"},
    {"argv0", KeyType::kString, false, "argv[0] as given (absent when argc is 0)"},
    {"binary", KeyType::kString, true, "denied command name, or \"unknown\""},
    {"confined", KeyType::kBool, false, "no_new_privs and the seccomp filter were loaded"},
    {"event", KeyType::kString, true, "always \"command_denied\""},
    {"gid", KeyType::kCount, false, "real group id"},
    {"host", KeyType::kString, false, "uname nodename"},
    {"issue", KeyType::kCount, true, "upstream issue number (2662)"},
    {"path", KeyType::kString, false, "the exec path (AT_EXECFN)"},
    {"pid", KeyType::kCount, false, "process id"},
    {"ppid", KeyType::kCount, false, "parent process id"},
    {"redactions", KeyType::kCount, false, "how many secret values were replaced"},
    {"script", KeyType::kString, false,
     "the script whose #! line named the command (via \"script\")"},
    {"timestamp", KeyType::kString, true, "UTC, YYYY-MM-DDTHH:MM:SSZ"},
    {"timestamp_ns", KeyType::kCount, false, "the same instant in nanoseconds since the epoch"},
    {"truncated", KeyType::kBool, false, "an argument was cut or dropped"},
    {"uid", KeyType::kCount, false, "real user id"},
    {"version", KeyType::kString, false, "shim version"},
    {"via", KeyType::kString, false, "how the shim was reached: path, argv0, fd, script or none"},
};

const char* TypeName(KeyType type) {
  switch (type) {
    case KeyType::kString: return "a string";
    case KeyType::kCount: return "an integer >= 0";
    case KeyType::kBool: return "true or false";
    case KeyType::kStringArray: return "an array of strings";
  }
  return "?";
}

// Keys are found through a 64-slot index built from kKeys at compile time:
// each key's slot comes from its length, first and last byte, and no two
// keys share one (checked below), so a lookup is one probe and one compare.
constexpr size_t KeySlot(std::string_view name) {
  return (name.size() * 5 + static_cast<unsigned char>(name.front()) * 9 +
          static_cast<unsigned char>(name.back())) &
         63;
}

struct KeyIndex {
  int slot[64] = {};
  bool collision = false;
};

constexpr KeyIndex BuildKeyIndex() {
  KeyIndex index;
  for (int& s : index.slot) s = -1;
  for (int k = 0; k < kRecordKeyCount; ++k) {
    int& s = index.slot[KeySlot(kKeys[k].name)];
    if (s != -1) index.collision = true;
    s = k;
  }
  return index;
}

constexpr KeyIndex kKeyIndex = BuildKeyIndex();
static_assert(!kKeyIndex.collision, "two record keys share a slot: change KeySlot's factors");

int FindKey(std::string_view name) {
  if (name.empty()) return -1;
  const int k = kKeyIndex.slot[KeySlot(name)];
  if (k < 0) return -1;
  const std::string_view row = kKeys[k].name;
  if (row.size() != name.size()) return -1;
  for (size_t i = 0; i < name.size(); ++i) {  // inline: cheaper than a library call
    if (row[i] != name[i]) return -1;
  }
  return k;
}

// Each key's canonical member head, `"name": `, padded to one 16-byte
// copy: a member's head is written with one fixed-size copy, not a copy
// of the name sized at run time between its quotes.
constexpr size_t kHeadBytes = 16;
struct MemberHeads {
  char text[kRecordKeyCount][kHeadBytes] = {};
  uint8_t size[kRecordKeyCount] = {};
  bool fit = true;
  constexpr MemberHeads() {
    for (int k = 0; k < kRecordKeyCount; ++k) {
      const std::string_view name = kKeys[k].name;
      if (name.size() + 4 > kHeadBytes) {
        fit = false;
        continue;
      }
      size_t n = 0;
      text[k][n++] = '"';
      for (const char c : name) text[k][n++] = c;
      text[k][n++] = '"';
      text[k][n++] = ':';
      text[k][n++] = ' ';
      size[k] = static_cast<uint8_t>(n);
    }
  }
};
constexpr MemberHeads kMemberHeads;
static_assert(kMemberHeads.fit, "a record key's member head is longer than kHeadBytes");

// A key name from the record, safe to print: printable ASCII kept, other
// bytes as \xNN, at most 40 bytes shown (marked when cut).
std::string Printable(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (size_t i = 0; i < s.size() && i < 40; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
    }
  }
  out.push_back('"');
  if (s.size() > 40) out += " (first 40 of " + std::to_string(s.size()) + " bytes)";
  return out;
}

// SAX handler: checks the schema while parsing, so a line is parsed once and
// never becomes a value tree; each member's canonical text lands in its slot.
class Handler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Handler> {
 public:
  // rec->canonical must hold room_bytes bytes: ValidateRecord sizes it from
  // the line's length, which bounds the canonical text (see WriteString).
  Handler(const Limits& limits, ValidRecord* rec, size_t room_bytes, std::string* reason)
      : limits_(limits), rec_(rec), base_(&rec->canonical[0]), room_(room_bytes), reason_(reason) {}

  bool failed() const { return failed_; }
  Problem problem() const { return problem_; }
  size_t used() const { return used_; }
  bool sorted() const { return sorted_; }

  bool Null() { return Scalar("null"); }
  bool Bool(bool b) {
    if (!Expect(KeyType::kBool, "a boolean")) return false;
    return Store(b ? std::string_view("true") : std::string_view("false"));
  }
  bool Int(int i) { return Int64(i); }
  bool Int64(int64_t) {  // RapidJSON reports only negative numbers here
    if (depth_ == 1 && kKeys[key_].type == KeyType::kCount) {
      return Fail(Problem::kWrongType, "key " + Printable(kKeys[key_].name) + ": must be >= 0");
    }
    return Scalar("a negative integer");
  }
  bool Uint(unsigned u) { return Uint64(u); }
  bool Uint64(uint64_t u) {
    if (!Expect(KeyType::kCount, "an integer")) return false;
    if (!HasRoom(canonical_json::kMaxUintBytes)) return false;
    char* const start = base_ + used_;
    SetSlot(key_, start, canonical_json::WriteUint(u, start));
    if (key_ == kTimestampNs) {
      rec_->has_timestamp_ns = true;
      rec_->timestamp_ns = u;
    }
    return true;
  }
  bool Double(double) { return Scalar("a non-integer or out-of-range number"); }
  bool String(const char* str, rapidjson::SizeType length, bool) {
    const std::string_view s(str, length);
    if (depth_ == 2) return ArgvElement(s);
    if (!Expect(KeyType::kString, "a string")) return false;
    if (!HasRoom(canonical_json::MaxStringBytes(s.size()))) return false;
    char* const start = base_ + used_;
    char* const end = canonical_json::WriteString(s, start);
    if (end == nullptr) {
      return Fail(Problem::kNotUtf8,
                  "key " + Printable(kKeys[key_].name) +
                      ": string is not valid UTF-8 (an escaped lone surrogate?)");
    }
    SetSlot(key_, start, end);
    if (key_ == kBinary) rec_->binary.assign(s);
    if (key_ == kTimestamp) rec_->timestamp.assign(s);
    return true;
  }
  bool StartObject() {
    if (depth_ == 0) {
      depth_ = 1;
      return true;
    }
    return Nested("an object");
  }
  bool Key(const char* str, rapidjson::SizeType length, bool) {
    const std::string_view name(str, length);
    key_ = FindKey(name);
    if (key_ < 0) return Fail(Problem::kUnknownKey, "unknown key " + Printable(name));
    if (rec_->present(key_))
      return Fail(Problem::kDuplicateKey, "duplicate key " + Printable(name));
    rec_->present_mask |= 1u << key_;
    // The member's canonical start, `, "key": `; its value follows.
    if (!HasRoom(2 + kHeadBytes)) return false;
    char* p = base_ + used_;
    if (members_ > 0) p = canonical_json::WriteRaw(", ", p);
    rec_->member_begin[key_] = static_cast<uint32_t>(p - base_);
    memcpy(p, kMemberHeads.text[key_], kHeadBytes);
    p += kMemberHeads.size[key_];
    used_ = static_cast<size_t>(p - base_);
    if (key_ < last_key_) sorted_ = false;
    last_key_ = key_;
    ++members_;
    return true;
  }
  bool EndObject(rapidjson::SizeType) {
    depth_ = 0;
    return true;
  }
  bool StartArray() {
    if (depth_ == 1 && kKeys[key_].type == KeyType::kStringArray) {
      if (!HasRoom(1)) return false;
      depth_ = 2;
      argv_count_ = 0;
      argv_bytes_ = 0;
      argv_begin_ = used_;
      base_[used_++] = '[';
      return true;
    }
    return Nested("an array");
  }
  bool EndArray(rapidjson::SizeType) {
    if (!HasRoom(1)) return false;
    base_[used_++] = ']';
    SetSlot(key_, base_ + argv_begin_, base_ + used_);
    depth_ = 1;
    return true;
  }

 private:
  // The bound makes this unreachable; checked anyway, as the text is hostile.
  bool HasRoom(size_t bytes) {
    if (used_ + bytes <= room_) return true;
    return Fail(Problem::kInternal, "internal error: canonical text exceeds its bound");
  }
  bool Store(std::string_view canonical_text) {
    if (!HasRoom(canonical_text.size())) return false;
    char* const start = base_ + used_;
    SetSlot(key_, start, canonical_json::WriteRaw(canonical_text, start));
    return true;
  }
  void SetSlot(int key, const char* start, const char* end) {
    rec_->value_begin[key] = static_cast<uint32_t>(start - base_);
    rec_->value_length[key] = static_cast<uint32_t>(end - start);
    used_ = static_cast<size_t>(end - base_);
  }
  bool Fail(Problem problem, std::string reason) {
    failed_ = true;
    problem_ = problem;
    *reason_ = std::move(reason);
    return false;
  }
  bool Nested(const char* what) {
    if (depth_ == 0) return Fail(Problem::kNotJson, "not a JSON object");
    if (depth_ == 2)
      return Fail(Problem::kWrongType, "argv element " + std::to_string(argv_count_) + " is " +
                                           what + ": nesting deeper than the schema");
    return Fail(Problem::kWrongType, "key " + Printable(kKeys[key_].name) + ": expected " +
                                         TypeName(kKeys[key_].type) + ", got " + what +
                                         " (nesting deeper than the schema)");
  }
  bool Scalar(const char* what) {
    if (depth_ == 0) return Fail(Problem::kNotJson, "not a JSON object");
    if (depth_ == 2)
      return Fail(Problem::kWrongType,
                  "argv element " + std::to_string(argv_count_) + " is " + what + ", not a string");
    return Fail(Problem::kWrongType, "key " + Printable(kKeys[key_].name) + ": expected " +
                                         TypeName(kKeys[key_].type) + ", got " + what);
  }
  bool Expect(KeyType type, const char* what) {
    if (depth_ == 1 && kKeys[key_].type == type) return true;
    return Scalar(what);
  }
  bool ArgvElement(std::string_view s) {
    if (++argv_count_ > limits_.max_argv_entries) {
      return Fail(Problem::kArgvTooLarge,
                  "argv has more than " + std::to_string(limits_.max_argv_entries) + " entries");
    }
    argv_bytes_ += s.size();
    if (argv_bytes_ > limits_.max_argv_bytes) {
      return Fail(Problem::kArgvTooLarge,
                  "argv exceeds " + std::to_string(limits_.max_argv_bytes) + " bytes");
    }
    if (!HasRoom(2 + canonical_json::MaxStringBytes(s.size()))) return false;
    char* out = base_ + used_;
    if (argv_count_ > 1) out = canonical_json::WriteRaw(", ", out);
    char* const end = canonical_json::WriteString(s, out);
    if (end == nullptr) {
      return Fail(Problem::kNotUtf8,
                  "argv element " + std::to_string(argv_count_ - 1) +
                      ": string is not valid UTF-8 (an escaped lone surrogate?)");
    }
    used_ = static_cast<size_t>(end - base_);
    return true;
  }

  const Limits& limits_;
  ValidRecord* rec_;
  char* base_;   // rec_->canonical
  size_t room_;  // its usable size
  size_t used_ = 0;
  size_t argv_begin_ = 0;
  std::string* reason_;
  int depth_ = 0;  // 0: outside, 1: in the record, 2: in argv
  int key_ = -1;
  size_t argv_count_ = 0;
  size_t argv_bytes_ = 0;
  int members_ = 0;
  int last_key_ = -1;
  bool sorted_ = true;
  bool failed_ = false;
  Problem problem_ = Problem::kNone;
};

bool StartsWithAt(std::string_view s, size_t at, std::string_view word) {
  return at <= s.size() && s.substr(at, word.size()) == word;
}

bool IsNanOrInfinityAt(std::string_view line, size_t at) {
  // RapidJSON reports the error at or just after the sign.
  for (size_t p : {at, at > 0 ? at - 1 : at}) {
    if (StartsWithAt(line, p, "NaN") || StartsWithAt(line, p, "Infinity") ||
        StartsWithAt(line, p, "-Infinity") || StartsWithAt(line, p, "-NaN")) {
      return true;
    }
  }
  return false;
}

bool IsLeapYear(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

}  // namespace

const char* RecordKeyName(int key) {
  return key >= 0 && key < kRecordKeyCount ? kKeys[key].name.data() : "?";
}

const char* RecordKeyHelp(int key) {
  return key >= 0 && key < kRecordKeyCount ? kKeys[key].help : "?";
}

bool IsPlausibleCommandName(std::string_view name) {
  if (name.empty() || name.size() > 64 || name == "." || name == "..") return false;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '+' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool ParseShimTimestamp(std::string_view t, int64_t* epoch_seconds) {
  // YYYY-MM-DDTHH:MM:SSZ
  static constexpr char kShape[] = "dddd-dd-ddTdd:dd:ddZ";
  if (t.size() != sizeof kShape - 1) return false;
  for (size_t i = 0; i < t.size(); ++i) {
    if (kShape[i] == 'd' ? (t[i] < '0' || t[i] > '9') : t[i] != kShape[i]) return false;
  }
  const auto num = [&](size_t at, size_t n) {
    int v = 0;
    for (size_t i = at; i < at + n; ++i) v = v * 10 + (t[i] - '0');
    return v;
  };
  const int year = num(0, 4), month = num(5, 2), day = num(8, 2);
  const int hour = num(11, 2), minute = num(14, 2), second = num(17, 2);
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const int days_in_month = kDays[month - 1] + (month == 2 && IsLeapYear(year) ? 1 : 0);
  if (day > days_in_month || hour > 23 || minute > 59 || second > 59) return false;
  *epoch_seconds =
      DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) * 86400 +
      hour * 3600 + minute * 60 + second;
  return true;
}

const char* ProblemLabel(Problem problem) {
  switch (problem) {
    case Problem::kNone: return "none";
    case Problem::kTooLong: return "too_long";
    case Problem::kNulBytes: return "nul_bytes";
    case Problem::kEmpty: return "empty";
    case Problem::kNotUtf8: return "not_utf8";
    case Problem::kNotJson: return "not_json";
    case Problem::kCutRecord: return "cut_record";
    case Problem::kUnknownKey: return "unknown_key";
    case Problem::kDuplicateKey: return "duplicate_key";
    case Problem::kWrongType: return "wrong_type";
    case Problem::kArgvTooLarge: return "argv_too_large";
    case Problem::kMissingKey: return "missing_key";
    case Problem::kBadValue: return "bad_value";
    case Problem::kInternal: return "internal";
    case Problem::kProblemCount: break;
  }
  return "unknown";
}

bool ValidateRecord(std::string_view line, const Limits& limits, ValidRecord* out,
                    std::string* reason, Problem* problem) {
  const auto fail = [&](Problem kind, std::string why) {
    if (problem != nullptr) *problem = kind;
    *reason = std::move(why);
    return false;
  };
  if (line.size() > limits.max_line_bytes) {
    return fail(Problem::kTooLong,
                "line exceeds " + std::to_string(limits.max_line_bytes) + " bytes");
  }
  if (line.empty()) {
    return fail(Problem::kEmpty, "empty line");
  }
  out->present_mask = 0;
  out->has_timestamp_ns = false;
  out->timestamp_ns = 0;

  // Canonical text is at most 6 bytes per line byte (see MaxStringBytes);
  // ", " between argv elements replaces a "," plus at least two quotes; each
  // member adds at most two spaces (", " and ": "), 2 * kRecordKeyCount.
  // Slots are 32-bit offsets: the configured line limit (16 MiB at most)
  // keeps far below that; a caller's larger limit is capped here.
  const size_t room = 6 * line.size() + 64;
  if (room > UINT32_MAX) {
    return fail(Problem::kTooLong,
                "line exceeds " + std::to_string((UINT32_MAX - 64) / 6) + " bytes");
  }
  if (out->canonical.size() < room) out->canonical.resize(room);
  Handler handler(limits, out, room, reason);
  rapidjson::Reader reader;
  // In-situ parsing of a private copy: strings are decoded in place instead
  // of being pushed byte by byte onto the parser's stack. The caller's line
  // stays intact (it feeds the entry id). A record is mostly strings: they
  // are scanned 16 bytes at a time (json_insitu_stream.h, as the verifier
  // reads lines), with the same events and errors as RapidJSON's own stream.
  std::string& copy = out->scratch;
  copy.assign(line.data(), line.size());
  copy.append(1 + json_insitu_stream::kReadAhead, '\0');  // the stream stops at the first NUL
  json_insitu_stream::Stream stream(&copy[0], copy.size());
  // Stop at the end of the object: whatever follows is reported as trailing
  // bytes. Strings are checked as strict UTF-8 by the handler (canonical
  // serialisation), so RapidJSON's own encoding check would be done twice.
  constexpr unsigned kFlags = rapidjson::kParseStopWhenDoneFlag | rapidjson::kParseInsituFlag;
  const rapidjson::ParseResult result = reader.Parse<kFlags>(stream, handler);
  if (handler.failed() || result.IsError()) {
    // Bad bytes anywhere take precedence: the most basic reason is the clearest.
    const size_t bad = canonical_json::FirstInvalidUtf8(line);
    if (bad != std::string_view::npos) {
      return fail(Problem::kNotUtf8, "not valid UTF-8 (byte " + std::to_string(bad) + ")");
    }
  }
  if (handler.failed()) {
    if (problem != nullptr) *problem = handler.problem();
    return false;
  }
  if (result.IsError()) {
    const size_t at = result.Offset();
    if (line.substr(0, 3) == "\xef\xbb\xbf") {  // an editor's UTF-8 signature
      return fail(Problem::kNotJson, "a byte order mark (EF BB BF) before the JSON object");
    }
    if (IsNanOrInfinityAt(line, at)) {
      return fail(Problem::kNotJson,
                  "NaN or Infinity is not JSON (byte " + std::to_string(at) + ")");
    }
    if (line[0] != '{') return fail(Problem::kNotJson, "not a JSON object");
    if (at >= line.size()) {
      // The line ends inside the object: what a short append (a full disk,
      // RLIMIT_FSIZE) leaves; the shim starts its next record on a new line.
      return fail(Problem::kCutRecord, "a cut record (the line ends inside the JSON object after " +
                                           std::to_string(line.size()) +
                                           " bytes, as a short append leaves it): " +
                                           rapidjson::GetParseError_En(result.Code()));
    }
    return fail(Problem::kNotJson, std::string("invalid JSON at byte ") + std::to_string(at) +
                                       ": " + rapidjson::GetParseError_En(result.Code()));
  }
  if (line[0] != '{') {  // leading whitespace: the shim writes none
    return fail(Problem::kNotJson, "bytes before the JSON object");
  }
  if (stream.Tell() + 1 == line.size() && line.back() == '\r') {
    return fail(Problem::kNotJson, "a carriage return after the JSON object (CRLF line ending)");
  }
  if (stream.Tell() != line.size()) {
    return fail(Problem::kNotJson, "trailing bytes after the JSON object (byte " +
                                       std::to_string(stream.Tell()) + ")");
  }

  out->canonical_bytes = handler.used();
  out->members_sorted = handler.sorted();
  for (int k = 0; k < kRecordKeyCount; ++k) {
    if (kKeys[k].required && !out->present(k)) {
      return fail(Problem::kMissingKey, "missing key \"" + std::string(kKeys[k].name) + "\"");
    }
  }
  if (out->value(kEvent) != "\"command_denied\"") {
    return fail(Problem::kBadValue, "key \"event\" is not \"command_denied\"");
  }
  if (!IsPlausibleCommandName(out->binary)) {
    return fail(Problem::kBadValue,
                "key \"binary\" is not a plausible command name (1-64 bytes of [A-Za-z0-9._+-])");
  }
  if (!ParseShimTimestamp(out->timestamp, &out->epoch_seconds)) {
    return fail(Problem::kBadValue,
                "key \"timestamp\" is not a real UTC instant as YYYY-MM-DDTHH:MM:SSZ");
  }
  if (out->has_timestamp_ns &&
      (out->epoch_seconds < 0 ||
       out->timestamp_ns / 1000000000u != static_cast<uint64_t>(out->epoch_seconds))) {
    return fail(Problem::kBadValue,
                "key \"timestamp_ns\" is not within the second of \"timestamp\"");
  }
  return true;
}

}  // namespace record_validator
