// `import` and `validate`: read shim logs line by line, validate each line,
// and (import) append one signed entry per valid record.
#ifndef AGT_COLLECTOR_IMPORT_COMMAND_H_
#define AGT_COLLECTOR_IMPORT_COMMAND_H_

#include "cli_args.h"

namespace import_command {

// Return an exit status (exit_status.h).
int Import(const cli_args::ParsedArgs& args);
int Validate(const cli_args::ParsedArgs& args);

}  // namespace import_command

#endif  // AGT_COLLECTOR_IMPORT_COMMAND_H_
