// agt-collector export: an audit file's entries as CloudEvents envelopes,
// one per line on standard output (forward/cloud_event.h).
#ifndef AGT_COLLECTOR_EXPORT_COMMAND_H_
#define AGT_COLLECTOR_EXPORT_COMMAND_H_

#include "cli_args.h"

namespace export_command {

int Export(const cli_args::ParsedArgs& args);

}  // namespace export_command

#endif  // AGT_COLLECTOR_EXPORT_COMMAND_H_
