// `agt-collector run`: the daemon mode. Tails every sandbox log that a
// --watch pattern matches and writes each record into the signed audit file
// exactly once (see tail/tail_engine.h), plus a syslog notice per entry.
#ifndef AGT_COLLECTOR_RUN_COMMAND_H_
#define AGT_COLLECTOR_RUN_COMMAND_H_

#include <cstddef>

#include "cli_args.h"

namespace run_command {

extern const char kUsage[];
extern const char kHelp[];
// The option table (name, value, help): parsed by Main, printed by --help.
extern const cli_args::OptionRow kRunOptions[];
extern const size_t kRunOptionCount;

// argv[0] == "run". Returns an exit status (exit_status.h): 0 after SIGTERM
// or SIGINT once in-flight work is durable.
int Main(int argc, char** argv);

}  // namespace run_command

#endif  // AGT_COLLECTOR_RUN_COMMAND_H_
