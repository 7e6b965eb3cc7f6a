// `agt-collector run`: the daemon mode. Tails every sandbox log that a
// --watch pattern matches and writes each record into the signed audit file
// exactly once (see tail/tail_engine.h), plus a syslog notice per entry.
#ifndef AGT_COLLECTOR_RUN_COMMAND_H_
#define AGT_COLLECTOR_RUN_COMMAND_H_

#include "cli_args.h"

namespace run_command {

// Returns an exit status (exit_status.h): 0 after SIGTERM or SIGINT once
// in-flight work is durable.
int Run(const cli_args::ParsedArgs& args);

}  // namespace run_command

#endif  // AGT_COLLECTOR_RUN_COMMAND_H_
