#include "cli_args.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "did_you_mean.h"

namespace cli_args {
namespace {

const OptionRow* Find(const OptionRow* rows, size_t n, unsigned command, const std::string& name) {
  for (size_t i = 0; i < n; ++i) {
    if ((rows[i].commands & command) != 0 && name == rows[i].name) return &rows[i];
  }
  return nullptr;
}

std::string Hint(const OptionRow* rows, size_t n, unsigned command, const std::string& name) {
  std::vector<std::string_view> names;
  for (size_t i = 0; i < n; ++i) {
    if ((rows[i].commands & command) != 0) names.emplace_back(rows[i].name);
  }
  const std::string_view best = did_you_mean::Closest(name, names);
  return best.empty() ? "" : " (did you mean " + std::string(best) + "?)";
}

bool IsOption(const char* arg) { return strncmp(arg, "--", 2) == 0; }

}  // namespace

bool Parse(int argc, char** argv, int first, const OptionRow* rows, size_t row_count,
           unsigned command, ParsedArgs* out, std::string* err) {
  bool options_done = false;
  for (int i = first; i < argc; ++i) {
    const std::string arg = argv[i];
    if (options_done || arg.size() < 2 || arg.compare(0, 2, "--") != 0) {
      if (!options_done && arg.size() > 1 && arg[0] == '-') {
        *err = "unknown option " + arg;
        return false;
      }
      out->positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const OptionRow* row = Find(rows, row_count, command, name);
    if (row == nullptr) {
      *err = "unknown option " + name + Hint(rows, row_count, command, name);
      return false;
    }
    if (out->has(name) && !row->many) {
      *err = "option " + name + " given twice";
      return false;
    }
    std::vector<std::string>& values = out->values[name];
    if (row->value_name == nullptr) {
      if (eq != std::string::npos) {
        *err = "option " + name + " takes no value";
        return false;
      }
      values.emplace_back();
      continue;
    }
    if (eq != std::string::npos) {
      values.push_back(arg.substr(eq + 1));
    } else if (i + 1 < argc) {
      values.push_back(argv[++i]);
      while (row->many && i + 1 < argc && !IsOption(argv[i + 1])) values.push_back(argv[++i]);
    } else {
      *err = "option " + name + " needs a value (" + row->value_name + ")";
      return false;
    }
    for (const std::string& v : values) {
      if (v.empty()) {
        *err = "option " + name + " needs a non-empty value";
        return false;
      }
    }
  }
  return true;
}

std::string OptionsHelp(const OptionRow* rows, size_t row_count, unsigned command) {
  const auto left = [](const OptionRow& row) {
    return std::string(row.name) + (row.value_name ? std::string(" ") + row.value_name : "");
  };
  size_t width = 0;
  for (size_t i = 0; i < row_count; ++i) {
    if ((rows[i].commands & command) != 0) width = std::max(width, left(rows[i]).size());
  }
  std::string out;
  for (size_t i = 0; i < row_count; ++i) {
    if ((rows[i].commands & command) == 0) continue;
    const std::string l = left(rows[i]);
    out += "  " + l + std::string(width - l.size() + 2, ' ') + rows[i].help + "\n";
  }
  return out;
}

}  // namespace cli_args
