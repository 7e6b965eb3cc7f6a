// libFuzzer harness: the redaction rules through redact.h's public entry
// points (Redactor::NextArgument over an argv, Standalone on one text).
// Properties: spans are sorted, inside the text, never overlapping or
// touching, at most kMaxSpans; the same argv gives the same spans twice; and
// a value after "--password" is redacted whole, whatever came before it,
// unless it holds none: it names the standard input (kStdinPaths), a
// file's or variable's URL or a file's path after '@' (where the secret is
// read from), or it is a flag's value or a mechanism (kFlagValues), or a
// lone one-letter flag (psql --password -h: the option asks for one).
#include <fuzzer/FuzzedDataProvider.h>

#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "redact.h"
#include "redact_rules.h"

namespace {

void CheckSpans(const redact::Spans& spans, std::string_view text) {
  FUZZ_CHECK(spans.count <= redact::kMaxSpans);
  for (std::size_t i = 0; i < spans.count; ++i) {
    FUZZ_CHECK(spans.items[i].begin < spans.items[i].end);
    FUZZ_CHECK(spans.items[i].end <= text.size());
    if (i > 0) FUZZ_CHECK(spans.items[i - 1].end < spans.items[i].begin);
  }
}

bool SameSpans(const redact::Spans& a, const redact::Spans& b) {
  if (a.count != b.count) return false;
  for (std::size_t i = 0; i < a.count; ++i) {
    if (a.items[i].begin != b.items[i].begin || a.items[i].end != b.items[i].end) return false;
  }
  return true;
}

bool SameIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

template <const auto& kTable>
bool InTable(std::string_view value) {
  for (std::string_view word : kTable) {
    if (SameIgnoringCase(value, word)) return true;
  }
  return false;
}

bool IsFileUrl(std::string_view value) {
  return value.rfind("file:", 0) == 0 || value.rfind("fileb://", 0) == 0;
}

// '@' and a path's start (/, ~, ./, ../, a file's URL) or a key file's
// extension: jenkins-cli -auth @/run/creds.
bool FilePathAfterAt(std::string_view value) {
  if (value.size() < 2 || value[0] != '@') return false;
  value.remove_prefix(1);
  if (value[0] == '/' || value[0] == '~' || value.rfind("./", 0) == 0 ||
      value.rfind("../", 0) == 0 || IsFileUrl(value))
    return true;
  for (std::string_view extension : redact_rules::kKeyFileExtensions) {
    if (value.size() >= extension.size() &&
        SameIgnoringCase(value.substr(value.size() - extension.size()), extension))
      return true;
  }
  return false;
}

bool OneLetterFlag(std::string_view value) {
  return value.size() == 2 && value[0] == '-' &&
         ((value[1] >= 'a' && value[1] <= 'z') || (value[1] >= 'A' && value[1] <= 'Z'));
}

bool HoldsNoSecret(std::string_view value) {
  return InTable<redact_rules::kStdinPaths>(value) || InTable<redact_rules::kFlagValues>(value) ||
         IsFileUrl(value) || value.rfind("env://", 0) == 0 || FilePathAfterAt(value) ||
         OneLetterFlag(value);
}

constexpr std::string_view kBinaries[] = {"curl", "az",      "docker", "git",
                                          "aws",  "kubectl", "npm",    "sh"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const std::string binary(in.PickValueInArray(kBinaries));
  const std::string secret = in.ConsumeRandomLengthString(64);
  std::vector<std::string> argv;
  while (in.remaining_bytes() > 0 && argv.size() < 64)
    argv.push_back(in.ConsumeRandomLengthString(256));

  // One record's redactor at a time, as in the shim: the command a prefix
  // runs (sudo, exec) lives in static storage, the record's, so a second
  // redactor may only start when the first is done with it.
  std::vector<redact::Spans> first_spans(argv.size());
  {
    redact::Redactor first(binary);
    for (std::size_t i = 0; i < argv.size(); ++i) {
      first.NextArgument(argv[i], &first_spans[i]);
      CheckSpans(first_spans[i], argv[i]);
    }
    // Two plain words end whatever the argv left pending (a value, a
    // user:password, a setting's name); then --password makes the next one secret.
    redact::Spans spans;
    for (const std::string_view word : {"x", "y", "--password"}) {
      first.NextArgument(word, &spans);
    }
    first.NextArgument(secret, &spans);
    CheckSpans(spans, secret);
    if (!secret.empty() && !HoldsNoSecret(secret)) {
      FUZZ_CHECK(spans.count == 1 && spans.items[0].begin == 0 &&
                 spans.items[0].end == secret.size());
    }
  }
  redact::Redactor second(binary);
  for (std::size_t i = 0; i < argv.size(); ++i) {
    redact::Spans again;
    second.NextArgument(argv[i], &again);
    FUZZ_CHECK(SameSpans(first_spans[i], again));
  }
  for (const std::string& arg : argv) {
    redact::Spans standalone;
    redact::Standalone(arg, &standalone);
    CheckSpans(standalone, arg);
  }
  return 0;
}
