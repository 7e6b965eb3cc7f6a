#include "self_commands.h"

#include "denied_names.h"
#include "did_you_mean.h"
#include "image_tool.h"
#include "invocation.h"
#include "version.h"

namespace self_commands {
namespace {

constexpr std::string_view kErrorPrefix = "agt-deny-shim: error: ";

int Help(int argc, char** argv, const Io& io);
int Version(int argc, char** argv, const Io& io);
int List(int argc, char** argv, const Io& io);
int Explain(int argc, char** argv, const Io& io);

// The image tool writes to fds 1 and 2 itself: flush ours first so output
// stays in order.
template <int (*Tool)(int, char**)>
int ImageTool(int argc, char** argv, const Io& io) {
  io.out->Flush();
  io.err->Flush();
  return Tool(argc, argv);
}

constexpr std::array<Command, 8> kCommands = {{
    {"--help", "", "show this help", Help},
    {"--version", "", "print the version", Version},
    {"list", "", "list the default denied names with their category", List},
    {"explain", "NAME", "tell whether NAME is denied by default, and why", Explain},
    {"install", "[ARGS...]", "link the shim over denied names (real paths and pinned PATH dir)",
     ImageTool<image_tool::Install>},
    {"allow", "[ARGS...]", "link allowed commands into the pinned PATH dir",
     ImageTool<image_tool::Allow>},
    {"harden", "[ARGS...]", "strip exec bits off shells, interpreters and encoders",
     ImageTool<image_tool::Harden>},
    {"verify", "[ARGS...]", "audit an image root; exit 1 listing each drift",
     ImageTool<image_tool::Verify>},
}};

int UsageError(const Io& io, std::string_view what, std::string_view word, std::string_view hint) {
  *io.err << kErrorPrefix << what;
  if (!word.empty()) *io.err << " '" << word << "'";
  if (!hint.empty()) *io.err << " (did you mean '" << hint << "'?)";
  *io.err << "\nTry 'agt-deny-shim --help'.\n";
  return kExitUsage;
}

bool NoArguments(int argc, char** argv, const Io& io, std::string_view command) {
  if (argc == 0) return true;
  *io.err << kErrorPrefix << command << ": unexpected argument";
  std::string_view arg = argv[0];
  if (invocation::IsPlausibleName(arg)) *io.err << " '" << arg << "'";
  *io.err << "\nTry 'agt-deny-shim --help'.\n";
  return false;
}

void PrintUsage(printer::Printer& out) {
  out << "usage: agt-deny-shim COMMAND [ARGS...]\n"
         "       NAME [ARGS...]   (run under any other name: deny NAME)\n\n"
         "Run under any name but its own (a link such as /usr/bin/curl), agt-deny-shim\n"
         "denies the command: it writes one command_denied JSON record and the line\n"
         "\"agt-sandbox: command denied: NAME (blocked by sandbox command denylist)\"\n"
         "to stderr in one write, appends the record to $AGT_DENIED_LOG when set, and\n"
         "exits 126. The real command never runs.\n\n"
         "commands:\n";
  for (const Command& c : kCommands) {
    out << "  ";
    std::size_t width = c.name.size() + (c.args.empty() ? 0 : 1 + c.args.size());
    out << c.name;
    if (!c.args.empty()) out << " " << c.args;
    for (std::size_t i = width; i < 20; ++i) out << " ";
    out << " " << c.help << "\n";
  }
  out << "\nSee agt-deny-shim(1) for the record, the redaction and truncation rules.\n";
}

int Help(int argc, char** argv, const Io& io) {
  if (!NoArguments(argc, argv, io, "--help")) return kExitUsage;
  PrintUsage(*io.out);
  return kExitOk;
}

int Version(int argc, char** argv, const Io& io) {
  if (!NoArguments(argc, argv, io, "--version")) return kExitUsage;
  *io.out << "agt-deny-shim " << version::kVersion << "\n";
  return kExitOk;
}

int List(int argc, char** argv, const Io& io) {
  if (!NoArguments(argc, argv, io, "list")) return kExitUsage;
  for (const denied_names::Row& row : denied_names::kRows) {
    io.out->Padded(row.name, 18);
    io.out->Padded(denied_names::CategoryName(row.category), 17);
    *io.out << row.help << "\n";
  }
  return kExitOk;
}

int Explain(int argc, char** argv, const Io& io) {
  if (argc != 1) return UsageError(io, "explain: expected exactly one NAME", "", "");
  std::string_view name = argv[0];
  if (!invocation::IsPlausibleName(name)) {
    *io.err << kErrorPrefix << "explain: not a command name (1-64 bytes of A-Z a-z 0-9 . _ + -)\n";
    return kExitUsage;
  }
  const denied_names::Row* row = denied_names::Find(name);
  if (row == nullptr) {
    std::string_view hint =
        did_you_mean::Closest(name, denied_names::kRows.size(),
                              [](std::size_t i) { return denied_names::kRows[i].name; });
    *io.err << kErrorPrefix << "explain: '" << name << "' is not a default denied name";
    if (!hint.empty()) *io.err << " (did you mean '" << hint << "'?)";
    *io.err << "\n";
    return kExitFailure;
  }
  *io.out << row->name
          << ": denied by default (category: " << denied_names::CategoryName(row->category) << ")\n"
          << "  " << row->help << "\n"
          << "Run as '" << row->name
          << "' (by name or at its real path), agt-deny-shim writes a command_denied\n"
             "record to stderr and to the collector's socket $AGT_DENIED_SOCKET (or, when\n"
             "that does not acknowledge it, $AGT_DENIED_LOG) and exits 126; the real command\n"
             "never runs.\n";
  return kExitOk;
}

}  // namespace

const Command* Find(std::string_view name) {
  for (const Command& c : kCommands) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::size_t CommandCount() { return kCommands.size(); }
const Command& CommandAt(std::size_t i) { return kCommands[i]; }

int Run(int argc, char** argv, int out_fd, int err_fd) {
  printer::Printer out(out_fd);
  printer::Printer err(err_fd);
  Io io{&out, &err};
  if (argc < 1) {
    PrintUsage(err);
    return kExitUsage;
  }
  std::string_view name = argv[0];
  const Command* command = Find(name);
  if (name == "-h" || name == "help") command = Find("--help");
  if (command == nullptr) {
    std::string_view hint = did_you_mean::Closest(name, kCommands.size(),
                                                  [](std::size_t i) { return kCommands[i].name; });
    // Echo only a plausible word: the argument may hold anything.
    std::string_view shown = invocation::IsPlausibleName(name) ? name : std::string_view();
    bool option = !name.empty() && name[0] == '-';
    return UsageError(io, option ? "unknown option" : "unknown command", shown, hint);
  }
  int status = command->run(argc - 1, argv + 1, io);
  if (!out.Flush() && status == kExitOk) {
    err << kErrorPrefix << "write to stdout failed\n";
    status = kExitFailure;
  }
  return status;
}

}  // namespace self_commands
