// The log as the collector guards it: created by the collector when a
// sandbox appears and marked append-only (the sandbox can append, never
// truncate, unlink, rename or overwrite), and every way a sandbox can still
// suppress its log (a symlink, FIFO or directory in its place, a mode that
// makes it unusable, its removal) recorded as a signed
// denied_log_suppressed entry, put right where the collector owns the log.
// Rotation of append-only logs goes through the collector (SIGUSR1).
#include "tail/tail_engine.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>

#include "collector_events.h"
#include "tail/append_only.h"
#include "tail/secure_open.h"
#include "tail/tail_engine_support.h"

namespace tail_engine {
namespace {

// The mode the shim creates its log with (shim/denied_log.cc).
constexpr mode_t kLogMode = 0600;

// How many sandboxes the start line names where the attribute is not set.
constexpr size_t kNamedInSummary = 5;

// The suppression kind of a log replaced while the collector created it.
const char kRacedKind[] = "replaced at creation";

std::string Octal(unsigned mode) {
  char buf[8];
  snprintf(buf, sizeof buf, "%04o", mode & 07777);
  return buf;
}

}  // namespace

void Engine::ClaimLog(Source* s) {
  const Pattern& p = patterns_[s->pattern];
  if (!p.base_fd.ok()) return;
  std::string rel = s->sandbox_id;
  if (!p.suffix_parent.empty()) rel += "/" + p.suffix_parent;
  int raw = -1;
  std::string err;
  if (secure_open::OpenDirectory(p.base_fd.get(), rel, secure_open::Method::kAuto, &raw, &err) !=
      secure_open::Result::kOk) {
    return;  // no directory yet, or a hostile one: the log's open reports it
  }
  const unique_fd::UniqueFd dir(raw);
  struct stat dst;
  if (fstat(dir.get(), &dst) != 0) return;
  unique_fd::UniqueFd fd;
  // Owned by the directory's owner (the sandbox user), as the shim would
  // have made it; chown comes before the attribute, which forbids it.
  append_only::Result r =
      append_only::Create(dir.get(), p.log_name, dst.st_uid, dst.st_gid, kLogMode, &fd, &err);
  const bool created = r != append_only::Result::kReplaced && fd.ok();
  // The sandbox took the new file away before its attribute was set: what
  // is at the name now is taken as an existing log, and the file created
  // (where the shim may have written a denial meanwhile) is read from offset
  // 0 like a rotated file. Recorded as a suppression, once per quota window.
  std::string raced;
  if (r == append_only::Result::kReplaced) {
    raced = err + (LingerOn(s, std::move(fd))
                       ? "; the file created is read too"
                       : "; the file created is NOT read (a rotated file is still being read)");
    r = append_only::Result::kExists;
  }
  if (r == append_only::Result::kExists) {
    if (secure_open::OpenRegular(p.base_fd.get(), LogRelative(*s), secure_open::Method::kAuto, &raw,
                                 &err) != secure_open::Result::kOk) {
      // Not a regular file: the open reports it (and records it).
      if (!raced.empty()) Suppressed(s, kRacedKind, raced, "");
      return;
    }
    fd.Reset(raw);
    r = append_only::Set(fd.get(), &err);
  }
  Source::Guard& g = s->guard;
  g.tried = true;
  g.owned = r == append_only::Result::kOk;
  if (g.owned) {
    g.why_not.clear();
    if (g.dir_mode == 0) g.dir_mode = dst.st_mode & 07777;
  } else {
    const std::string why = std::string(append_only::Describe(r)) + " (" + err + ")";
    // At start the summary says it (AppendOnlySummary); later, each change.
    if (g.why_not != why && scan_count_ > 0) {
      Warn(LogPath(*s) + ": append-only attribute not set: " + why);
    }
    g.why_not = why;
  }
  if (!raced.empty()) {
    Suppressed(s, kRacedKind, raced,
               g.owned ? "the file now at the name marked append-only and read" : "");
  }
  if (created) {
    Note(LogPath(*s) + ": created " + (g.owned ? "append-only" : "(not append-only)") + ", owner " +
         std::to_string(dst.st_uid) + ":" + std::to_string(dst.st_gid) + ", mode " +
         Octal(kLogMode));
  }
}

void Engine::ProtectOpened(Source* s, int fd) {
  if (!options_.append_only_logs || append_only::IsSet(fd)) return;
  std::string err;
  const append_only::Result r = append_only::Set(fd, &err);
  Source::Guard& g = s->guard;
  g.tried = true;
  g.owned = r == append_only::Result::kOk;
  if (!g.owned) {
    const std::string why = std::string(append_only::Describe(r)) + " (" + err + ")";
    if (g.why_not != why) Warn(LogPath(*s) + ": append-only attribute not set: " + why);
    g.why_not = why;
  }
}

void Engine::GuardLog(Source* s, const struct stat* log_st) {
  // chmod on the log or on its directory leaves everything in place but
  // makes every later denial fail to reach the log (or the collector).
  const Pattern& p = patterns_[s->pattern];
  std::string dir_rel = s->sandbox_id;
  if (!p.suffix_parent.empty()) dir_rel += "/" + p.suffix_parent;
  struct stat dst;
  std::string found, restored;
  const bool check_dir = s->wd < 0 || s->guard.dir_check_due;
  s->guard.dir_check_due = false;
  if (check_dir && fstatat(p.base_fd.get(), dir_rel.c_str(), &dst, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISDIR(dst.st_mode) && (dst.st_mode & 0700) != 0700) {
    s->guard.dir_check_due = true;  // stated again at the next look, until it is right
    found = "mode " + Octal(dst.st_mode) + " on the log's directory";
    if (s->guard.owned && s->guard.dir_mode != 0) {
      // Through a descriptor opened without following any link, so a
      // sandbox that swaps in a symlink meanwhile changes nothing else.
      int raw = -1;
      std::string err;
      if (secure_open::OpenDirectory(p.base_fd.get(), dir_rel, secure_open::Method::kAuto, &raw,
                                     &err) == secure_open::Result::kOk) {
        const unique_fd::UniqueFd dir(raw);
        if (chmod(("/proc/self/fd/" + std::to_string(dir.get())).c_str(), s->guard.dir_mode) == 0) {
          restored = "directory mode " + Octal(s->guard.dir_mode) + " put back";
        }
      }
    }
  } else if (log_st != nullptr && S_ISREG(log_st->st_mode) && (log_st->st_mode & 0600) != 0600) {
    found = "mode " + Octal(log_st->st_mode) + " on the log";
  }
  if (found.empty()) {
    s->guard.mode_reported.clear();
    return;
  }
  if (found == s->guard.mode_reported) return;  // the same state: said once
  // Once put right, the next chmod is a new occurrence.
  s->guard.mode_reported = restored.empty() ? found : std::string();
  Suppressed(s, "mode", found, restored);
}

void Engine::RefusedAtPath(Source* s, const std::string& reason) {
  const Pattern& p = patterns_[s->pattern];
  struct stat st {};
  std::string found;
  if (fstatat(p.base_fd.get(), s->sandbox_id.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      !S_ISDIR(st.st_mode)) {
    found =
        std::string(secure_open::DescribeMode(st.st_mode)) + " in place of the sandbox directory";
  } else if (fstatat(p.base_fd.get(), LogRelative(*s).c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
             !S_ISREG(st.st_mode)) {
    found = std::string(secure_open::DescribeMode(st.st_mode)) + " in place of the log";
  } else {
    // The reason names the path first; the entry names it already.
    const std::string named = LogRelative(*s) + ": ";
    found =
        "unusable (" + (reason.rfind(named, 0) == 0 ? reason.substr(named.size()) : reason) + ")";
  }
  std::string restored;
  if (options_.append_only_logs && s->guard.owned && !S_ISDIR(st.st_mode)) {
    // The collector's own log was taken away before it was claimed again:
    // the object the sandbox put there goes (removed from the directory
    // opened without following links), an append-only log comes back.
    std::string rel = s->sandbox_id;
    if (!p.suffix_parent.empty()) rel += "/" + p.suffix_parent;
    int raw = -1;
    std::string err;
    if (secure_open::OpenDirectory(p.base_fd.get(), rel, secure_open::Method::kAuto, &raw, &err) ==
        secure_open::Result::kOk) {
      const unique_fd::UniqueFd dir(raw);
      if (unlinkat(dir.get(), p.log_name.c_str(), 0) == 0) {
        ClaimLog(s);
        if (s->guard.owned) restored = "the object removed and a new append-only log created";
      }
    }
  }
  Suppressed(s, found, found, restored);  // each kind of object a kind of its own
  if (!restored.empty()) ClearProblem(s);
}

void Engine::NoticeRemoved(Source* s, const OpenLog& log) {
  if (s->guard.removed == log.id) return;  // this file: recorded already
  s->guard.removed = log.id;
  std::string restored;
  if (options_.append_only_logs && s->guard.owned) {
    ClaimLog(s);
    if (s->guard.owned) restored = "a new append-only log created";
  }
  Suppressed(s, "removed",
             "removed (file " + log.id.ToString() + " unlinked after " +
                 std::to_string(log.pos.offset) + " bytes were read)",
             restored);
}

void Engine::Suppressed(Source* s, const std::string& kind, const std::string& found,
                        const std::string& restored) {
  ++stats_.logs_suppressed;
  if (!restored.empty()) ++stats_.logs_restored;
  SummariseSuppressions(s, false);
  const int64_t interval = std::max<int64_t>(1, options_.quota.interval_seconds);
  const int64_t window = static_cast<int64_t>(time(nullptr)) / interval;
  Source::Guard::Repeats& r = s->guard.repeats[kind];
  if (r.window == window) {
    if (r.count++ == 0) {
      Warn(LogPath(*s) + ": suppressed again: " + found + "; further ones of this kind until " +
           "the quota window ends are counted into one entry");
    }
    r.found = found;
    r.restored = restored;
    return;
  }
  r.window = window;
  WriteSuppression(s, {LogPath(*s), found, restored});
  Warn(LogPath(*s) + ": suppressed: " + found +
       (restored.empty() ? "" : "; restored: " + restored));
}

void Engine::SummariseSuppressions(Source* s, bool at_exit) {
  const int64_t interval = std::max<int64_t>(1, options_.quota.interval_seconds);
  const int64_t window = static_cast<int64_t>(time(nullptr)) / interval;
  for (auto& [kind, r] : s->guard.repeats) {
    if (r.count == 0 || (!at_exit && r.window == window)) continue;
    collector_events::Suppression what{LogPath(*s), r.found, r.restored};
    what.repeats = r.count;
    what.window_start = r.window * interval;
    what.interval_seconds = static_cast<uint32_t>(interval);
    r.count = 0;
    WriteSuppression(s, what);
    Note(what.log + ": " + std::to_string(what.repeats) + " more suppression(s) of this kind " +
         "in the quota window summarised (the last: " + what.found + ")");
  }
}

void Engine::WriteSuppression(Source* s, const collector_events::Suppression& what) {
  entry_mapper::SourceLabels labels;
  std::string reason;
  pipeline::LabelsFor(options_.config, what.log, s->sandbox_id, &labels, &reason);
  audit_entry::AuditEntryFields fields;
  collector_events::MapSuppression(what, labels, &fields);
  bool appended = false;
  if (!out_->AppendNew(&fields, nullptr, &appended, &reason)) {
    fatal_ = reason;
    return;
  }
  ++cycle_appended_;
  Touch(s->index);
  Note(what.log + ": suppression recorded as " + fields.entry_id);
}

bool Engine::FinishSuppressions(std::string* err) {
  for (Source& s : sources_) {
    if (!s.retired) SummariseSuppressions(&s, true);
  }
  return Commit(err);
}

bool Engine::RotateLogs(std::string* err) {
  size_t rotated = 0;
  for (uint32_t i = 0; i < sources_.size(); ++i) {
    if (sources_[i].retired || !sources_[i].guard.owned) continue;
    if (!RotateLog(i, err)) return false;
    ++rotated;
  }
  Note("SIGUSR1: rotated " + std::to_string(rotated) + " append-only log(s)");
  return true;
}

bool Engine::RotateLog(uint32_t index, std::string* err) {
  // 1. Everything in the log so far is read and committed.
  for (int turns = 0; turns < 1 << 20; ++turns) {
    Look(index);
    if (!Commit(err)) return false;
    if (!sources_[index].dirty) break;
  }
  Source& s = sources_[index];
  if (!s.current.fd.ok() || s.rotated_away) return true;
  const Pattern& p = patterns_[s.pattern];
  std::string rel = s.sandbox_id;
  if (!p.suffix_parent.empty()) rel += "/" + p.suffix_parent;
  int raw = -1;
  std::string why;
  if (secure_open::OpenDirectory(p.base_fd.get(), rel, secure_open::Method::kAuto, &raw, &why) !=
      secure_open::Result::kOk) {
    Warn(LogPath(s) + ": not rotated: " + why);
    return true;
  }
  const unique_fd::UniqueFd dir(raw);
  struct stat st;
  if (fstatat(dir.get(), p.log_name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
      file_id::FileId::Of(st) != s.current.id) {
    return true;  // not the file being read: nothing of ours to rotate
  }
  // 2. The attribute is off only for the rename; the rotated file gets it back.
  char stamp[32];
  const time_t now = time(nullptr);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(stamp, sizeof stamp, ".%Y%m%dT%H%M%SZ", &tm);
  std::string target = p.log_name + stamp;
  // A gap in the attribute: the next look hashes the bytes before the
  // offset again (ValidateStillSame), whatever the sandbox did meanwhile.
  s.current.append_only_held = false;
  if (append_only::Clear(s.current.fd.get(), &why) != append_only::Result::kOk) {
    Warn(LogPath(s) + ": not rotated: clearing the append-only attribute: " + why);
    return true;
  }
  int rc = -1;
  for (int n = 1; n < 100; ++n) {
    rc = renameat2(dir.get(), p.log_name.c_str(), dir.get(), target.c_str(), RENAME_NOREPLACE);
    if (rc == 0 || errno != EEXIST) break;
    target = p.log_name + stamp + "." + std::to_string(n);
  }
  const int rename_errno = errno;
  append_only::Set(s.current.fd.get(), &why);
  if (rc != 0) {
    Warn(LogPath(s) + ": not rotated: " + logs::ErrnoReason("rename", target, rename_errno));
    return true;
  }
  // 3. A fresh append-only log in its place; the engine drains the rotated
  //    file (a writer that opened it before the rename) and moves on.
  ClaimLog(&s);
  Note(LogPath(s) + ": rotated to " + target + " (kept append-only) after offset " +
       std::to_string(s.current.pos.offset));
  MarkDirty(index);
  return true;
}

std::string Engine::AppendOnlySummary() const {
  if (!options_.append_only_logs) return "append-only logs: off (--no-append-only)";
  size_t owned = 0, tried = 0;
  std::string not_set;
  size_t named = 0;
  for (const Source& s : sources_) {
    if (s.retired || !s.guard.tried) continue;
    ++tried;
    if (s.guard.owned) {
      ++owned;
    } else if (named++ < kNamedInSummary) {
      not_set += (not_set.empty() ? "" : "; ") + s.sandbox_id + ": " + s.guard.why_not;
    }
  }
  std::string text =
      "append-only: " + std::to_string(owned) + " of " + std::to_string(tried) + " log(s)";
  if (owned < tried) {
    text += ", not set on " + std::to_string(tried - owned) + " (" + not_set +
            (tried - owned > kNamedInSummary ? "; ..." : "") + ")";
  }
  return text;
}

}  // namespace tail_engine
