// `status --state-dir DIR`: what a run daemon is doing, for a person, read
// from its state directory and the files that names (run.status, the
// checkpoints, the chain head, the forward positions, the sandbox logs and
// the audit file). Reads only: no signal, no socket, no lock, no write, so
// it never touches or waits on a running daemon.
#ifndef AGT_COLLECTOR_STATUS_COMMAND_H_
#define AGT_COLLECTOR_STATUS_COMMAND_H_

#include "cli_args.h"

namespace status_command {

int Status(const cli_args::ParsedArgs& args);

}  // namespace status_command

#endif  // AGT_COLLECTOR_STATUS_COMMAND_H_
