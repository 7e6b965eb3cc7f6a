#include "import_command.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <string>
#include <vector>

#include "audit_file.h"
#include "config.h"
#include "entry_id_set.h"
#include "entry_mapper.h"
#include "exit_status.h"
#include "file_id.h"
#include "key_file.h"
#include "logs.h"
#include "pipeline.h"
#include "progress.h"
#include "self_confine.h"
#include "tail/line_reader.h"
#include "unique_fd.h"
#include "watch_pattern.h"

namespace import_command {

namespace {

// Bytes read at a time (the buffer grows beyond it only for a longer line).
constexpr size_t kReadChunk = 256 * 1024;

struct Totals {
  uint64_t bytes = 0;  // of the LOGs read before this one
  uint64_t lines = 0;
  uint64_t entries = 0;  // appended by this run
  uint64_t already = 0;  // found in the output already (imported before): not written again
  uint64_t rejected = 0;
  int worst_status = exit_status::kOk;
  void Raise(int status) {
    // 74 (I/O) outranks 66 (missing input), which outranks 65 (rejected lines).
    const auto rank = [](int s) {
      return s == exit_status::kIoErr     ? 3
             : s == exit_status::kNoInput ? 2
             : s == exit_status::kDataErr ? 1
                                          : 0;
    };
    if (rank(status) > rank(worst_status)) worst_status = status;
  }
};

// The first top-level "entry_id" string of a line of the output, taken as
// RapidJSON's SAX events go by: no value tree per line. A line counts as
// a value tree would have it (json_text.h's reading: every byte as given,
// a NUL refused): one JSON object alone on the line; otherwise it names no id.
class EntryIdReader : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, EntryIdReader> {
 public:
  bool Read(std::string_view line, std::string* id) {
    depth_ = 0;
    next_is_id_ = false;
    key_seen_ = false;
    found_ = false;
    object_ = false;
    id_ = id;
    rapidjson::MemoryStream stream(line.data(), line.size());
    return !reader_.Parse<rapidjson::kParseDefaultFlags>(stream, *this).IsError() && object_ &&
           found_ && line.find('\0') == std::string_view::npos;
  }

  bool Default() {
    next_is_id_ = false;
    return true;
  }
  bool String(const char* str, rapidjson::SizeType length, bool) {
    if (next_is_id_) {
      id_->assign(str, length);
      found_ = true;
    }
    return Default();
  }
  bool Key(const char* str, rapidjson::SizeType length, bool) {
    // Only the first member of that name counts, whatever its value.
    next_is_id_ = depth_ == 1 && !key_seen_ && std::string_view(str, length) == "entry_id";
    key_seen_ |= next_is_id_;
    return true;
  }
  bool StartObject() {
    if (depth_++ == 0) object_ = true;
    return Default();
  }
  bool EndObject(rapidjson::SizeType) {
    --depth_;
    return true;
  }
  bool StartArray() {
    ++depth_;
    return Default();
  }
  bool EndArray(rapidjson::SizeType) {
    --depth_;
    return true;
  }

