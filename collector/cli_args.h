// Command-line options of a subcommand: one table row per option (name,
// value placeholder, help), used both to parse and to print usage.
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
};

struct ParsedArgs {
  std::map<std::string, std::string> values;  // "--key-file" -> "k.bin"; flags -> ""
  std::vector<std::string> positional;
  bool has(const std::string& name) const { return values.count(name) != 0; }
  std::string get(const std::string& name) const {
    const auto it = values.find(name);
    return it == values.end() ? std::string() : it->second;
  }
};

// Parses argv[first..argc): "--opt VALUE", "--opt=VALUE", flags, "--" ends
// options. An unknown or repeated option or a missing value is an error
// (with a did-you-mean hint when one option is close).
bool Parse(int argc, char** argv, int first, const OptionRow* rows, size_t row_count,
           ParsedArgs* out, std::string* err);

// "  --key-file K   help" lines for usage output.
std::string OptionsHelp(const OptionRow* rows, size_t row_count);

}  // namespace cli_args

#endif  // AGT_COLLECTOR_CLI_ARGS_H_
