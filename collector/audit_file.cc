#include "audit_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "audit_verifier.h"
#include "logs.h"
#include "unique_fd.h"

namespace audit_file {
namespace {

constexpr uint64_t kMaxLastLineBytes = audit_verifier::kMaxEntryLineBytes;

std::string SysError(const char* call, const std::string& path) {
  return logs::ErrnoReason(call, path);
}

int64_t MonotonicNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

bool PreadAll(int fd, char* buf, size_t n, uint64_t offset, std::string* err,
              const std::string& path) {
  while (n > 0) {
    const ssize_t r = pread(fd, buf, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      if (r == 0) errno = EIO;  // the file shrank under us
      *err = SysError("pread", path);
      return false;
    }
    buf += r;
    n -= static_cast<size_t>(r);
    offset += static_cast<uint64_t>(r);
  }
  return true;
}

// The number of '\n' in the first `size` bytes of fd: the file's entries.
bool CountLines(int fd, const std::string& path, uint64_t size, uint64_t* lines, std::string* err) {
  std::string chunk(1 << 20, '\0');
  *lines = 0;
  for (uint64_t at = 0; at < size;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(size - at, chunk.size()));
    if (!PreadAll(fd, chunk.data(), n, at, err, path)) return false;
    *lines += static_cast<uint64_t>(std::count(chunk.data(), chunk.data() + n, '\n'));
    at += n;
  }
  return true;
}

}  // namespace

bool ReadLastLine(int fd, const std::string& path, uint64_t size, std::string* line,
                  uint64_t* complete_size, std::string* err) {
  line->clear();
  *complete_size = 0;
  // Walk back in chunks: find the last '\n' (end of the last complete
  // line), then the one before it (its start).
  std::string chunk;
  uint64_t pos = size;       // bytes [pos, size) have been searched
  uint64_t line_end = size;  // offset of the last '\n' once found
  bool have_end = false;
  while (pos > 0) {
    const uint64_t n = std::min<uint64_t>(pos, 64 * 1024);
    chunk.resize(n);
    if (!PreadAll(fd, chunk.data(), n, pos - n, err, path)) return false;
    size_t search_to = chunk.size();
    if (!have_end) {
      const size_t nl = chunk.rfind('\n');
      if (nl != std::string::npos) {
        have_end = true;
        line_end = pos - n + nl;
        *complete_size = line_end + 1;
        search_to = nl;
      }
    }
    if (have_end && search_to > 0) {
      const size_t nl = chunk.rfind('\n', search_to - 1);
      if (nl != std::string::npos) {
        pos = pos - n + nl + 1;  // the last line starts here
        break;
      }
    }
    pos -= n;
    if ((have_end ? line_end : size) - pos > kMaxLastLineBytes) {
      *err = path + ": the last line is longer than 64 MiB";
      return false;
    }
  }
  if (!have_end) return true;
  line->resize(line_end - pos);
  return PreadAll(fd, line->data(), line->size(), pos, err, path);
}

AuditFileWriter::~AuditFileWriter() {
  std::string err;
  if (fd_.ok()) Flush(&err);
  // Callers that can act on it Close() first (run: exit 74); here it is
  // at least said.
  if (!Close(&err)) logs::Error(err);
}

bool AuditFileWriter::Close(std::string* err) {
  // Never close under the thread; its failure is the caller's to report.
  const bool synced = !worker_.in_flight() || SyncFinished(true, err);
  fd_.Reset();  // closing also drops the flock
  pending_.clear();
  pending_used_ = 0;
  pending_entries_ = 0;
  return synced;
}

bool AuditFileWriter::Open(const std::string& path, std::string_view key, std::string* err) {
  return Open(path, key, 0, err);
}

