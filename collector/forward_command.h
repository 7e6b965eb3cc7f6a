// agt-collector forward: sends every entry of the audit file, in chain
// order, to one destination, at least once (forward/*.h, agt-collector(1)).
#ifndef AGT_COLLECTOR_FORWARD_COMMAND_H_
#define AGT_COLLECTOR_FORWARD_COMMAND_H_

#include <string>
#include <vector>

#include "cli_args.h"

namespace forward_command {

int Forward(const cli_args::ParsedArgs& args);

}  // namespace forward_command

#endif  // AGT_COLLECTOR_FORWARD_COMMAND_H_
