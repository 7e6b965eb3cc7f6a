#include "image_options.h"

#include <stdlib.h>

#include <array>
#include <cstddef>

#include "denied_names.h"
#include "image_root.h"
#include "image_strip_names.h"

namespace image_options {
namespace {

enum class Opt { kRoot, kShim, kNames, kDenied, kAllowed, kStripped, kHelp };

constexpr unsigned Bit(Subcommand sub) { return 1u << static_cast<unsigned>(sub); }
constexpr unsigned kAll = Bit(Subcommand::kInstall) | Bit(Subcommand::kAllow) |
                          Bit(Subcommand::kHarden) | Bit(Subcommand::kVerify);
constexpr unsigned kChangers =
    Bit(Subcommand::kInstall) | Bit(Subcommand::kAllow) | Bit(Subcommand::kHarden);

struct OptionRow {
  std::string_view name;
  Opt id;
  std::string_view value;  // "" for a flag
  unsigned subcommands;
  std::string_view help;
};

constexpr std::array<OptionRow, 7> kOptions = {{
    {"--root", Opt::kRoot, "DIR", kAll,
     "the image root; every path is resolved inside it, symlinks included (required)"},
    {"--shim", Opt::kShim, "PATH", kAll,
     "the shim's absolute path inside the image (default /usr/local/lib/agt/agt-deny-shim)"},
    {"--names", Opt::kNames, "LIST", kChangers, "space-separated command names; default"},
    {"--denied", Opt::kDenied, "LIST", Bit(Subcommand::kVerify),
     "names that must be the shim (default: $DENIED_LOGGED_BIN_NAMES, else the default denied "
     "set)"},
    {"--allowed", Opt::kAllowed, "LIST", Bit(Subcommand::kVerify),
     "names allowed in the pinned directory (default: $ALLOWED_BIN_NAMES, else none)"},
    {"--stripped", Opt::kStripped, "LIST", Bit(Subcommand::kInstall) | Bit(Subcommand::kVerify),
     "names harden disables; install links them to the shim too, so a call is logged; verify "
     "checks "
     "both (default: $STRIP_EXEC_BIN_NAMES, else the default strip set)"},
    {"--help", Opt::kHelp, "", kAll, "this help"},
}};

struct SubcommandRow {
  Subcommand sub;
  std::string_view name;
  std::string_view summary;
  std::string_view names_from;  // how --names defaults
};

constexpr std::array<SubcommandRow, 4> kSubcommands = {{
    {Subcommand::kInstall, "install",
     "link the shim over denied and stripped names at every real path and in the pinned directory; "
     "strip the exec bits off other copies of them anywhere in the root",
     "$DENIED_LOGGED_BIN_NAMES, else the default denied set (agt-deny-shim list)"},
    {Subcommand::kAllow, "allow",
     "link allowed commands into the pinned directory /usr/local/sandbox-bin",
     "$ALLOWED_BIN_NAMES (required)"},
    {Subcommand::kHarden, "harden",
     "strip the exec bits off shells, interpreters and encoders (following symlinks)",
     "$STRIP_EXEC_BIN_NAMES, else the default strip set"},
    {Subcommand::kVerify, "verify",
     "audit a root: denied and stripped names are the shim, the pinned directory holds only "
     "allowed "
     "names and shim links, no other executable copy of them is anywhere in the root, ownership "
     "and "
     "directory modes",
     ""},
}};

const SubcommandRow& Row(Subcommand sub) { return kSubcommands[static_cast<std::size_t>(sub)]; }

// Edit distance, capped (names are short; this only ranks suggestions).
std::size_t Distance(std::string_view a, std::string_view b) {
  constexpr std::size_t kMax = 32;
  if (a.size() >= kMax || b.size() >= kMax) return kMax;
  std::size_t row[kMax + 1];
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      std::size_t best = diag + cost;
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[b.size()];
}

void Write(int fd, std::string_view a, std::string_view b = {}, std::string_view c = {},
           std::string_view d = {}) {
  image_text::Text t;
  t.Add(a, b, c, d);
  t.WriteLine(fd);
}

}  // namespace

std::string_view Name(Subcommand sub) { return Row(sub).name; }

bool Parse(Subcommand sub, int argc, char** argv, Options* out, image_text::Text* err) {
  out->shim = image_root::kDefaultShimPath;
  for (int i = 0; i < argc; ++i) {
    std::string_view arg(argv[i]);
    std::string_view key = arg;
    std::string_view inline_value;
    bool has_inline = false;
    std::size_t eq = arg.find('=');
    if (arg.size() > 2 && arg[0] == '-' && arg[1] == '-' && eq != std::string_view::npos) {
      key = image_text::Slice(arg, 0, eq);
      inline_value = image_text::Slice(arg, eq + 1);
      has_inline = true;
    }
    const OptionRow* row = nullptr;
    for (const OptionRow& r : kOptions) {
      if (r.name == key && (r.subcommands & Bit(sub))) row = &r;
    }
    if (row == nullptr) {
      err->Add(arg.size() > 0 && arg[0] == '-' ? "unknown option " : "unexpected argument ",
               image_text::Quoted{arg}, " for ", Name(sub));
      const OptionRow* best = nullptr;
      std::size_t best_distance = 3;  // suggest only close matches
      for (const OptionRow& r : kOptions) {
        if (!(r.subcommands & Bit(sub))) continue;
        std::size_t d = Distance(key, r.name);
        if (d < best_distance) {
          best = &r;
          best_distance = d;
        }
      }
      if (best != nullptr) err->Add(" (did you mean ", best->name, "?)");
      err->Add("; see agt-deny-shim ", Name(sub), " --help");
      return false;
    }
    std::string_view value;
    if (!row->value.empty()) {
      if (has_inline) {
        value = inline_value;
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        err->Add(row->name, " needs a value (", row->value, ")");
        return false;
      }
    } else if (has_inline) {
      err->Add(row->name, " takes no value");
      return false;
    }
    switch (row->id) {
      case Opt::kRoot:
        if (value.empty()) {
          err->Add("--root is empty");
          return false;
        }
        // A value given as "--root=DIR" points into argv, which is NUL-terminated there too.
        out->root = value.data();
        break;
      case Opt::kShim: out->shim = value; break;
      case Opt::kNames:
        out->names_set = true;
        out->names = value;
        break;
      case Opt::kDenied:
        out->denied_set = true;
        out->denied = value;
        break;
      case Opt::kAllowed:
        out->allowed_set = true;
        out->allowed = value;
        break;
      case Opt::kStripped:
        out->stripped_set = true;
        out->stripped = value;
        break;
      case Opt::kHelp: out->help = true; break;
    }
  }
  if (!out->help && out->root == nullptr) {
    err->Add("--root DIR is required; see agt-deny-shim ", Name(sub), " --help");
    return false;
  }
  return true;
}

void WriteUsage(Subcommand sub, int fd) {
  const SubcommandRow& s = Row(sub);
  Write(fd, "usage: agt-deny-shim ", s.name, " --root DIR [options]");
  Write(fd, "  ", s.summary);
  for (const OptionRow& r : kOptions) {
    if (!(r.subcommands & Bit(sub))) continue;
    image_text::Text t;
    t.Add("  ", r.name);
    if (!r.value.empty()) t.Add(" ", r.value);
    t.Add("\n      ", r.help);
    if (r.id == Opt::kNames) t.Add(": ", s.names_from);
    t.WriteLine(fd);
  }
  Write(fd, "exit status: 0 done, 1 failed (verify: drift found), 2 usage error");
}

bool LoadList(bool option_set, std::string_view option_value, std::string_view option_name,
              const char* env_name, Default fallback, image_names::NameList* out, Source* source,
              image_text::Text* err, image_names::Aliases aliases) {
  if (option_set) {
    if (image_names::IsBlank(option_value)) {
      err->Add(option_name, " is empty");
      return false;
    }
    *source = Source::kOption;
    return image_names::ParseNames(option_value, option_name, out, err, aliases);
  }
  const char* env = getenv(env_name);
  if (env != nullptr && !image_names::IsBlank(env)) {
    *source = Source::kEnvironment;
    return image_names::ParseNames(env, env_name, out, err, aliases);
  }
  *source = Source::kDefault;
  switch (fallback) {
    case Default::kDeniedSet:
      for (const denied_names::Row& row : denied_names::kRows) out->Add(row.name);
      return true;
    case Default::kStripSet:
      for (const image_strip_names::Row& row : image_strip_names::kRows) out->Add(row.name);
      return true;
    case Default::kEmpty: return true;
    case Default::kRequired: break;
  }
  err->Add("no names: pass ", option_name, " LIST or set ", env_name);
  return false;
}

}  // namespace image_options
