#include "check_config_command.h"

#include <stdio.h>

#include <string>
#include <vector>

#include "config.h"
#include "exit_status.h"
#include "key_file.h"
#include "logs.h"

namespace check_config_command {

int CheckConfig(const cli_args::ParsedArgs& args) {
  if (args.has("--keys")) {
    size_t n = 0;
    const config::SchemaRow* rows = config::Schema(&n);
    for (size_t i = 0; i < n; ++i) printf("%-26s %s\n", rows[i].key, rows[i].help);
    return exit_status::kOk;
  }
  if (args.positional.size() != 1) {
    logs::Error("needs exactly one config file");
    return exit_status::kUsage;
  }
  const std::string& path = args.positional[0];
  config::Config cfg;
  std::vector<std::string> warnings;
  std::string err;
  if (!config::LoadConfig(path, &cfg, &warnings, &err)) {
    logs::Error(err);
    return exit_status::kConfig;
  }
  if (!cfg.key_file.empty()) {
    std::string key;
    if (!key_file::ReadKeyFile(cfg.key_file, &key, &err)) {
      logs::Error(err);
      return exit_status::kConfig;
    }
    key_file::LintKeyFile(cfg.key_file, key, &warnings);
  }
  for (const std::string& w : warnings) logs::Warning(w);
  printf("%s: valid (%zu sources, %zu watch patterns, %zu forward destinations, %zu warnings)\n",
         path.c_str(), cfg.sources.size(), cfg.watch.size(), cfg.forward.size(), warnings.size());
  return exit_status::kOk;
}

}  // namespace check_config_command
