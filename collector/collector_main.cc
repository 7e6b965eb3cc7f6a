// agt-collector: turns sandbox denial logs into the signed AGT audit chain.
// Subcommands are one table (name, usage, help, options, handler); usage and
// --help are generated from it.
#include <stdio.h>
#include <string.h>

#include <string>

#include "check_config_command.h"
#include "cli_args.h"
#include "exit_status.h"
#include "import_command.h"
#include "verify_command.h"
#if AGT_COLLECTOR_HAS_RUN
#include "run_command.h"
#endif

namespace {

constexpr const char kVersion[] = "0.1.0";

struct Command {
  const char* name;
  const char* usage;
  const char* help;
  const cli_args::OptionRow* options;  // printed by --help; parsed here unless raw_handler
  size_t option_count;
  int (*handler)(const cli_args::ParsedArgs& args);
  // Parses argv itself (argv[0] is the command name); --help is still handled here.
  int (*raw_handler)(int argc, char** argv);
};

const Command kCommands[] = {
    {"import", "import --key-file K --out FILE [--sandbox-id ID | --config C] LOG...",
     "append one signed audit entry per valid record of each LOG",
     import_command::kImportOptions, import_command::kImportOptionCount, import_command::Import,
     nullptr},
    {"validate", "validate [--config C] LOG...", "check every line of each LOG, write nothing",
     import_command::kValidateOptions, import_command::kValidateOptionCount,
     import_command::Validate, nullptr},
    {"verify", "verify --key-file K FILE",
     "check an audit file's hash chain, content hashes and signatures",
     verify_command::kVerifyOptions, verify_command::kVerifyOptionCount, verify_command::Verify,
     nullptr},
    {"check-config", "check-config [--keys] C",
     "check a configuration file (closed vocabulary, lint warnings)",
     check_config_command::kCheckConfigOptions, check_config_command::kCheckConfigOptionCount,
     check_config_command::CheckConfig, nullptr},
#if AGT_COLLECTOR_HAS_RUN
    {"run", run_command::kUsage, run_command::kHelp, run_command::kRunOptions,
     run_command::kRunOptionCount, nullptr, run_command::Main},
#endif
};

void PrintUsage(FILE* out) {
  fprintf(out, "usage: agt-collector COMMAND [OPTION...] [ARG...]\n\ncommands:\n");
  for (const Command& c : kCommands) fprintf(out, "  %-14s %s\n", c.name, c.help);
  fprintf(out,
          "\n  agt-collector COMMAND --help   options of COMMAND\n"
          "  agt-collector --version\n\n"
          "exit status: 0 ok, 1 verification failed, 64 usage, 65 rejected input lines,\n"
          "66 input missing, 70 internal error, 74 I/O error, 78 bad configuration.\n"
          "See agt-collector(1) and agt-audit-jsonl(5).\n");
}

void PrintCommandHelp(const Command& c) {
  printf("usage: agt-collector %s\n%s\n", c.usage, c.help);
  if (c.options != nullptr && c.option_count > 0) {
    printf("\noptions:\n%s", cli_args::OptionsHelp(c.options, c.option_count).c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(stderr);
    return exit_status::kUsage;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    PrintUsage(stdout);
    return exit_status::kOk;
  }
  if (name == "--version") {
    printf("agt-collector %s\n", kVersion);
    return exit_status::kOk;
  }
  for (const Command& c : kCommands) {
    if (name != c.name) continue;
    for (int i = 2; i < argc; ++i) {
      if (strcmp(argv[i], "--") == 0) break;
      if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
        PrintCommandHelp(c);
        return exit_status::kOk;
      }
    }
    if (c.raw_handler != nullptr) return c.raw_handler(argc - 1, argv + 1);
    cli_args::ParsedArgs args;
    std::string err;
    if (!cli_args::Parse(argc, argv, 2, c.options, c.option_count, &args, &err)) {
      fprintf(stderr, "agt-collector: error: %s: %s\nusage: agt-collector %s\n", c.name,
              err.c_str(), c.usage);
      return exit_status::kUsage;
    }
    return c.handler(args);
  }
  fprintf(stderr, "agt-collector: error: unknown command \"%s\" (see agt-collector --help)\n",
          name.c_str());
  return exit_status::kUsage;
}