bool AuditFileWriter::Open(const std::string& path, std::string_view key, uint64_t durable_size,
                           std::string* err) {
  if (!Close(err)) return false;
  path_ = path;
  key_.assign(key);
  if (!signer_.Init(key, err)) return false;
  // O_RDWR rather than O_WRONLY: the chain is resumed from the last line.
  unique_fd::UniqueFd fd(
      open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.ok()) {
    *err =
        errno == ELOOP ? "open " + path + ": is a symbolic link (refused)" : SysError("open", path);
    return false;
  }
  struct stat st;
  if (fstat(fd.get(), &st) != 0) {
    *err = SysError("fstat", path);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    *err = path + ": not a regular file";
    return false;
  }
  if (flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    *err = errno == EWOULDBLOCK ? path + ": another agt-collector is writing it (flock)"
                                : SysError("flock", path);
    return false;
  }
  std::string last;
  uint64_t complete_size = 0;
  if (!ReadLastLine(fd.get(), path, static_cast<uint64_t>(st.st_size), &last, &complete_size,
                    err)) {
    return false;
  }
  recovery_notice_.clear();
  std::string previous;
  if (!last.empty()) {
    audit_verifier::LineFacts facts;
    std::string reason;
    if (!audit_verifier::VerifyLine(last, nullptr, signer_.hasher(), &facts, &reason)) {
      *err = path + ": cannot resume the chain, last line: " + reason;
      return false;
    }
    previous = facts.content_hash;
  }
  const uint64_t torn = static_cast<uint64_t>(st.st_size) - complete_size;
  if (torn > 0 && complete_size < durable_size) {
    *err = path + ": the last " + std::to_string(torn) + " bytes are an incomplete line that " +
           "starts at byte " + std::to_string(complete_size) + ", inside what the chain head " +
           "records as durable (" + std::to_string(durable_size) + " bytes): its entry was " +
           "checkpointed, so it is kept, not cut";
    return false;
  }
  if (torn > 0) {
    // Checked above: what precedes the torn bytes ends in a verified entry.
    if (ftruncate(fd.get(), static_cast<off_t>(complete_size)) != 0) {
      *err = SysError("ftruncate (removing a torn last line of)", path);
      return false;
    }
    if (fsync(fd.get()) != 0) {
      *err = SysError("fsync (after removing a torn last line of)", path);
      return false;
    }
    recovery_notice_ =
        path + ": removed " + std::to_string(torn) + " bytes of an incomplete last line (a " +
        "write cut short by a crash" +
        (durable_size > 0
             ? "; it starts past the chain head's durable end, " + std::to_string(durable_size) +
                   " bytes, so no checkpoint " + "covers it and its records are read again)"
             : "; never synced)");
  }
  uint64_t lines = 0;
  if (!CountLines(fd.get(), path, complete_size, &lines, err)) return false;
  file_entries_ = lines;
  file_size_ = complete_size;
  pending_entries_ = 0;
  durable_ = {file_id::FileId::Of(st), lines, complete_size, previous};
  signer_.SetPreviousHash(previous);
  fd_ = std::move(fd);  // Close() closes it (and so drops the flock)
  synced_pages_.Reset();
  return true;
}

bool AuditFileWriter::MakeRoom(const audit_entry::AuditEntryFields& fields, std::string* err) {
  if (!fd_.ok()) {
    *err = "the audit file is not open";
    return false;
  }
  const size_t room = pending_used_ + signer_.MaxLineBytes(fields);
  if (pending_.size() < room) pending_.resize(std::max(room, kBatchBytes + (64u << 10)));
  return true;
}

bool AuditFileWriter::Append(const audit_entry::AuditEntryFields& fields, std::string* err) {
  if (!MakeRoom(fields, err)) return false;
  size_t written = 0;
  if (!signer_.SignInto(fields, &pending_[pending_used_], &written, err)) return false;
  pending_used_ += written;
  ++entries_appended_;
  ++pending_entries_;
  if (pending_used_ >= kBatchBytes) return Flush(err);
  return true;
}

