#include "import_command.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "audit_file.h"
#include "config.h"
#include "entry_mapper.h"
#include "exit_status.h"
#include "key_file.h"
#include "log_line_reader.h"
#include "record_validator.h"
#include "watch_pattern.h"

namespace import_command {

const cli_args::OptionRow kImportOptions[] = {
    {"--key-file", "K", "file holding the raw HMAC key (or key_file in --config)"},
    {"--out", "FILE", "audit JSONL file to append to (or output in --config)"},
    {"--sandbox-id", "ID", "sandbox id for every LOG (labels otherwise from --config)"},
    {"--config", "C", "configuration: labels per source, limits, key file, output"},
};
const size_t kImportOptionCount = sizeof kImportOptions / sizeof kImportOptions[0];

const cli_args::OptionRow kValidateOptions[] = {
    {"--config", "C", "configuration (for its limits)"},
};
const size_t kValidateOptionCount = sizeof kValidateOptions / sizeof kValidateOptions[0];

namespace {

void PrintError(const std::string& err) { fprintf(stderr, "%s\n", err.c_str()); }

double MonotonicSeconds() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// Shows "LOG: 42%" on a terminal for files big enough to take a while.
class Progress {
 public:
  Progress(const std::string& log, uint64_t size)
      : log_(log), size_(size), enabled_(isatty(STDERR_FILENO) && size >= (16u << 20)) {}
  void Update(uint64_t offset, uint64_t lines) {
    if (!enabled_ || (lines & 0xfff) != 0) return;
    const double now = MonotonicSeconds();
    if (now - last_ < 0.25) return;
    last_ = now;
    fprintf(stderr, "\ragt-collector: %s: %3d%%", log_.c_str(),
            static_cast<int>(offset * 100 / (size_ ? size_ : 1)));
    shown_ = true;
  }
  ~Progress() {
    if (shown_) fprintf(stderr, "\r\033[K");
  }

 private:
  std::string log_;
  uint64_t size_;
  bool enabled_;
  bool shown_ = false;
  double last_ = 0;
};

struct Totals {
  uint64_t lines = 0;
  uint64_t entries = 0;
  uint64_t rejected = 0;
  int worst_status = exit_status::kOk;
  void Raise(int status) {
    // 74 (I/O) outranks 66 (missing input), which outranks 65 (rejected lines).
    const auto rank = [](int s) {
      return s == exit_status::kIoErr ? 3 : s == exit_status::kNoInput ? 2 : s == exit_status::kDataErr ? 1 : 0;
    };
    if (rank(status) > rank(worst_status)) worst_status = status;
  }
};

// Reads one LOG; returns false on an output error that must stop everything.
bool ProcessLog(const std::string& log, const record_validator::Limits& limits,
                const entry_mapper::SourceLabels* labels, audit_file::AuditFileWriter* writer,
                Totals* totals) {
  // The sandbox controls its log: a symlink, FIFO or device in its place is refused.
  const int fd = open(log.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    PrintError("agt-collector: error: open " + log + ": " +
               (errno == ELOOP ? "is a symbolic link (refused)" : strerror(errno)));
    totals->Raise(exit_status::kNoInput);
    return true;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    PrintError("agt-collector: error: " + log + ": not a regular file (refused)");
    close(fd);
    totals->Raise(exit_status::kNoInput);
    return true;
  }
  // Blocking reads from here on (a regular file never blocks anyway).
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);

  entry_mapper::SourceRef source;
  source.file = log;
  source.device = static_cast<uint64_t>(st.st_dev);
  source.inode = static_cast<uint64_t>(st.st_ino);

