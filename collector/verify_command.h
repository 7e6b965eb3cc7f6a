// `verify`: check an audit file's chain and signatures like upstream's verifier.
#ifndef AGT_COLLECTOR_VERIFY_COMMAND_H_
#define AGT_COLLECTOR_VERIFY_COMMAND_H_

#include "cli_args.h"

namespace verify_command {

int Verify(const cli_args::ParsedArgs& args);

}  // namespace verify_command

#endif  // AGT_COLLECTOR_VERIFY_COMMAND_H_
