// libFuzzer harness: canonical_json::AppendValue, the writer whose bytes
// upstream hashes. For every JSON value it accepts, the output is what
// Python's json.dumps(value, sort_keys=True) gives: printable ASCII only,
// keys sorted by code point at every depth, and it reads back as the same
// value (RapidJSON's deep equality) and writes back as the same bytes.
// tests/fuzz_canonical_vs_python.py holds the corpus to Python itself: with
// AGT_FUZZ_PRINT set, each input's output (or "refused") is printed, one
// line per input file, for it to compare with json.dumps.
#include <rapidjson/document.h>
#include <rapidjson/memorystream.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "canonical_json.h"
#include "fuzz_check.h"

namespace {

constexpr unsigned kParseFlags =
    rapidjson::kParseValidateEncodingFlag | rapidjson::kParseIterativeFlag;

// Keys strictly increasing by bytes (UTF-8 byte order is code point order).
void CheckSorted(const rapidjson::Value& v) {
  if (v.IsObject()) {
    std::string_view previous;
    bool first = true;
    for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
      const std::string_view key(m->name.GetString(), m->name.GetStringLength());
      FUZZ_CHECK(first || previous < key);
      previous = key;
      first = false;
      CheckSorted(m->value);
    }
  } else if (v.IsArray()) {
    for (const rapidjson::Value& item : v.GetArray()) CheckSorted(item);
  }
}

// FNV-1a of the input: the printed line names the input it is about, since
// libFuzzer may run an input more than once or in another order.
uint64_t InputId(const uint8_t* data, size_t size) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  return h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool print = getenv("AGT_FUZZ_PRINT") != nullptr;
  const std::string text(reinterpret_cast<const char*>(data), size);
  // RapidJSON takes a NUL byte for the end of the text (config.cc refuses
  // such text before parsing); what follows one is not the writer's input.
  const bool has_nul = text.find('\0') != std::string::npos;
  rapidjson::Document doc;
  // A plain memory stream: Document::Parse(str, len) wraps the text in an
  // EncodedInputStream that drops a leading 0xEF, 0xBB or 0xBF byte each on
  // its own (its BOM skip), so "\xbb995" read as 995. The writer's input is
  // the text as given.
  rapidjson::MemoryStream stream(text.data(), text.size());
  doc.ParseStream<kParseFlags, rapidjson::UTF8<>>(stream);
  std::string out;
  std::string err;
  if (has_nul || doc.HasParseError() || !canonical_json::AppendValue(doc, &out, &err)) {
    FUZZ_CHECK(has_nul || doc.HasParseError() || !err.empty());
    if (print) printf("%016llx refused\n", static_cast<unsigned long long>(InputId(data, size)));
    return 0;
  }
  if (print) {
    printf("%016llx canonical %s\n", static_cast<unsigned long long>(InputId(data, size)),
           out.c_str());
  }
  for (const char c : out) FUZZ_CHECK(c >= 0x20 && c <= 0x7e);

  rapidjson::Document back;
  back.Parse<kParseFlags>(out.data(), out.size());
  FUZZ_CHECK(!back.HasParseError());
  FUZZ_CHECK(back == doc);
  CheckSorted(back);
  std::string again;
  FUZZ_CHECK(canonical_json::AppendValue(back, &again, &err));
  FUZZ_CHECK(again == out);
  return 0;
}