 private:
  rapidjson::Reader reader_;  // its stack kept from line to line
  int depth_ = 0;
  bool next_is_id_ = false;
  bool key_seen_ = false;
  bool found_ = false;
  bool object_ = false;
  std::string* id_ = nullptr;
};

// Reads one LOG through the pipeline; returns false on an output error that
// must stop everything. `ingest` has no output for validate.
// `present`: the entry ids in the output (null for validate and for the
// last LOG); each entry this run writes or finds there is added, so a LOG
// given twice is read into the output once.
bool ProcessLog(const std::string& log, const entry_mapper::SourceLabels* labels,
                line_reader::Reader* reader, pipeline::Ingest* ingest,
                audit_file::AuditFileWriter* writer, progress::Meter* meter, Totals* totals,
                entry_id_set::EntryIdSet* present) {
  // The sandbox controls its log: a symlink, FIFO or device in its place is refused.
  const unique_fd::UniqueFd fd(
      open(log.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY));
  if (!fd.ok()) {
    logs::Error(errno == ELOOP ? "open " + log + ": is a symbolic link (refused)"
                               : logs::ErrnoReason("open", log));
    totals->Raise(exit_status::kNoInput);
    return true;
  }
  struct stat st;
  if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    logs::Error(log + ": not a regular file (refused)");
    totals->Raise(exit_status::kNoInput);
    return true;
  }
  pipeline::Origin origin{log, file_id::FileId::Of(st), 0, labels, {}};
  uint64_t line_number = 0;  // of the last line that ended
  std::string reason;
  bool ok = true;
  line_reader::Position pos;
  uint64_t appended = 0;
  const line_reader::ReadResult r = reader->Read(
      fd.get(), &pos,
      [&](const line_reader::Item& item) {
        ++totals->lines;
        const uint64_t number = line_number + 1;
        if (item.ends_line) ++line_number;
        meter->Update(totals->lines, totals->bytes + item.end);
        if (item.kind == line_reader::Item::Kind::kRejected) {
          ++totals->rejected;
          logs::Rejected(log + ":" + std::to_string(number),
                         pipeline::RejectionReason(item, reader->max_line_bytes()));
          return true;
        }
        origin.offset = item.offset;
        switch (ingest->Line(item.line, origin, &reason)) {
          case pipeline::Outcome::kRejected:
            ++totals->rejected;
            logs::Rejected(log + ":" + std::to_string(number), reason);
            return true;
          case pipeline::Outcome::kOutputFailed:
            logs::Error(reason);
            totals->Raise(exit_status::kIoErr);
            ok = false;
            return false;
          case pipeline::Outcome::kAppended:
            ++appended;  // counted as written once synced
            if (present != nullptr) present->Insert(ingest->entry().entry_id);
            return true;
          case pipeline::Outcome::kAlreadyPresent:
            ++totals->already;
            if (present != nullptr) present->Insert(ingest->entry().entry_id);
            return true;
          case pipeline::Outcome::kValid: return true;
        }
        return true;
      },
      &reason);
  if (r == line_reader::ReadResult::kError) {
    logs::Error(log + ": " + reason);
    totals->Raise(exit_status::kIoErr);
  } else if (r == line_reader::ReadResult::kEndOfData) {
    const uint64_t pending = line_reader::Reader::PendingBytes(fd.get(), pos);
    if (pending > 0) {
      ++totals->lines;
      ++totals->rejected;
      logs::Rejected(log + ":" + std::to_string(line_number + 1),
                     "incomplete last line (" + std::to_string(pending) + " bytes, no newline)");
    }
  }
  totals->bytes += pos.offset;
  // Durable per input file: a later failure never loses an earlier file's entries.
  if (ok && writer != nullptr && !writer->Sync(&reason)) {
    logs::Error(reason);
    totals->Raise(exit_status::kIoErr);
    ok = false;
  }
  if (ok) totals->entries += appended;  // durable: what the file holds
  return ok;
}

bool LoadOptionalConfig(const cli_args::ParsedArgs& args, config::Config* cfg, int* status) {
  if (!args.has("--config")) return true;
  std::vector<std::string> warnings;
  std::string err;
  if (!config::LoadConfig(args.get("--config"), cfg, &warnings, &err)) {
    logs::Error(err);
    *status = exit_status::kConfig;
    return false;
  }
  for (const std::string& w : warnings) logs::Warning(w);
  return true;
}

// Once the key, the config and the output are open, the LOGs are all that
// is left to open: no exec, no sockets, no other file (self_confine.h).
void ConfineToLogs(const std::vector<std::string>& logs_given) {
  landlock_ruleset::Grants grants;
  grants.read_files = logs_given;
  const self_confine::Applied applied = self_confine::ConfineOneShot(grants);
  if (!applied.missing.empty())
    logs::Warning("not fully confined: " + self_confine::Describe(applied));
}

// What the LOGs hold in all, for the progress line (a LOG that is not a
// regular file counts 0; it is refused when its turn comes).
uint64_t TotalBytes(const std::vector<std::string>& logs) {
  uint64_t total = 0;
  for (const std::string& log : logs) {
    struct stat st;
    if (lstat(log.c_str(), &st) == 0 && S_ISREG(st.st_mode))
      total += static_cast<uint64_t>(st.st_size);
  }
  return total;
}

int Finish(const Totals& totals, bool wrote) {
  int status = totals.worst_status;
  if (totals.rejected > 0 && status == exit_status::kOk) status = exit_status::kDataErr;
  const std::string lines = std::to_string(totals.lines) + " lines, ";
  const std::string rejected = std::to_string(totals.rejected) + " rejected";
  if (wrote) {
    logs::Note(lines + std::to_string(totals.entries) + " entries written, " +
               (totals.already > 0 ? std::to_string(totals.already) + " already present, " : "") +
               rejected);
  } else {
    logs::Note(lines + std::to_string(totals.lines - totals.rejected) + " valid, " + rejected);
  }
  return status;
}

}  // namespace

