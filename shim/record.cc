#include "record.h"

#include "json_escape.h"

namespace record {

// Literals as string_view literals: their length is known when compiled
// (a plain "..." passed as a string_view costs a strlen() call at -Os).
using namespace std::string_view_literals;

namespace {

// Calls emit(piece) for each unit of the escaped field: one escape, one
// character or one redaction marker. Stops when emit returns false.
template <typename Emit>
void WalkUnits(std::string_view raw, const redact::Spans& spans, Emit emit) {
  std::size_t next_span = 0;
  char unit[json_escape::kMaxUnitSize];
  for (std::size_t pos = 0; pos < raw.size();) {
    if (next_span < spans.count && pos >= spans.items[next_span].begin) {
      if (!emit(redact::kMarker)) return;
      pos = spans.items[next_span].end;
      ++next_span;
      continue;
    }
    std::size_t unit_size = 0;
    std::size_t consumed = json_escape::NextUnit(raw, pos, unit, &unit_size);
    // A character running into a secret is cut at the secret: its bytes
    // are the secret's, never shown.
    if (next_span < spans.count && pos + consumed > spans.items[next_span].begin) {
      consumed = spans.items[next_span].begin - pos;
      unit[0] = '\xef';
      unit[1] = '\xbf';
      unit[2] = '\xbd';
      unit_size = 3;
    }
    if (!emit(std::string_view(unit, unit_size))) return;
    pos += consumed;
  }
}

// Days since 1970-01-01 to a civil date (proleptic Gregorian), after
// Howard Hinnant's days_from_civil inverse.
void CivilFromDays(std::int64_t days, std::int64_t* year, unsigned* month, unsigned* day) {
  days += 719468;
  std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  std::uint64_t doe = static_cast<std::uint64_t>(days - era * 146097);
  std::uint64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400;
  std::uint64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  std::uint64_t mp = (5 * doy + 2) / 153;
  *day = static_cast<unsigned>(doy - (153 * mp + 2) / 5 + 1);
  *month = static_cast<unsigned>(mp < 10 ? mp + 3 : mp - 9);
  *year = y + (*month <= 2 ? 1 : 0);
}

bool AppendBool(bool value, fixed_buffer::Buffer* out) {
  return out->Append(value ? "true"sv : "false"sv);
}

// Everything after the argv array: `],"argv0":...}`.
bool AppendTail(const Facts& facts, const redact::Spans& argv0_spans,
                const redact::Spans& path_spans, std::uint64_t redactions, bool truncated,
                fixed_buffer::Buffer* out, bool* cut) {
  bool ok = out->Append("]"sv);
  if (facts.argc > 0 && facts.argv != nullptr && facts.argv[0] != nullptr) {
    ok = ok && out->Append(",\"argv0\":"sv) &&
         AppendField(facts.argv[0], argv0_spans, kMaxFieldSize, out, cut);
  }
  ok = ok && out->Append(",\"binary\":"sv) &&
       AppendField(facts.binary, redact::kNoSpans, kMaxFieldSize, out, cut);
  ok = ok && out->Append(",\"confined\":"sv) && AppendBool(facts.confined, out);
  ok = ok && out->Append(",\"event\":\"command_denied\",\"gid\":"sv) &&
       out->AppendUnsigned(facts.gid);
  // The host name is the operator's, not redacted.
  ok = ok && out->Append(",\"host\":"sv) &&
       AppendField(facts.host, redact::kNoSpans, kMaxFieldSize, out, cut);
  ok = ok && out->Append(",\"issue\":"sv) && out->AppendUnsigned(kIssue);
  ok = ok && out->Append(",\"path\":"sv) &&
       AppendField(facts.exec_path, path_spans, kMaxFieldSize, out, cut);
  ok = ok && out->Append(",\"pid\":"sv) && out->AppendUnsigned(facts.pid);
  ok = ok && out->Append(",\"ppid\":"sv) && out->AppendUnsigned(facts.ppid);
  ok = ok && out->Append(",\"redactions\":"sv) && out->AppendUnsigned(redactions);
  // The script is the exec path (AT_EXECFN), so it is redacted as path is.
  if (!facts.script.empty()) {
    ok = ok && out->Append(",\"script\":"sv) &&
         AppendField(facts.script, path_spans, kMaxFieldSize, out, cut);
  }
  ok = ok && out->Append(",\"timestamp\":\""sv) && AppendTimestamp(facts.time_sec, out) &&
       out->Append("\""sv);
  std::uint64_t seconds = facts.time_sec > 0 ? static_cast<std::uint64_t>(facts.time_sec) : 0;
  ok = ok && out->Append(",\"timestamp_ns\":"sv) &&
       out->AppendUnsigned(seconds * 1000000000u + facts.time_nsec);
  ok = ok && out->Append(",\"truncated\":"sv) && AppendBool(truncated, out);
  ok = ok && out->Append(",\"uid\":"sv) && out->AppendUnsigned(facts.uid);
  ok = ok && out->Append(",\"version\":"sv) &&
       AppendField(facts.version, redact::kNoSpans, kMaxFieldSize, out, cut);
  ok = ok && out->Append(",\"via\":"sv) &&
       AppendField(facts.via, redact::kNoSpans, kMaxFieldSize, out, cut);
  return ok && out->Append("}"sv);
}

// True when every byte is printable ASCII other than '"' and '\\': such a
// text escapes to itself (json_escape::NextUnit copies each byte as it is).
bool IsPlain(std::string_view raw) {
  for (char ch : raw) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') return false;
  }
  return true;
}

}  // namespace

