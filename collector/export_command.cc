#include "export_command.h"

#include <fcntl.h>
#include <stdio.h>

#include <string>

#include "audit_verifier.h"
#include "exit_status.h"
#include "forward/cloud_event.h"
#include "logs.h"
#include "tail/line_reader.h"
#include "unique_fd.h"

namespace export_command {

int Export(const cli_args::ParsedArgs& args) {
  if (args.positional.size() != 1) {
    logs::Error("needs exactly one FILE");
    return exit_status::kUsage;
  }
  const std::string format = args.has("--format") ? args.get("--format") : "cloudevents";
  if (format != "cloudevents") {
    logs::Error("--format: \"" + format + "\" is not a known format (cloudevents)");
    return exit_status::kUsage;
  }
  const std::string& path = args.positional[0];
  const unique_fd::UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd.ok()) {
    logs::Error(logs::ErrnoReason("open", path));
    return exit_status::kNoInput;
  }
  line_reader::Reader reader(64 << 10, audit_verifier::kMaxEntryLineBytes);
  line_reader::Position pos;
  uint64_t line_number = 0, bad = 0;
  std::string envelope, why, err;
  const auto r = reader.Read(
      fd.get(), &pos,
      [&](const line_reader::Item& item) {
        ++line_number;
        if (item.kind == line_reader::Item::Kind::kLine &&
            cloud_event::FromEntryLine(item.line, &envelope, &why)) {
          envelope.push_back('\n');
          fwrite(envelope.data(), 1, envelope.size(), stdout);
          return true;
        }
        ++bad;
        logs::Rejected(path + ":" + std::to_string(line_number),
                       item.kind == line_reader::Item::Kind::kLine
                           ? why
                           : line_reader::Describe(item.rejection));
        return true;
      },
      &err);
  if (r == line_reader::ReadResult::kError || fflush(stdout) != 0 || ferror(stdout)) {
    logs::Error(r == line_reader::ReadResult::kError
                    ? path + ": " + err
                    : std::string("writing standard output failed"));
    return exit_status::kIoErr;
  }
  return bad > 0 ? exit_status::kDataErr : exit_status::kOk;
}

}  // namespace export_command