int Import(const cli_args::ParsedArgs& args) {
  int status = exit_status::kOk;
  config::Config cfg;
  if (!LoadOptionalConfig(args, &cfg, &status)) return status;
  if (args.has("--sandbox-id") == args.has("--config")) {
    logs::Error("give exactly one of --sandbox-id and --config");
    return exit_status::kUsage;
  }
  const std::string key_path = args.has("--key-file") ? args.get("--key-file") : cfg.key_file;
  const std::string out_path = args.has("--out") ? args.get("--out") : cfg.output;
  if (key_path.empty() || out_path.empty()) {
    logs::Error("--key-file and --out are required (or key_file and output in --config)");
    return exit_status::kUsage;
  }
  if (args.positional.empty()) {
    logs::Error("no LOG given");
    return exit_status::kUsage;
  }
  const std::string sandbox_id = args.get("--sandbox-id");
  if (args.has("--sandbox-id") && !watch_pattern::IsPlausibleSandboxId(sandbox_id)) {
    logs::Error("--sandbox-id must be 1-128 bytes of [A-Za-z0-9._-], not \".\" or \"..\"");
    return exit_status::kUsage;
  }
  // Every LOG must have labels before anything is written (pipeline.h's rule).
  const config::Config* labels_config = args.has("--config") ? &cfg : nullptr;
  std::vector<entry_mapper::SourceLabels> labels(args.positional.size());
  std::string err;
  for (size_t i = 0; i < args.positional.size(); ++i) {
    if (!pipeline::LabelsFor(labels_config, args.positional[i], sandbox_id, &labels[i], &err)) {
      logs::Error(err);
      return exit_status::kConfig;
    }
  }
  std::string key;
  if (!key_file::ReadKeyFile(key_path, &key, &err)) {
    logs::Error(err);
    return exit_status::kNoInput;
  }
  // A key others can read lets them forge entries that verify: said on every
  // import, not only by check-config.
  std::vector<std::string> key_warnings;
  key_file::LintKeyFile(key_path, key, &key_warnings);
  for (const std::string& w : key_warnings) logs::Warning(w);
  audit_file::AuditFileWriter writer;
  if (!writer.Open(out_path, key, &err)) {
    logs::Error(err);
    return exit_status::kIoErr;
  }
  if (!writer.recovery_notice().empty()) logs::Warning(writer.recovery_notice());
  // Entries already in FILE are not written again, by entry id (which the
  // record and the log's device, inode and offset determine): importing a
  // log twice, or again after it grew, adds only what is new. Every id of
  // FILE is held in memory for the run.
  entry_id_set::EntryIdSet present;
  EntryIdReader ids;
  std::string id;
  if (!writer.ReadLinesFrom(
          0,
          [&](uint64_t, std::string_view line) {
            if (ids.Read(line, &id)) present.Insert(id);
            return true;
          },
          &err)) {
    logs::Error(err);
    return exit_status::kIoErr;
  }
  ConfineToLogs(args.positional);
  line_reader::Reader reader(kReadChunk, cfg.limits.max_line_bytes);
  pipeline::Ingest ingest(cfg.limits, &writer, &present);
  Totals totals;
  progress::Meter meter("import", TotalBytes(args.positional));
  for (size_t i = 0; i < args.positional.size(); ++i) {
    // The ids of the last LOG are not kept: no LOG after it can hold them
    // (an id names its line's file and offset), so each would be a string
    // allocated and hashed for nothing.
    const bool last = i + 1 == args.positional.size();
    if (!ProcessLog(args.positional[i], &labels[i], &reader, &ingest, &writer, &meter, &totals,
                    last ? nullptr : &present)) {
      break;
    }
  }
  meter.Finish();
  return Finish(totals, true);
}

int Validate(const cli_args::ParsedArgs& args) {
  int status = exit_status::kOk;
  config::Config cfg;
  if (!LoadOptionalConfig(args, &cfg, &status)) return status;
  if (args.positional.empty()) {
    logs::Error("no LOG given");
    return exit_status::kUsage;
  }
  ConfineToLogs(args.positional);
  line_reader::Reader reader(kReadChunk, cfg.limits.max_line_bytes);
  pipeline::Ingest ingest(cfg.limits, nullptr, nullptr);
  Totals totals;
  progress::Meter meter("validate", TotalBytes(args.positional));
  for (const std::string& log : args.positional) {
    ProcessLog(log, nullptr, &reader, &ingest, nullptr, &meter, &totals, nullptr);
  }
  meter.Finish();
  return Finish(totals, false);
}

}  // namespace import_command
