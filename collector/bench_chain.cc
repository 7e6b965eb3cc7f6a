// Baseline for scripts/bench-collector: the bare SHA-256 + HMAC chain over
// the canonical payloads of an existing audit file, with no parsing,
// validation or I/O inside the timed loop.
//   collector-bench-chain AUDIT.jsonl
// prints "chain: N records in S s: R records/s (checksum C)", then
// "chain+entry-id: ..." timing all the hashing an import does: the same
// chain, with each payload's entry id taken from the hash state after its
// "data" member (chain_signer.h) on the way.
#include <stdio.h>
#include <time.h>

#include <fstream>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "canonical_json.h"
#include "chain_signer.h"

namespace {

// CPU time of this process, the measure the benchmark uses for the import
// too: on a shared machine wall time would count other processes' turns.
double Now() {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// The payload text of one audit line (the 14 hashed fields, canonical).
bool Payload(const std::string& line, std::string* payload) {
  rapidjson::Document doc;
  doc.Parse(line.data(), line.size());
  if (!doc.IsObject()) return false;
  static const char* const kPayloadKeys[] = {
      "action",    "agent_did",       "data",          "entry_id", "event_type", "matched_rule",
      "outcome",   "policy_decision", "previous_hash", "resource", "session_id", "target_did",
      "timestamp", "trace_id"};
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
  std::vector<size_t> id_cuts;  // where ", \"entry_id\": " starts in each payload
  std::string line, payload;
  while (std::getline(in, line)) {
    // Inside a JSON string a quote is escaped, so this text occurs only as
    // the member separator.
    const size_t cut =
        Payload(line, &payload) ? payload.find(", \"entry_id\": ") : std::string::npos;
    if (cut == std::string::npos) {
      fprintf(stderr, "collector-bench-chain: error: %s: line %zu is not an audit entry\n", argv[1],
              payloads.size() + 1);
      return 65;
    }
    payloads.push_back(payload);
    id_cuts.push_back(cut);
  }
  chain_signer::Hasher hasher;
  std::string err, hash, mac;
  if (!hasher.Init("bench key of thirty-two bytes!!!", &err)) {
    fprintf(stderr, "%s\n", err.c_str());
    return 70;
  }
  size_t checksum = 0;
  double start = Now();
  for (const std::string& p : payloads) {
    hasher.Sha256Hex(p, &hash, &err);
    hasher.HmacHex(hash, &mac, &err);
    checksum += static_cast<unsigned char>(mac[0]);
  }
  double seconds = Now() - start;
  printf("chain: %zu records in %.3f s: %.0f records/s (checksum %zu)\n", payloads.size(), seconds,
         static_cast<double>(payloads.size()) / seconds, checksum);
  checksum = 0;
  char hex[chain_signer::kHashHexLength];
  unsigned char id_digest[32];
  start = Now();
  for (size_t i = 0; i < payloads.size(); ++i) {
    const std::string_view p = payloads[i];
    hasher.Sha256Begin(&err);
    hasher.Sha256Update(p.substr(0, id_cuts[i]), &err);
    hasher.Sha256PeekDigest(id_digest, &err);
    hasher.Sha256Update(p.substr(id_cuts[i]), &err);
    hasher.Sha256FinishHex(hex, &err);
    hasher.HmacHexOf(std::string_view(hex, sizeof hex), hex, &err);
    checksum += static_cast<unsigned char>(hex[0]) + id_digest[0];
  }
  seconds = Now() - start;
  printf("chain+entry-id: %zu records in %.3f s: %.0f records/s (checksum %zu)\n", payloads.size(),
         seconds, static_cast<double>(payloads.size()) / seconds, checksum);
  return 0;
}
