#include "audit_tamper.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit_verifier.h"
#include "logs.h"
#include "unique_fd.h"

namespace audit_tamper {
namespace {

std::string HeadText(const chain_head::ChainHead& h) {
  return std::to_string(h.entries) + " entries (" + std::to_string(h.size) + " bytes) in " +
         h.file.ToString();
}

}  // namespace

CheckResult Check(const std::string& path, std::string_view key, const chain_head::ChainHead* head,
                  Finding* f, std::string* err) {
  *f = Finding();
  const unique_fd::UniqueFd fd(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.ok()) {
    if (errno != ENOENT) {
      *err = logs::ErrnoReason("open", path);
      return CheckResult::kError;
    }
    if (head != nullptr && head->entries > 0) {
      f->kind = Kind::kMissing;
      f->line = 1;
      f->detail = "the file is gone; the chain head records " + HeadText(*head);
    }
    return CheckResult::kDone;
  }
  struct stat st;
  if (fstat(fd.get(), &st) != 0) {
    *err = logs::ErrnoReason("fstat", path);
    return CheckResult::kError;
  }
  f->file = file_id::FileId::Of(st);
  // The head's last entry, as the file has it.
  std::string hash_at_head;
  uint64_t end_at_head = 0;
  const audit_verifier::LineObserver observer =
      [&](uint64_t number, const audit_verifier::LineFacts& facts, uint64_t end) {
        if (head != nullptr && number == head->entries) {
          hash_at_head = facts.content_hash;
          end_at_head = end;
        }
      };
  audit_verifier::VerifyReport report;
  const audit_verifier::VerifyResult r =
      audit_verifier::VerifyAuditFd(fd.get(), path, key, &observer, &report, err);
  if (r == audit_verifier::VerifyResult::kError || r == audit_verifier::VerifyResult::kCannotOpen) {
    return CheckResult::kError;
  }
  f->entries = report.entries;
  f->good_bytes = report.good_bytes;
  f->last_content_hash = report.last_content_hash;
  if (report.torn) f->torn_bytes = static_cast<uint64_t>(st.st_size) - report.good_bytes;
  const uint64_t next_line = report.entries + 1;
  if (head != nullptr && f->file != head->file) {
    f->kind = Kind::kReplaced;
    f->line = 1;
    f->detail = "the file at the path is " + f->file.ToString() + ", not the one the chain head " +
                "names (" + HeadText(*head) + ")";
    return CheckResult::kDone;
  }
  if (r == audit_verifier::VerifyResult::kBroken && !report.torn) {
    f->kind = Kind::kBroken;
    f->line = report.broken_line;
    f->offset = report.broken_offset;
    f->detail = "line " + std::to_string(report.broken_line) + ": " + report.broken_reason +
                " (an entry edited, reordered, deleted or inserted; " +
                std::to_string(report.entries) + " entries before it verify)";
    return CheckResult::kDone;
  }
  if (head == nullptr) {
    if (report.torn) {
      f->kind = Kind::kTornUnproven;
      f->line = next_line;
      f->offset = report.good_bytes;
      f->detail = "an incomplete last line (" + std::to_string(f->torn_bytes) +
                  " bytes) and no chain head to show it lies past the last durable entry";
    }
    return CheckResult::kDone;
  }
  if (report.entries < head->entries) {
    f->kind = report.entries == 0 ? Kind::kEmptied : Kind::kTailCut;
    f->line = next_line;
    f->offset = report.good_bytes;
    f->detail =
        (report.entries == 0 ? std::string("emptied") : std::string("tail cut")) +
        ": the chain head records " + HeadText(*head) + ", " + std::to_string(report.entries) +
        " verify now" +
        (report.torn ? " (then an incomplete line of " + std::to_string(f->torn_bytes) + " bytes)"
                     : "");
    return CheckResult::kDone;
  }
  if (head->entries > 0 && (hash_at_head != head->content_hash || end_at_head != head->size)) {
    f->kind = Kind::kHeadMismatch;
    f->line = head->entries;
    f->offset = end_at_head;
    f->detail = "entry " + std::to_string(head->entries) + " is not the one the chain head " +
                "records (content_hash " + hash_at_head.substr(0, 16) + "..., ending at byte " +
                std::to_string(end_at_head) + "; the head has " + head->content_hash.substr(0, 16) +
                "..., " + std::to_string(head->size) +
                " bytes): entries before it were removed or replaced";
    return CheckResult::kDone;
  }
  // An incomplete line past the durable end is the torn end of a write a
  // crash cut short: never synced, so no checkpoint covers its records.
  return CheckResult::kDone;
}

bool IsTampered(const Finding& f) { return f.kind != Kind::kIntact; }

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kIntact: return "intact";
    case Kind::kMissing: return "missing";
    case Kind::kReplaced: return "replaced";
    case Kind::kEmptied: return "emptied";
    case Kind::kTailCut: return "tail_cut";
    case Kind::kBroken: return "chain_broken";
    case Kind::kHeadMismatch: return "head_mismatch";
    case Kind::kTornUnproven: return "torn_line_unproven";
    case Kind::kHeadUnreadable: return "chain_head_unreadable";
  }
  return "unknown";
}

std::string Describe(const Finding& f) {
  return std::string(KindName(f.kind)) + ": " + f.detail + " (first bad position: line " +
         std::to_string(f.line) + ", byte " + std::to_string(f.offset) + ")";
}

}  // namespace audit_tamper
