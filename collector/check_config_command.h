// `check-config`: parse a configuration, report errors and lint warnings.
#ifndef AGT_COLLECTOR_CHECK_CONFIG_COMMAND_H_
#define AGT_COLLECTOR_CHECK_CONFIG_COMMAND_H_

#include "cli_args.h"

namespace check_config_command {

int CheckConfig(const cli_args::ParsedArgs& args);

}  // namespace check_config_command

#endif  // AGT_COLLECTOR_CHECK_CONFIG_COMMAND_H_
