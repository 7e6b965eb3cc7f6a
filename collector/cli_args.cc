#include "cli_args.h"

#include <algorithm>
#include <cstring>

namespace cli_args {
namespace {

const OptionRow* Find(const OptionRow* rows, size_t n, const std::string& name) {
  for (size_t i = 0; i < n; ++i) {
    if (name == rows[i].name) return &rows[i];
  }
  return nullptr;
}

// The option sharing the longest prefix with `name`, if it is a plausible typo.
std::string Hint(const OptionRow* rows, size_t n, const std::string& name) {
  size_t best = 0;
  const char* best_name = nullptr;
  for (size_t i = 0; i < n; ++i) {
    size_t k = 0;
    while (rows[i].name[k] != '\0' && k < name.size() && rows[i].name[k] == name[k]) ++k;
    if (k > best) {
      best = k;
      best_name = rows[i].name;
    }
  }
  return best >= 4 ? std::string(" (did you mean ") + best_name + "?)" : "";
}

}  // namespace

bool Parse(int argc, char** argv, int first, const OptionRow* rows, size_t row_count,
           ParsedArgs* out, std::string* err) {
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
    const OptionRow* row = Find(rows, row_count, name);
    if (row == nullptr) {
      *err = "unknown option " + name + Hint(rows, row_count, name);
      return false;
    }
    if (out->has(name)) {
      *err = "option " + name + " given twice";
      return false;
    }
    if (row->value_name == nullptr) {
      if (eq != std::string::npos) {
        *err = "option " + name + " takes no value";
        return false;
      }
      out->values[name] = "";
      continue;
    }
    if (eq != std::string::npos) {
      out->values[name] = arg.substr(eq + 1);
    } else if (i + 1 < argc) {
      out->values[name] = argv[++i];
    } else {
      *err = "option " + name + " needs a value (" + row->value_name + ")";
      return false;
    }
    if (out->values[name].empty()) {
      *err = "option " + name + " needs a non-empty value";
      return false;
    }
  }
  return true;
}

std::string OptionsHelp(const OptionRow* rows, size_t row_count) {
  size_t width = 0;
  for (size_t i = 0; i < row_count; ++i) {
    width = std::max(width, strlen(rows[i].name) +
                                (rows[i].value_name ? strlen(rows[i].value_name) + 1 : 0));
  }
  std::string out;
  for (size_t i = 0; i < row_count; ++i) {
    std::string left = rows[i].name;
    if (rows[i].value_name) left += std::string(" ") + rows[i].value_name;
    out += "  " + left + std::string(width - left.size() + 2, ' ') + rows[i].help + "\n";
  }
  return out;
}

}  // namespace cli_args
