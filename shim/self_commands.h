// agt-deny-shim run as itself: one table of subcommands, each row holding its
// name, arguments, help line and handler; usage is generated from it.
#ifndef AGT_DENY_SHIM_SELF_COMMANDS_H_
#define AGT_DENY_SHIM_SELF_COMMANDS_H_

#include <array>
#include <cstddef>
#include <string_view>

#include "printer.h"

namespace self_commands {

// Exit statuses of self mode.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

struct Io {
  printer::Printer* out;
  printer::Printer* err;
};

struct Command {
  std::string_view name;
  std::string_view args;  // argument synopsis for the usage text
  std::string_view help;
  int (*run)(int argc, char** argv, const Io& io);  // argv: after the name
};

// The command called `name`, or nullptr.
const Command* Find(std::string_view name);

// The commands in table order.
std::size_t CommandCount();
const Command& CommandAt(std::size_t i);

// Runs `argv[0]` (the subcommand) with the rest; returns the exit status.
int Run(int argc, char** argv, int out_fd, int err_fd);

}  // namespace self_commands

#endif  // AGT_DENY_SHIM_SELF_COMMANDS_H_
