#include "pipeline.h"

namespace pipeline {

bool LabelsFor(const config::Config* config, std::string_view path,
               std::string_view known_sandbox_id, entry_mapper::SourceLabels* labels,
               std::string* err) {
  std::string unmatched;
  if (config == nullptr || !config::LabelsForPath(*config, path, labels, &unmatched)) {
    if (known_sandbox_id.empty()) {
      *err = config == nullptr ? std::string(path) + ": no sandbox id and no configuration"
                               : unmatched;
      return false;
    }
    *labels = config::LabelsForSandboxId(known_sandbox_id);
  }
  if (!known_sandbox_id.empty()) labels->sandbox_id = std::string(known_sandbox_id);
  return true;
}

std::string RejectionReason(const line_reader::Item& item, size_t max_line_bytes) {
  std::string reason = std::string(line_reader::Describe(item.rejection)) + " (" +
                       std::to_string(item.length) + " bytes";
  if (item.rejection == line_reader::Rejection::kTooLong) {
    reason += ", limit " + std::to_string(max_line_bytes);
  }
  return reason + ")";
}

record_validator::Problem ProblemOf(line_reader::Rejection rejection) {
  switch (rejection) {
    case line_reader::Rejection::kTooLong: return record_validator::Problem::kTooLong;
    case line_reader::Rejection::kNul: return record_validator::Problem::kNulBytes;
    case line_reader::Rejection::kNone: break;
  }
  return record_validator::Problem::kNone;
}

Ingest::Ingest(const record_validator::Limits& limits, audit_file::AuditFileWriter* out,
               entry_id_set::EntryIdSet* already_written)
    : limits_(limits), out_(out), already_written_(already_written) {}

Outcome Ingest::Line(std::string_view line, const Origin& origin, std::string* reason) {
  if (!record_validator::ValidateRecord(line, limits_, &record_, reason, &problem_)) {
    return Outcome::kRejected;
  }
  if (out_ == nullptr) return Outcome::kValid;
  if (source_.file != origin.name) source_.file.assign(origin.name);
  source_.device = origin.file.dev;
  source_.inode = origin.file.ino;
  source_.offset = origin.offset;
  source_.attestation = origin.attestation;
  entry_mapper::MapRecord(record_, *origin.labels, source_, &fields_);
  bool appended = false;
  entry_id_set::EntryIdSet* seen =
      already_written_ != nullptr && !already_written_->empty() ? already_written_ : nullptr;
  if (!out_->AppendNew(&fields_, seen, &appended, reason)) return Outcome::kOutputFailed;
  return appended ? Outcome::kAppended : Outcome::kAlreadyPresent;
}

}  // namespace pipeline
