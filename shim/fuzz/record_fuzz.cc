// libFuzzer harness: the shim's record builder (record::Build). Any argv
// bytes in, one line out that a strict JSON parser (RapidJSON, validating
// UTF-8) reads back: at most kMaxRecordSize bytes, no newline, the keys
// sorted; `binary` is the denied name; `argc` and `argv` match the input
// (only trailing arguments dropped, and only with "truncated":true); every
// argument with no secret, valid UTF-8 and not cut comes back byte for byte.
#include <fuzzer/FuzzedDataProvider.h>
#include <rapidjson/document.h>
#include <rapidjson/encodings.h>
#include <rapidjson/stream.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fixed_buffer.h"
#include "fuzz_check.h"
#include "invocation.h"
#include "record.h"
#include "redact.h"

namespace {

bool IsValidUtf8(std::string_view text) {
  rapidjson::StringStream in(text.data());
  rapidjson::GenericStringBuffer<rapidjson::UTF8<>> sink;
  while (static_cast<std::size_t>(in.Tell()) < text.size()) {
    if (!rapidjson::UTF8<>::Validate(in, sink)) return false;
  }
  return true;
}

std::string_view View(const rapidjson::Value& v) {
  return std::string_view(v.GetString(), v.GetStringLength());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  // C strings, as the kernel hands them over: no NUL inside.
  auto c_string = [&in](std::size_t max) {
    std::string s = in.ConsumeRandomLengthString(max);
    return s.substr(0, s.find('\0'));
  };
  const std::string exec_path = c_string(128);
  const std::string host = c_string(80);
  std::vector<std::string> argv;
  argv.push_back(c_string(128));
  while (in.remaining_bytes() > 0 && argv.size() < 300) argv.push_back(c_string(700));
  std::vector<const char*> pointers;
  for (const std::string& a : argv) pointers.push_back(a.c_str());
  pointers.push_back(nullptr);

  record::Facts facts;
  facts.argc = static_cast<int>(argv.size());
  facts.argv = pointers.data();
  facts.exec_path = exec_path;
  const invocation::Attribution who = invocation::Attribute(exec_path, facts.argc, pointers.data());
  facts.binary = who.binary;
  facts.via = invocation::ViaName(who.via);
  facts.script = who.script;
  facts.tool = who.tool;
  facts.host = host;
  facts.pid = 4242;
  facts.time_sec = static_cast<std::int64_t>(data[0] ^ (size << 24));
  facts.time_nsec = 123456789;
  facts.version = "0.1.0";

  static char room[record::kMaxRecordSize];
  fixed_buffer::Buffer out(room, sizeof room);
  FUZZ_CHECK(record::Build(facts, &out));
  const std::string line(out.view());
  FUZZ_CHECK(line.size() <= record::kMaxRecordSize);
  FUZZ_CHECK(line.find('\n') == std::string::npos);

  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseValidateEncodingFlag>(line.data(), line.size());
  FUZZ_CHECK(!doc.HasParseError() && doc.IsObject());
  std::string_view previous;
  for (auto m = doc.MemberBegin(); m != doc.MemberEnd(); ++m) {
    FUZZ_CHECK(previous < View(m->name));
    previous = View(m->name);
  }
  FUZZ_CHECK(doc.HasMember("binary") && View(doc["binary"]) == facts.binary);
  FUZZ_CHECK(doc["argc"].GetUint64() == argv.size());
  const bool truncated = doc["truncated"].GetBool();
  const rapidjson::Value& got = doc["argv"];
  FUZZ_CHECK(got.Size() == argv.size() - 1 || (truncated && got.Size() < argv.size() - 1));

  redact::Redactor redactor(facts.tool.empty() ? facts.binary : facts.tool);  // as record.cc
  for (std::size_t i = 1; i < argv.size(); ++i) {
    redact::Spans spans;
    redactor.NextArgument(argv[i], &spans);
    if (i - 1 >= got.Size()) continue;  // dropped
    const std::string_view element = View(got[static_cast<rapidjson::SizeType>(i - 1)]);
    // Whether this argument was cut is the field encoder's answer, not a
    // guess from its tail: an argument may itself end in the cut marker.
    static char field_room[record::kMaxFieldSize + 2];
    fixed_buffer::Buffer field(field_room, sizeof field_room);
    bool cut = false;
    FUZZ_CHECK(record::AppendField(argv[i], spans, record::kMaxFieldSize, &field, &cut));
    FUZZ_CHECK(!cut || truncated);
    if (cut) {
      FUZZ_CHECK(
          element.substr(element.size() - std::min(element.size(), record::kCutMarker.size())) ==
          record::kCutMarker);
    }
    if (cut) continue;
    if (spans.count > 0) {
      FUZZ_CHECK(element.find(redact::kMarker) != std::string_view::npos);
    } else if (IsValidUtf8(argv[i])) {
      FUZZ_CHECK(element == argv[i]);
    }
  }
  return 0;
}