bool AppendField(std::string_view raw, const redact::Spans& spans, std::size_t max_escaped,
                 fixed_buffer::Buffer* out, bool* cut) {
  // The common case - a short plain field with no secret in it - is copied
  // whole instead of walked unit by unit twice; the result is the same.
  if (spans.count == 0 && raw.size() <= max_escaped && IsPlain(raw)) {
    std::size_t start = out->size();
    if (out->Append("\""sv) && out->Append(raw) && out->Append("\""sv)) return true;
    out->Shrink(start);
    return false;
  }
  std::size_t full = 0;
  WalkUnits(raw, spans, [&](std::string_view piece) {
    full += piece.size();
    return true;
  });
  bool cutting = full > max_escaped;
  std::size_t limit = cutting ? max_escaped - kCutMarker.size() : max_escaped;
  std::size_t start = out->size();
  bool room = out->Append("\""sv);
  std::size_t written = 0;
  WalkUnits(raw, spans, [&](std::string_view piece) {
    if (written + piece.size() > limit) return false;
    written += piece.size();
    room = room && out->Append(piece);
    return room;
  });
  if (cutting) room = room && out->Append(kCutMarker);
  room = room && out->Append("\""sv);
  if (!room) {
    out->Shrink(start);
    return false;
  }
  if (cutting) *cut = true;
  return true;
}

bool AppendTimestamp(std::int64_t time_sec, fixed_buffer::Buffer* out) {
  if (time_sec < 0) time_sec = 0;
  std::int64_t days = time_sec / 86400;
  std::int64_t rest = time_sec % 86400;
  std::int64_t year = 0;
  unsigned month = 0;
  unsigned day = 0;
  CivilFromDays(days, &year, &month, &day);
  return out->AppendPadded(static_cast<std::uint64_t>(year), 4) && out->Append("-"sv) &&
         out->AppendPadded(month, 2) && out->Append("-"sv) && out->AppendPadded(day, 2) &&
         out->Append("T"sv) && out->AppendPadded(static_cast<std::uint64_t>(rest / 3600), 2) &&
         out->Append(":"sv) && out->AppendPadded(static_cast<std::uint64_t>(rest / 60 % 60), 2) &&
         out->Append(":"sv) && out->AppendPadded(static_cast<std::uint64_t>(rest % 60), 2) &&
         out->Append("Z"sv);
}

bool Build(const Facts& facts, fixed_buffer::Buffer* out) {
  if (out->remaining() < kMaxRecordSize) return false;
  bool cut = false;
  bool has_argv = facts.argc > 0 && facts.argv != nullptr;
  std::uint64_t redactions = 0;

  // Static rather than on the stack, like redact's collected spans: the
  // record must be built within an 8 KiB RLIMIT_STACK. Build never nests.
  // Zero-initialised by the loader ({} makes it constant initialisation):
  // no guard variable to read first, which would fault the page in twice,
  // once to read and once to write.
  static redact::Spans argv0_spans{};
  static redact::Spans path_spans{};
  static redact::Spans spans{};
  argv0_spans.count = 0;
  if (has_argv && facts.argv[0] != nullptr) redact::Standalone(facts.argv[0], &argv0_spans);
  redact::Standalone(facts.exec_path, &path_spans);
  redactions += argv0_spans.count + path_spans.count;

  std::size_t start = out->size();
  out->Append("{\"argc\":"sv);
  out->AppendUnsigned(facts.argc > 0 ? static_cast<std::uint64_t>(facts.argc) : 0);
  out->Append(",\"argv\":["sv);

  // The tail's largest size (counted, not stored): the final redaction count
  // is not known yet.
  fixed_buffer::Buffer tail(nullptr, kMaxRecordSize);
  bool probe_cut = false;
  if (!AppendTail(facts, argv0_spans, path_spans, ~std::uint64_t{0}, false, &tail, &probe_cut)) {
    out->Shrink(start);
    return false;
  }
  std::size_t head_size = out->size() - start;
  if (head_size + tail.size() > kMaxRecordSize) {
    out->Shrink(start);
    return false;
  }

  // Arguments are written in place, within what the head and tail leave.
  fixed_buffer::Buffer args(out->end(), kMaxRecordSize - head_size - tail.size());
  redact::Redactor redactor(facts.tool.empty() ? facts.binary : facts.tool);
  bool dropping = false;
  for (int i = 1; has_argv && i < facts.argc; ++i) {
    std::string_view arg =
        facts.argv[i] != nullptr ? std::string_view(facts.argv[i]) : std::string_view();
    redactor.NextArgument(arg, &spans);  // even for dropped arguments: context and count
    redactions += spans.count;
    if (dropping) continue;
    std::size_t mark = args.size();
    bool cut_here = false;
    if ((i == 1 || args.Append(","sv)) &&
        AppendField(arg, spans, kMaxFieldSize, &args, &cut_here)) {
      cut = cut || cut_here;
      continue;
    }
    args.Shrink(mark);  // the first argument that does not fit: drop it and all after it
    dropping = true;
    cut = true;
  }
  out->Commit(args.size());

  if (!AppendTail(facts, argv0_spans, path_spans, redactions, cut || probe_cut, out, &cut)) {
    out->Shrink(start);
    return false;
  }
  return true;
}

}  // namespace record
