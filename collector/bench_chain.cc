// Baseline for scripts/bench-collector: the bare SHA-256 + HMAC chain over
// the canonical payloads of an existing audit file, with no parsing,
// validation or I/O inside the timed loop.
//   collector-bench-chain AUDIT.jsonl   prints "chain: N records in S s: R records/s"
#include <stdio.h>
#include <time.h>

#include <fstream>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "canonical_json.h"
#include "chain_signer.h"

namespace {

double Now() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// The payload text of one audit line (the 14 hashed fields, canonical).
bool Payload(const std::string& line, std::string* payload) {
  rapidjson::Document doc;
  doc.Parse(line.data(), line.size());
  if (!doc.IsObject()) return false;
  static const char* const kPayloadKeys[] = {
      "action", "agent_did", "data", "entry_id", "event_type", "matched_rule", "outcome",
      "policy_decision", "previous_hash", "resource", "session_id", "target_did", "timestamp",
      "trace_id"};
  rapidjson::Document sub(rapidjson::kObjectType);
  for (const char* k : kPayloadKeys) {
    if (!doc.HasMember(k)) return false;
    sub.AddMember(rapidjson::StringRef(k), rapidjson::Value(doc[k], sub.GetAllocator()),
                  sub.GetAllocator());
  }
  std::string err;
  payload->clear();
  return canonical_json::AppendValue(sub, payload, &err);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: collector-bench-chain AUDIT.jsonl\n");
    return 64;
  }
  std::ifstream in(argv[1]);
  std::vector<std::string> payloads;
  std::string line, payload;
  while (std::getline(in, line)) {
    if (!Payload(line, &payload)) {
      fprintf(stderr, "collector-bench-chain: error: %s: line %zu is not an audit entry\n", argv[1],
              payloads.size() + 1);
      return 65;
    }
    payloads.push_back(payload);
  }
  chain_signer::Hasher hasher;
  std::string err, hash, mac;
  if (!hasher.Init("bench key of thirty-two bytes!!!", &err)) {
    fprintf(stderr, "%s\n", err.c_str());
    return 70;
  }
  size_t checksum = 0;
  const double start = Now();
  for (const std::string& p : payloads) {
    hasher.Sha256Hex(p, &hash, &err);
    hasher.HmacHex(hash, &mac, &err);
    checksum += static_cast<unsigned char>(mac[0]);
  }
  const double seconds = Now() - start;
  printf("chain: %zu records in %.3f s: %.0f records/s (checksum %zu)\n", payloads.size(), seconds,
         static_cast<double>(payloads.size()) / seconds, checksum);
  return 0;
}
