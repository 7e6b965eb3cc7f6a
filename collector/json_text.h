// The one way the collector parses a JSON text it holds in memory: every
// byte as given, nothing skipped.
//
// Document::Parse(str, len) wraps the text in an EncodedInputStream whose
// BOM skip drops a leading 0xEF, 0xBB and 0xBF each on its own, so
// "\xbb995" reads as 995 while a strict reader refuses it; and RapidJSON
// takes a NUL byte for the end of the text, so "{}\0anything" reads as {}.
// A plain MemoryStream has no BOM skip, and a NUL anywhere is refused here.
// (The audit-file verifier has its own reading, in audit_verifier.cc.)
#ifndef AGT_COLLECTOR_JSON_TEXT_H_
#define AGT_COLLECTOR_JSON_TEXT_H_

#include <rapidjson/document.h>
#include <rapidjson/memorystream.h>

#include <string_view>

namespace json_text {

// Parses `text` into *doc with kFlags; false when it is not one JSON text
// (doc->HasParseError() then says where, except for a NUL byte).
template <unsigned kFlags>
bool Parse(std::string_view text, rapidjson::Document* doc) {
  rapidjson::MemoryStream stream(text.data(), text.size());
  doc->ParseStream<kFlags, rapidjson::UTF8<>>(stream);
  return !doc->HasParseError() && text.find('\0') == std::string_view::npos;
}

}  // namespace json_text

#endif  // AGT_COLLECTOR_JSON_TEXT_H_
