// The command line of agt-collector: one option table for the program (nsjail's
// custom_opts[]), a row per option and subcommand that takes it, with its help
// in the row; one parser walks it, and usage is printed from it.
#ifndef AGT_COLLECTOR_CLI_ARGS_H_
#define AGT_COLLECTOR_CLI_ARGS_H_

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace cli_args {

struct OptionRow {
  const char* name;        // "--key-file"
  const char* value_name;  // "K", or nullptr for a flag without a value
  const char* help;
  unsigned commands;  // the subcommands that take it: a bit each (collector_main.cc)
  // Repeatable, and "--watch P1 P2 ..." takes every word up to the next
  // "--" option (the "--watch=P" form takes one).
  bool many = false;
};

struct ParsedArgs {
  // "--key-file" -> {"k.bin"}; flags -> {""}; a `many` option -> every value.
  std::map<std::string, std::vector<std::string>> values;
  std::vector<std::string> positional;
  bool has(const std::string& name) const { return values.count(name) != 0; }
  std::string get(const std::string& name) const {
    const auto it = values.find(name);
    return it == values.end() ? std::string() : it->second.front();
  }
  std::vector<std::string> all(const std::string& name) const {
    const auto it = values.find(name);
    return it == values.end() ? std::vector<std::string>() : it->second;
  }
};

// Parses argv[first..argc) against the rows whose `commands` has the bit
// `command`: "--opt VALUE", "--opt=VALUE", flags, "--" ends options. An
// unknown or repeated option or a missing value is an error (with a
// did-you-mean hint when one option is close); *err is a bare reason.
bool Parse(int argc, char** argv, int first, const OptionRow* rows, size_t row_count,
           unsigned command, ParsedArgs* out, std::string* err);

// "  --key-file K   help" lines of the rows `command` takes, for usage output.
std::string OptionsHelp(const OptionRow* rows, size_t row_count, unsigned command);

}  // namespace cli_args

#endif  // AGT_COLLECTOR_CLI_ARGS_H_
