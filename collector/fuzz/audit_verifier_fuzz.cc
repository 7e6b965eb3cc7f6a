// libFuzzer harness: the audit-file verifier (audit_verifier.h) on any file,
// keyed with the golden vectors' key so the seed corpus (upstream's own
// output) verifies. Properties: a broken file names a line just after the
// good ones, with a one-line printable reason; a file that verifies has one
// entry per line and fails under another key; and a one-bit flip anywhere in
// a verified file either breaks it or leaves every entry's meaning intact
// (the same last content hash: each line's hash is recomputed and chained).
// And every line reads the same whether it is taken as canonical (its
// payload hashed in place) or checked the general way: verdict, reason and
// what it holds. Read as a receiver's rebuilt file (--drop-duplicates, torn
// writes split off) a break is named in one printable line too, and a file
// that verifies the strict way verifies the same way there.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "audit_verifier.h"
#include "chain_signer.h"
#include "fuzz_check.h"
#include "unique_fd.h"

namespace {

// tests/data/collector-vectors' key.bin (upstream's vectors were signed with it).
constexpr std::string_view kVectorKey("agt-collector-test-key-\0\xff\x10", 26);

audit_verifier::VerifyResult VerifyText(std::string_view text, std::string_view key,
                                        audit_verifier::VerifyReport* report,
                                        bool drop_duplicates = false) {
  const unique_fd::UniqueFd memfd(memfd_create("audit_verifier_fuzz", MFD_CLOEXEC));
  const int fd = memfd.get();
  FUZZ_CHECK(fd >= 0);
  FUZZ_CHECK(write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  std::string err;
  const audit_verifier::VerifyResult result = audit_verifier::VerifyAuditFile(
      "/proc/self/fd/" + std::to_string(fd), key, report, &err, drop_duplicates);
  FUZZ_CHECK(result == audit_verifier::VerifyResult::kValid ||
             result == audit_verifier::VerifyResult::kBroken);
  return result;
}

// Each line of `text` through both of LineChecker's ways.
void CheckBothWays(std::string_view text) {
  chain_signer::Hasher hasher;
  std::string err;
  FUZZ_CHECK(hasher.Init(kVectorKey, &err));
  audit_verifier::LineChecker fast, general(false);
  std::string previous;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(begin, end - begin);
    audit_verifier::LineFacts a, b;
    std::string why_a, why_b;
    const bool ok_a = fast.Check(line, &previous, &hasher, &a, &why_a);
    const bool ok_b = general.Check(line, &previous, &hasher, &b, &why_b);
    FUZZ_CHECK(ok_a == ok_b);
    FUZZ_CHECK(why_a == why_b);
    if (ok_a) {
      FUZZ_CHECK(a.entry_id == b.entry_id && a.content_hash == b.content_hash &&
                 a.previous_hash == b.previous_hash);
      previous = a.content_hash;
    }
    begin = end + 1;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  CheckBothWays(text);
  // As a receiver's rebuilt file: a break is named in one line, and a file
  // that verifies as the collector's own verifies the same way here.
  audit_verifier::VerifyReport rebuilt;
  const bool rebuilt_valid =
      VerifyText(text, kVectorKey, &rebuilt, true) == audit_verifier::VerifyResult::kValid;
  if (!rebuilt_valid) FUZZ_CHECK(IsOnePrintableLine(rebuilt.broken_reason));
  audit_verifier::VerifyReport report;
  if (VerifyText(text, kVectorKey, &report) == audit_verifier::VerifyResult::kBroken) {
    FUZZ_CHECK(report.broken_line == report.entries + 1);
    FUZZ_CHECK(IsOnePrintableLine(report.broken_reason));
    return 0;
  }
  FUZZ_CHECK(rebuilt_valid);
  FUZZ_CHECK(rebuilt.entries == report.entries && rebuilt.torn_writes == 0);
  FUZZ_CHECK(rebuilt.last_content_hash == report.last_content_hash);
  const auto lines = static_cast<uint64_t>(std::count(text.begin(), text.end(), '\n'));
  FUZZ_CHECK(report.entries == lines);
  FUZZ_CHECK(text.empty() || text.back() == '\n');
  if (text.empty()) return 0;

  audit_verifier::VerifyReport other;
  FUZZ_CHECK(VerifyText(text, "another key", &other) == audit_verifier::VerifyResult::kBroken);
  FUZZ_CHECK(other.broken_line == 1);

  // The flipped bit is chosen by the file's own bytes, so it varies with them.
  uint64_t mix = 1469598103934665603ull;
  for (const char c : text) mix = (mix ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  std::string flipped = text;
  flipped[mix % flipped.size()] ^= static_cast<char>(1u << ((mix >> 32) % 8));
  audit_verifier::VerifyReport after;
  if (VerifyText(flipped, kVectorKey, &after) == audit_verifier::VerifyResult::kValid) {
    FUZZ_CHECK(after.entries == report.entries);
    FUZZ_CHECK(after.last_content_hash == report.last_content_hash);
  }
  return 0;
}