  log_line_reader::LineReader reader(fd, 0, limits.max_line_bytes);
  log_line_reader::Line line;
  record_validator::ValidRecord record;
  audit_entry::AuditEntryFields fields;
  std::string reason, err;
  Progress progress(log, static_cast<uint64_t>(st.st_size));
  bool ok = true;
  for (;;) {
    const log_line_reader::ReadResult r = reader.Next(&line, &err);
    if (r == log_line_reader::ReadResult::kError) {
      PrintError("agt-collector: error: " + log + ": " + err);
      totals->Raise(exit_status::kIoErr);
      break;
    }
    if (r == log_line_reader::ReadResult::kEof) {
      if (reader.pending_bytes() > 0) {
        ++totals->lines;
        ++totals->rejected;
        fprintf(stderr, "%s:%llu: incomplete last line (%llu bytes, no newline)\n", log.c_str(),
                static_cast<unsigned long long>(line.number + 1),
                static_cast<unsigned long long>(reader.pending_bytes()));
      }
      break;
    }
    ++totals->lines;
    progress.Update(line.offset, line.number);
    if (r == log_line_reader::ReadResult::kTooLong) {
      ++totals->rejected;
      fprintf(stderr, "%s:%llu: line exceeds %zu bytes (%llu bytes skipped)\n", log.c_str(),
              static_cast<unsigned long long>(line.number), limits.max_line_bytes,
              static_cast<unsigned long long>(line.length));
      continue;
    }
    if (!record_validator::ValidateRecord(line.text, limits, &record, &reason)) {
      ++totals->rejected;
      fprintf(stderr, "%s:%llu: %s\n", log.c_str(), static_cast<unsigned long long>(line.number),
              reason.c_str());
      continue;
    }
    if (writer == nullptr) continue;  // validate only
    source.offset = line.offset;
    entry_mapper::MapRecord(record, *labels, source, &fields);
    bool appended = false;  // always, without a set of ids already written
    if (!writer->AppendNew(&fields, nullptr, &appended, &err)) {
      PrintError(err);
      totals->Raise(exit_status::kIoErr);
      ok = false;
      break;
    }
    ++totals->entries;
  }
  close(fd);
  // Durable per input file: a later failure never loses an earlier file's entries.
  if (ok && writer != nullptr && !writer->Sync(&err)) {
    PrintError(err);
    totals->Raise(exit_status::kIoErr);
    ok = false;
  }
  return ok;
}

bool LoadOptionalConfig(const cli_args::ParsedArgs& args, config::Config* cfg, int* status) {
  if (!args.has("--config")) return true;
  std::vector<std::string> warnings;
  std::string err;
  if (!config::LoadConfig(args.get("--config"), cfg, &warnings, &err)) {
    PrintError(err);
    *status = exit_status::kConfig;
    return false;
  }
  for (const std::string& w : warnings) fprintf(stderr, "agt-collector: warning: %s\n", w.c_str());
  return true;
}

int Finish(const char* command, const Totals& totals, bool wrote) {
  int status = totals.worst_status;
  if (totals.rejected > 0 && status == exit_status::kOk) status = exit_status::kDataErr;
  if (wrote) {
    fprintf(stderr, "agt-collector: %s: %llu lines, %llu entries written, %llu rejected\n", command,
            static_cast<unsigned long long>(totals.lines),
            static_cast<unsigned long long>(totals.entries),
            static_cast<unsigned long long>(totals.rejected));
  } else {
    fprintf(stderr, "agt-collector: %s: %llu lines, %llu valid, %llu rejected\n", command,
            static_cast<unsigned long long>(totals.lines),
            static_cast<unsigned long long>(totals.lines - totals.rejected),
            static_cast<unsigned long long>(totals.rejected));
  }
  return status;
}

}  // namespace

int Import(const cli_args::ParsedArgs& args) {
  int status = exit_status::kOk;
  config::Config cfg;
  if (!LoadOptionalConfig(args, &cfg, &status)) return status;
  if (args.has("--sandbox-id") == args.has("--config")) {
    PrintError("agt-collector: error: import: give exactly one of --sandbox-id and --config");
    return exit_status::kUsage;
  }
  const std::string key_path = args.has("--key-file") ? args.get("--key-file") : cfg.key_file;
  const std::string out_path = args.has("--out") ? args.get("--out") : cfg.output;
  if (key_path.empty() || out_path.empty()) {
    PrintError("agt-collector: error: import: --key-file and --out are required (or key_file "
               "and output in --config)");
    return exit_status::kUsage;
  }
  if (args.positional.empty()) {
    PrintError("agt-collector: error: import: no LOG given");
    return exit_status::kUsage;
  }
  entry_mapper::SourceLabels fixed_labels;
  if (args.has("--sandbox-id")) {
    if (!watch_pattern::IsPlausibleSandboxId(args.get("--sandbox-id"))) {
      PrintError("agt-collector: error: import: --sandbox-id must be 1-128 bytes of "
                 "[A-Za-z0-9._-], not \".\" or \"..\"");
      return exit_status::kUsage;
    }
    fixed_labels = config::LabelsForSandboxId(args.get("--sandbox-id"));
  }
  // Every LOG must have labels before anything is written.
  std::vector<entry_mapper::SourceLabels> labels(args.positional.size(), fixed_labels);
  std::string err;
  if (args.has("--config")) {
    for (size_t i = 0; i < args.positional.size(); ++i) {
      if (!config::LabelsForPath(cfg, args.positional[i], &labels[i], &err)) {
        PrintError(err);
        return exit_status::kConfig;
      }
    }
  }
  std::string key;
  if (!key_file::ReadKeyFile(key_path, &key, &err)) {
    PrintError(err);
    return exit_status::kNoInput;
  }
  // A key others can read lets them forge entries that verify: said on every
  // import, not only by check-config.
  std::vector<std::string> key_warnings;
  key_file::LintKeyFile(key_path, key, &key_warnings);
  for (const std::string& w : key_warnings) fprintf(stderr, "agt-collector: warning: %s\n", w.c_str());
  auto writer = std::make_unique<audit_file::AuditFileWriter>();
  if (!writer->Open(out_path, key, &err)) {
    PrintError(err);
    return exit_status::kIoErr;
  }
  if (!writer->recovery_notice().empty()) {
    fprintf(stderr, "agt-collector: warning: %s\n", writer->recovery_notice().c_str());
  }
  Totals totals;
  for (size_t i = 0; i < args.positional.size(); ++i) {
    if (!ProcessLog(args.positional[i], cfg.limits, &labels[i], writer.get(), &totals)) break;
  }
  return Finish("import", totals, true);
}

int Validate(const cli_args::ParsedArgs& args) {
  int status = exit_status::kOk;
  config::Config cfg;
  if (!LoadOptionalConfig(args, &cfg, &status)) return status;
  if (args.positional.empty()) {
    PrintError("agt-collector: error: validate: no LOG given");
    return exit_status::kUsage;
  }
  Totals totals;
  for (const std::string& log : args.positional) {
    ProcessLog(log, cfg.limits, nullptr, nullptr, &totals);
  }
  return Finish("validate", totals, false);
}

}  // namespace import_command
