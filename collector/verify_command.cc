#include "verify_command.h"

#include <stdio.h>
#include <sys/stat.h>

#include <string>

#include "audit_verifier.h"
#include "exit_status.h"
#include "key_file.h"
#include "logs.h"
#include "progress.h"

namespace verify_command {

int Verify(const cli_args::ParsedArgs& args) {
  if (!args.has("--key-file") || args.positional.size() != 1) {
    logs::Error("needs --key-file K and exactly one FILE");
    return exit_status::kUsage;
  }
  const std::string& file = args.positional[0];
  std::string key, err;
  if (!key_file::ReadKeyFile(args.get("--key-file"), &key, &err)) {
    logs::Error(err);
    return exit_status::kNoInput;
  }
  audit_verifier::VerifyReport report;
  struct stat st;
  progress::Meter meter("verify " + file,
                        stat(file.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0);
  const audit_verifier::VerifyResult result =
      audit_verifier::VerifyAuditFile(file, key, &report, &err, &meter);
  meter.Finish();  // the status line is gone before the verdict is printed
  switch (result) {
    case audit_verifier::VerifyResult::kValid:
      printf("%s: %llu entries, chain and signatures valid\n", file.c_str(),
             static_cast<unsigned long long>(report.entries));
      return exit_status::kOk;
    case audit_verifier::VerifyResult::kBroken:
      logs::Note(file + ":" + std::to_string(report.broken_line) + ": " + report.broken_reason +
                 " (" + std::to_string(report.entries) + " entries before it verified)");
      return exit_status::kVerifyFailed;
    case audit_verifier::VerifyResult::kCannotOpen:
      logs::Error(err);
      return exit_status::kNoInput;
    case audit_verifier::VerifyResult::kError:
      break;
  }
  logs::Error(err);
  return exit_status::kIoErr;
}

}  // namespace verify_command