bool AuditFileWriter::AppendNew(audit_entry::AuditEntryFields* fields,
                                entry_id_set::EntryIdSet* already_written, bool* appended,
                                std::string* err) {
  *appended = false;
  if (!MakeRoom(*fields, err)) return false;
  size_t written = 0;
  switch (signer_.SignNewInto(fields, already_written, &pending_[pending_used_], &written, err)) {
    case chain_signer::ChainSigner::Outcome::kFailed: return false;
    case chain_signer::ChainSigner::Outcome::kAlreadyWritten: return true;
    case chain_signer::ChainSigner::Outcome::kSigned: break;
  }
  *appended = true;
  pending_used_ += written;
  ++entries_appended_;
  ++pending_entries_;
  if (pending_used_ >= kBatchBytes) return Flush(err);
  return true;
}

bool AuditFileWriter::Flush(std::string* err) {
  if (pending_used_ == 0) return true;
  if (!fd_.ok()) {
    *err = path_ + ": the audit file is not open";
    return false;
  }
  struct stat st;
  if (fstat(fd_.get(), &st) != 0) {
    *err = SysError("fstat", path_);
    return false;
  }
  size_t done = 0;
  while (done < pending_used_) {
    const ssize_t n = write(fd_.get(), pending_.data() + done, pending_used_ - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      *err = SysError("write", path_);
      // Cut a partial batch back off so the file ends on a whole, chained
      // line; the batch stays pending for a retry.
      if (done > 0 && ftruncate(fd_.get(), st.st_size) != 0) {
        *err += std::string("; ftruncate to undo the partial write failed too: ") + strerror(errno);
      }
      return false;
    }
    done += static_cast<size_t>(n);
  }
  file_size_ = static_cast<uint64_t>(st.st_size) + pending_used_;
  file_entries_ += pending_entries_;
  pending_used_ = 0;
  pending_entries_ = 0;
  return true;
}

bool AuditFileWriter::Sync(std::string* err) {
  if (!SyncFinished(true, err) || !Flush(err)) return false;
  const int64_t start_ns = MonotonicNs();
  if (fd_.ok() && fdatasync(fd_.get()) != 0) {
    *err = SysError("fdatasync", path_);
    return false;
  }
  last_sync_ns_ = MonotonicNs() - start_ns;
  // Everything is flushed: the signer's last hash is the file's last line's.
  durable_.entries = file_entries_;
  durable_.size = file_size_;
  durable_.content_hash = signer_.previous_hash();
  durable_appended_ = requested_appended_ = entries_appended_;
  synced_pages_.Release(fd_.get(), durable_.size);
  return true;
}

bool AuditFileWriter::BeginSync(SyncPoint* point, std::string* err) {
  if (!Flush(err)) return false;
  point->head = {durable_.file, file_entries_, file_size_, signer_.previous_hash()};
  point->appended = entries_appended_;
  return true;
}

bool AuditFileWriter::SyncFd(int fd, const std::string& path, std::string* err) {
  if (fdatasync(fd) == 0) return true;
  *err = SysError("fdatasync", path);
  return false;
}

void AuditFileWriter::EndSync(const SyncPoint& point) {
  if (point.appended <= durable_appended_) return;
  durable_ = point.head;
  durable_appended_ = point.appended;
  requested_appended_ = std::max(requested_appended_, point.appended);
  synced_pages_.Release(fd_.get(), durable_.size);
}

bool AuditFileWriter::SyncInBackground(std::string* err) {
  if (worker_.in_flight()) return true;  // the next call after SyncFinished
  if (entries_appended_ == durable_appended_) return true;
  if (!Flush(err)) return false;
  if (!background_problem_.empty() || !fd_.ok() || sync_is_quick()) return Sync(err);
  // The thread's fdatasync starts after these writes returned: it covers them.
  requested_ = {durable_.file, file_entries_, file_size_, signer_.previous_hash()};
  const uint64_t requested_appended = entries_appended_;
  const int fd = fd_.get();
  int64_t* took_ns = &thread_sync_ns_;
  const bool started = worker_.Run(
      [fd, took_ns] {
        const int64_t start_ns = MonotonicNs();
        const int error = fdatasync(fd) == 0 ? 0 : errno;
        *took_ns = MonotonicNs() - start_ns;
        return error;
      },
      &background_problem_);
  if (!started) return Sync(err);
  requested_appended_ = requested_appended;
  return true;
}

