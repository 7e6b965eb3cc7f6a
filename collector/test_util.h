// Helpers shared by the collector's unit tests.
#ifndef AGT_COLLECTOR_TEST_UTIL_H_
#define AGT_COLLECTOR_TEST_UTIL_H_

#include <doctest/doctest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "chain_signer.h"

namespace test_util {

// The golden vectors (tests/data/collector-vectors; meson compiles the path in).
inline std::string VectorsDir() { return AGT_COLLECTOR_VECTORS_DIR; }

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// A small entry, numbered through its data ({"i": i}); its id ends in i % 10.
inline audit_entry::AuditEntryFields SampleEntry(int i) {
  audit_entry::AuditEntryFields f;
  f.entry_id = "audit_" + std::string(15, '0') + std::to_string(i % 10);
  f.timestamp = "2026-06-14T10:00:00+00:00";
  f.event_type = "command_denied";
  f.agent_did = "did:agt:sandbox:sb";
  f.action = "exec";
  f.resource = "curl";
  f.data_canonical = "{\"i\": " + std::to_string(i) + "}";
  f.outcome = "denied";
  f.policy_decision = "deny";
  f.matched_rule = "command_denylist";
  f.sandbox_id = "sb";
  return f;
}

inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t nl = text.find('\n', begin);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(begin, nl - begin));
    begin = nl + 1;
  }
  return lines;
}

// The entry id agt-audit-jsonl(5) documents, computed the long way: the
// payload written on its own (not the signer's in-line path), cut where the
// "entry_id" member starts, SHA-256, the first 16 hex digits. The id is not
// part of the cut text, so any placeholder id gives the same answer.
inline std::string DocumentedEntryId(const audit_entry::AuditEntryFields& fields,
                                     const std::string& previous_hash,
                                     chain_signer::Hasher* hasher) {
  std::string payload, hex, err;
  if (!chain_signer::AppendPayload(fields, previous_hash, &payload)) return "<not UTF-8>";
  const size_t cut = payload.find(", \"entry_id\": ");
  if (cut == std::string::npos || !hasher->Sha256Hex(payload.substr(0, cut), &hex, &err)) {
    return "<no entry_id member>";
  }
  return "audit_" + hex.substr(0, 16);
}

// The seed of a randomised test case: AGT_TEST_SEED when set (to replay a
// failing run), else `fixed` (the same inputs every run). Printed either way,
// so the output of a failure names the seed that found it.
inline uint64_t TestSeed(uint64_t fixed) {
  uint64_t seed = fixed;
  if (const char* text = getenv("AGT_TEST_SEED")) {
    char* end = nullptr;
    seed = strtoull(text, &end, 0);
    if (*text == '\0' || *end != '\0') FAIL("AGT_TEST_SEED is not a number: " << std::string(text));
  }
  MESSAGE("seed " << seed << " (replay: AGT_TEST_SEED=" << seed << ")");
  return seed;
}

// A fresh temporary directory, removed by the destructor.
class TempDir {
 public:
  // `parent`: where (e.g. /dev/shm, for a tmpfs one).
  explicit TempDir(const std::string& parent = "/tmp") {
    std::string tmpl = parent + "/agt-collector-test-XXXXXX";
    const char* made = mkdtemp(&tmpl[0]);
    path_ = made != nullptr ? made : "";  // empty: could not be made
  }
  // Removed in-process: no shell, no quoting, none of a shell's start-up cost.
  ~TempDir() {
    std::error_code ignored;  // a leftover temporary directory fails no test
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace test_util

#endif  // AGT_COLLECTOR_TEST_UTIL_H_
