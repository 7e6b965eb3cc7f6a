#include "verify_command.h"

#include <stdio.h>

#include <string>

#include "audit_verifier.h"
#include "exit_status.h"
#include "key_file.h"

namespace verify_command {

const cli_args::OptionRow kVerifyOptions[] = {
    {"--key-file", "K", "file holding the raw HMAC key the entries were signed with"},
};
const size_t kVerifyOptionCount = sizeof kVerifyOptions / sizeof kVerifyOptions[0];

int Verify(const cli_args::ParsedArgs& args) {
  if (!args.has("--key-file") || args.positional.size() != 1) {
    fprintf(stderr, "agt-collector: error: verify: needs --key-file K and exactly one FILE\n");
    return exit_status::kUsage;
  }
  const std::string& file = args.positional[0];
  std::string key, err;
  if (!key_file::ReadKeyFile(args.get("--key-file"), &key, &err)) {
    fprintf(stderr, "%s\n", err.c_str());
    return exit_status::kNoInput;
  }
  audit_verifier::VerifyReport report;
  switch (audit_verifier::VerifyAuditFile(file, key, &report, &err)) {
    case audit_verifier::VerifyResult::kValid:
      printf("%s: %llu entries, chain and signatures valid\n", file.c_str(),
             static_cast<unsigned long long>(report.entries));
      return exit_status::kOk;
    case audit_verifier::VerifyResult::kBroken:
      fprintf(stderr, "agt-collector: %s:%llu: %s (%llu entries before it verified)\n",
              file.c_str(), static_cast<unsigned long long>(report.broken_line),
              report.broken_reason.c_str(), static_cast<unsigned long long>(report.entries));
      return exit_status::kVerifyFailed;
    case audit_verifier::VerifyResult::kCannotOpen:
      fprintf(stderr, "%s\n", err.c_str());
      return exit_status::kNoInput;
    case audit_verifier::VerifyResult::kError:
      break;
  }
  fprintf(stderr, "%s\n", err.c_str());
  return exit_status::kIoErr;
}

}  // namespace verify_command