bool AuditFileWriter::SyncFinished(bool block, std::string* err) {
  int error = 0;
  if (!worker_.Collect(block, &error)) return true;  // none in flight, or not ended
  if (error != 0) {
    errno = error;
    *err = SysError("fdatasync", path_);
    return false;
  }
  last_sync_ns_ = thread_sync_ns_;
  // Forward only: an in-line Sync() may have gone further meanwhile.
  if (requested_appended_ > durable_appended_) {
    durable_ = requested_;
    durable_appended_ = requested_appended_;
    synced_pages_.Release(fd_.get(), durable_.size);
  }
  return true;
}

bool AuditFileWriter::Reopen(std::string* err) {
  if (fd_.ok() && !Sync(err)) return false;
  const std::string path = path_;
  const std::string key = key_;
  return Open(path, key, err);
}

bool AuditFileWriter::RecentEntryIds(size_t max_entries, std::vector<std::string>* ids,
                                     std::string* err, uint64_t* first_offset) {
  ids->clear();
  if (!Flush(err)) return false;
  struct stat st;
  if (fstat(fd_.get(), &st) != 0) {
    *err = SysError("fstat", path_);
    return false;
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  // Line by line from the end, one line in memory at a time: the lines'
  // length is up to the sandboxes (a few hundred KiB each within the default
  // limits), so a window holding max_entries of them could take a GiB.
  std::vector<std::string> newest_first;
  std::string line;
  audit_verifier::LineFacts facts;
  uint64_t stop = size;  // the lines before this offset are still to read
  while (newest_first.size() < max_entries && stop > 0) {
    uint64_t complete = 0;
    if (!ReadLastLine(fd_.get(), path_, stop, &line, &complete, err)) return false;
    if (complete == 0) break;  // no whole line left
    std::string reason;
    if (!audit_verifier::VerifyLine(line, nullptr, signer_.hasher(), &facts, &reason)) {
      *err = path_ + ": reading entry ids: " + reason;
      return false;
    }
    newest_first.push_back(facts.entry_id);
    stop = complete - 1 - line.size();
  }
  ids->assign(newest_first.rbegin(), newest_first.rend());
  if (first_offset != nullptr) *first_offset = stop;
  return true;
}

bool AuditFileWriter::ReadLinesFrom(uint64_t offset,
                                    const std::function<bool(uint64_t, std::string_view)>& each,
                                    std::string* err) {
  if (!Flush(err)) return false;
  struct stat st;
  if (fstat(fd_.get(), &st) != 0) {
    *err = SysError("fstat", path_);
    return false;
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  std::string line;
  char buf[64 * 1024];
  uint64_t at = offset, line_start = offset;
  while (at < size) {
    const ssize_t n =
        pread(fd_.get(), buf, static_cast<size_t>(std::min<uint64_t>(sizeof buf, size - at)),
              static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *err = n < 0 ? SysError("pread", path_) : path_ + ": shorter than its size while read";
      return false;
    }
    const char* p = buf;
    const char* end = buf + n;
    while (p < end) {
      const char* nl = static_cast<const char*>(memchr(p, '\n', static_cast<size_t>(end - p)));
      if (nl == nullptr) {
        line.append(p, static_cast<size_t>(end - p));
        break;
      }
      line.append(p, static_cast<size_t>(nl - p));
      if (!each(line_start, line)) return true;
      line_start += line.size() + 1;
      line.clear();
      p = nl + 1;
    }
    at += static_cast<uint64_t>(n);
  }
  return true;  // a torn last line (none after Open) is not a line
}

}  // namespace audit_file
