#include "verify_command.h"

#include <stdio.h>
#include <sys/stat.h>

#include <string>

#include <fcntl.h>

#include "audit_tamper.h"
#include "audit_verifier.h"
#include "exit_status.h"
#include "key_file.h"
#include "logs.h"
#include "progress.h"
#include "self_confine.h"
#include "tail/chain_head.h"
#include "unique_fd.h"

namespace verify_command {
namespace {

// verify --state-dir: the chain, and the chain head run keeps beside it.
int VerifyAgainstHead(const std::string& file, const std::string& key,
                      const std::string& state_dir) {
  const unique_fd::UniqueFd state(open(state_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!state.ok()) {
    logs::Error(logs::ErrnoReason("open state directory", state_dir));
    return exit_status::kNoInput;
  }
  chain_head::ChainHead head;
  std::string err;
  switch (chain_head::Load(state.get(), &head, &err)) {
    case chain_head::LoadResult::kLoaded: break;
    case chain_head::LoadResult::kNone:
      logs::Error(state_dir + ": no " + chain_head::kFileName + " (run keeps it there)");
      return exit_status::kNoInput;
    case chain_head::LoadResult::kCorrupt:
      logs::Note(state_dir + "/" + err + ": " + file + " cannot be checked against it");
      return exit_status::kVerifyFailed;
    case chain_head::LoadResult::kError:
      logs::Error(state_dir + "/" + err);
      return exit_status::kIoErr;
  }
  audit_tamper::Finding f;
  if (audit_tamper::Check(file, key, &head, &f, &err) != audit_tamper::CheckResult::kDone) {
    logs::Error(err);
    return exit_status::kIoErr;
  }
  if (audit_tamper::IsTampered(f)) {
    logs::Note(file + ":" + std::to_string(f.line) +
               ": tampered with: " + audit_tamper::Describe(f));
    return exit_status::kVerifyFailed;
  }
  printf(
      "%s: %llu entries, chain and signatures valid; the chain head in %s (%llu entries) "
      "matches%s\n",
      file.c_str(), static_cast<unsigned long long>(f.entries), state_dir.c_str(),
      static_cast<unsigned long long>(head.entries),
      f.torn_bytes > 0 ? " (then an incomplete last line past it: a write a crash cut short)" : "");
  return exit_status::kOk;
}

}  // namespace

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
  // With the key read, FILE (and the state directory) is all that is left
  // to open (self_confine.h).
  landlock_ruleset::Grants grants;
  grants.read_files = {file};
  if (args.has("--state-dir")) grants.read_files.push_back(args.get("--state-dir"));
  const self_confine::Applied applied = self_confine::ConfineOneShot(grants);
  if (!applied.missing.empty())
    logs::Warning("not fully confined: " + self_confine::Describe(applied));
  if (args.has("--state-dir")) return VerifyAgainstHead(file, key, args.get("--state-dir"));
  audit_verifier::VerifyReport report;
  const bool drop = args.has("--drop-duplicates");
  struct stat st;
  progress::Meter meter("verify " + file,
                        stat(file.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0);
  const audit_verifier::VerifyResult result =
      audit_verifier::VerifyAuditFile(file, key, &report, &err, drop, &meter);
  meter.Finish();  // the status line is gone before the verdict is printed
  switch (result) {
    case audit_verifier::VerifyResult::kValid:
      if (drop) {
        printf(
            "%s: %llu entries in %llu chain(s), chain and signatures valid, complete; "
            "%llu duplicate(s) dropped",
            file.c_str(), static_cast<unsigned long long>(report.entries),
            static_cast<unsigned long long>(report.chains),
            static_cast<unsigned long long>(report.duplicates));
        if (report.torn_writes > 0) {
          printf(
              "; %llu write(s) cut short by a receiver's crash dropped (each entry whole after it)",
              static_cast<unsigned long long>(report.torn_writes));
        }
        printf("\n");
      } else {
        printf("%s: %llu entries, chain and signatures valid\n", file.c_str(),
               static_cast<unsigned long long>(report.entries));
      }
      return exit_status::kOk;
    case audit_verifier::VerifyResult::kBroken:
      logs::Note(file + ":" + std::to_string(report.broken_line) + ": " + report.broken_reason +
                 " (" + std::to_string(report.entries) + " entries before it verified)");
      return exit_status::kVerifyFailed;
    case audit_verifier::VerifyResult::kCannotOpen: logs::Error(err); return exit_status::kNoInput;
    case audit_verifier::VerifyResult::kError: break;
  }
  logs::Error(err);
  return exit_status::kIoErr;
}

}  // namespace verify_command
