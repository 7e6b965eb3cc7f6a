#include "keygen_command.h"

#include <string>

#include "exit_status.h"
#include "key_file.h"
#include "logs.h"

namespace keygen_command {

int Keygen(const cli_args::ParsedArgs& args) {
  if (!args.positional.empty()) {
    logs::Error("unexpected argument \"" + args.positional.front() + "\"");
    return exit_status::kUsage;
  }
  const std::string out = args.get("--out");
  if (out.empty()) {
    logs::Error("--out FILE is required");
    return exit_status::kUsage;
  }
  std::string err;
  switch (key_file::WriteNewKeyFile(out, &err)) {
    case key_file::NewKeyResult::kWritten:
      // The path and size only: the key itself is never printed.
      logs::Note("wrote a new " + std::to_string(key_file::kRecommendedKeyBytes) + "-byte key to " +
                 out + " (mode 0600)");
      return exit_status::kOk;
    case key_file::NewKeyResult::kExists:
      logs::Error(err + " (refusing to overwrite a key: move it away first)");
      return exit_status::kCantCreate;
    case key_file::NewKeyResult::kFailed: break;
  }
  logs::Error(err);
  return exit_status::kCantCreate;
}

}  // namespace keygen_command
