// Baseline for scripts/bench-collector: the bare SHA-256 + HMAC chain over
// the canonical payloads of an existing audit file, with no parsing,
// validation or I/O inside the timed loop.
//   collector-bench-chain AUDIT.jsonl [LOG SANDBOX_ID]
// prints "chain: N records in S s: R records/s (checksum C)"; given the LOG
// the file was imported from, a second line "chain+entry-id: ..." times all
// the hashing an import does: the chain plus each line's entry id.
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include <fstream>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "canonical_json.h"
#include "chain_signer.h"
#include "entry_mapper.h"

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
  if (argc != 2 && argc != 4) {
    fprintf(stderr, "usage: collector-bench-chain AUDIT.jsonl [LOG SANDBOX_ID]\n");
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
  // The log's lines with their offsets, for the entry ids.
  std::vector<std::string> log_lines;
  std::vector<uint64_t> offsets;
  entry_mapper::SourceRef source;
  if (argc == 4) {
    struct stat st;
    if (stat(argv[2], &st) != 0) {
      fprintf(stderr, "collector-bench-chain: error: stat %s failed\n", argv[2]);
      return 66;
    }
    source.file = argv[2];
    source.device = static_cast<uint64_t>(st.st_dev);
    source.inode = static_cast<uint64_t>(st.st_ino);
    std::ifstream log(argv[2]);
    uint64_t offset = 0;
    while (std::getline(log, line)) {
      log_lines.push_back(line);
      offsets.push_back(offset);
      offset += line.size() + 1;
    }
    if (log_lines.size() != payloads.size()) {
      fprintf(stderr, "collector-bench-chain: error: %s has %zu lines, %s %zu entries\n", argv[2],
              log_lines.size(), argv[1], payloads.size());
      return 65;
    }
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
  if (argc != 4) return 0;
  checksum = 0;
  start = Now();
  for (size_t i = 0; i < payloads.size(); ++i) {
    source.offset = offsets[i];
    const std::string id = entry_mapper::EntryId(argv[3], source, log_lines[i]);
    hasher.Sha256Hex(payloads[i], &hash, &err);
    hasher.HmacHex(hash, &mac, &err);
    checksum += static_cast<unsigned char>(mac[0]) + static_cast<unsigned char>(id[6]);
  }
  seconds = Now() - start;
  printf("chain+entry-id: %zu records in %.3f s: %.0f records/s (checksum %zu)\n",
         payloads.size(), seconds, static_cast<double>(payloads.size()) / seconds, checksum);
  return 0;
}
