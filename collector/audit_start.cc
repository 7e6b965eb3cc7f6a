#include "audit_start.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit_tamper.h"
#include "collector_events.h"
#include "exit_status.h"
#include "logs.h"
#include "tail/chain_head.h"
#include "unique_fd.h"

namespace audit_start {
namespace {

// PATH.tampered-YYYYmmddTHHMMSSZ, beside it: kept as evidence, never reused.
std::string AsideName(const std::string& path) {
  char stamp[32];
  const time_t now = time(nullptr);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
  return path + ".tampered-" + stamp;
}

// Moves the tampered file aside without replacing anything already there.
bool MoveAside(const std::string& path, std::string* moved_to, std::string* err) {
  std::string target = AsideName(path);
  for (int n = 1; n < 100; ++n) {
    if (renameat2(AT_FDCWD, path.c_str(), AT_FDCWD, target.c_str(), RENAME_NOREPLACE) == 0) {
      *moved_to = target;
      return true;
    }
    if (errno == ENOENT) {  // nothing at the path (the file is gone): nothing to move
      moved_to->clear();
      return true;
    }
    if (errno != EEXIST) {
      *err = logs::ErrnoReason("rename", path + " -> " + target);
      return false;
    }
    target = AsideName(path) + "." + std::to_string(n);
  }
  *err = "rename " + path + ": too many tampered files moved aside this second";
  return false;
}

}  // namespace

int Open(const std::string& path, std::string_view key, const std::string& state_dir,
         bool new_chain, audit_file::AuditFileWriter* out) {
  if (mkdir(state_dir.c_str(), 0700) != 0 && errno != EEXIST) {
    logs::Error(logs::ErrnoReason("mkdir", state_dir));
    return exit_status::kIoErr;
  }
  const unique_fd::UniqueFd state(open(state_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!state.ok()) {
    logs::Error(logs::ErrnoReason("open state directory", state_dir));
    return exit_status::kIoErr;
  }
  chain_head::ChainHead head;
  std::string err, head_err;
  bool have_head = false, head_unreadable = false;
  switch (chain_head::Load(state.get(), &head, &head_err)) {
    case chain_head::LoadResult::kLoaded: have_head = true; break;
    case chain_head::LoadResult::kNone:
      logs::Warning(state_dir + "/" + chain_head::kFileName + " does not exist: " + path +
                    " is checked as a chain only (a cut tail cannot be seen); the head is "
                    "kept from now on");
      break;
    case chain_head::LoadResult::kCorrupt:
      head_unreadable = true;  // edited or cut: the file cannot be vouched for
      break;
    case chain_head::LoadResult::kError:
      logs::Error(state_dir + "/" + head_err);
      return exit_status::kIoErr;
  }
  audit_tamper::Finding finding;
  if (audit_tamper::Check(path, key, have_head ? &head : nullptr, &finding, &err) !=
      audit_tamper::CheckResult::kDone) {
    logs::Error(err);
    return exit_status::kIoErr;
  }
  if (head_unreadable && !audit_tamper::IsTampered(finding)) {
    finding.kind = audit_tamper::Kind::kHeadUnreadable;
    finding.line = 1;
    finding.detail = state_dir + "/" + head_err + ": " + path + " (" +
                     std::to_string(finding.entries) +
                     " entries verify as a chain) cannot be "
                     "checked for a cut tail";
  }
  const bool tampered = audit_tamper::IsTampered(finding);
  if (tampered && !new_chain) {
    logs::Error(path + ": tampered with: " + audit_tamper::Describe(finding) +
                "; refusing to extend it (--new-chain moves it aside and starts a new audit "
                "file whose first entry records this)");
    return exit_status::kTampered;
  }
  std::string moved_to;
  if (tampered && !MoveAside(path, &moved_to, &err)) {
    logs::Error(err);
    return exit_status::kIoErr;
  }
  if (!out->Open(path, key, have_head && !tampered ? head.size : 0, &err)) {
    logs::Error(err);
    return exit_status::kIoErr;
  }
  if (!out->recovery_notice().empty()) logs::Warning(out->recovery_notice());
  if (tampered) {
    audit_entry::AuditEntryFields fields;
    collector_events::MapTampered(path, finding, have_head ? &head : nullptr, moved_to, &fields);
    bool appended = false;
    if (!out->AppendNew(&fields, nullptr, &appended, &err) || !out->Sync(&err)) {
      logs::Error(err);
      return exit_status::kIoErr;
    }
    logs::Warning(path + ": tampered with: " + audit_tamper::Describe(finding) + "; moved to " +
                  (moved_to.empty() ? std::string("(nothing to move)") : moved_to) +
                  "; started a new audit file, its first entry (" + fields.entry_id +
                  ") records this");
  } else {
    logs::Note(path + ": " + std::to_string(finding.entries) + " entries verified" +
               (have_head ? ", matching the chain head (" + std::to_string(head.entries) +
                                " entries when last saved)"
                          : ""));
  }
  if (!chain_head::Save(state.get(), out->durable_head(), &err)) {
    logs::Error("chain head in " + state_dir + ": " + err);
    return exit_status::kIoErr;
  }
  return exit_status::kOk;
}

}  // namespace audit_start
