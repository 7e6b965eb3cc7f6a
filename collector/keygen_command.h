// `keygen`: a new HMAC key file for the chain (see agt-collector(1), KEYS).
#ifndef AGT_COLLECTOR_KEYGEN_COMMAND_H_
#define AGT_COLLECTOR_KEYGEN_COMMAND_H_

#include "cli_args.h"

namespace keygen_command {

int Keygen(const cli_args::ParsedArgs& args);

}  // namespace keygen_command

#endif  // AGT_COLLECTOR_KEYGEN_COMMAND_H_
