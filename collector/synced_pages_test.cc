#include "synced_pages.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "audit_file.h"
#include "audit_verifier.h"
#include "test_util.h"
#include "unique_fd.h"

namespace {

constexpr uint64_t kMiB = 1 << 20;

// A directory on a disk file system: on tmpfs the cached pages are the file
// itself, and nothing lets them go.
test_util::TempDir DiskDir() {
  test_util::TempDir dir("/tmp");
  struct statfs fs;
  REQUIRE_MESSAGE(
      (!dir.path().empty() && statfs(dir.path().c_str(), &fs) == 0 && fs.f_type != TMPFS_MAGIC),
      "needs /tmp on a disk file system, not tmpfs");
  return dir;
}

// Which of the file's pages are in the page cache (mincore of a mapping
// that never touches them), counted per MiB.
std::vector<size_t> ResidentPagesPerMiB(const std::string& path) {
  const unique_fd::UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  REQUIRE(fd.ok());
  const off_t size = lseek(fd.get(), 0, SEEK_END);
  REQUIRE(size > 0);
  void* map = mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_SHARED, fd.get(), 0);
  REQUIRE(map != MAP_FAILED);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> in_core((static_cast<size_t>(size) + page - 1) / page);
  REQUIRE(mincore(map, static_cast<size_t>(size), in_core.data()) == 0);
  munmap(map, static_cast<size_t>(size));
  std::vector<size_t> per_mib((static_cast<size_t>(size) + kMiB - 1) / kMiB);
  for (size_t i = 0; i < in_core.size(); ++i) {
    if (in_core[i] & 1) ++per_mib[i * page / kMiB];
  }
  return per_mib;
}

void WriteSynced(int fd, uint64_t bytes) {
  const std::string chunk(kMiB / 4, 'x');
  for (uint64_t done = 0; done < bytes; done += chunk.size()) {
    REQUIRE(write(fd, chunk.data(), chunk.size()) == static_cast<ssize_t>(chunk.size()));
  }
  REQUIRE(fdatasync(fd) == 0);
}

}  // namespace

TEST_CASE("synced pages: what is durable leaves the page cache, but for the window at the end") {
  static_assert(synced_pages::SyncedPages::kKeepBytes == 8 * kMiB);
  const test_util::TempDir dir = DiskDir();
  const std::string path = dir / "audit.jsonl";
  const unique_fd::UniqueFd fd(open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600));
  REQUIRE(fd.ok());
  synced_pages::SyncedPages pages;

  // Less than the window: all of it stays.
  WriteSynced(fd.get(), 6 * kMiB);
  pages.Release(fd.get(), 6 * kMiB);
  CHECK(pages.released() == 0);

  // 20 MiB: the first 12 go, the last 8 stay.
  WriteSynced(fd.get(), 14 * kMiB);
  pages.Release(fd.get(), 20 * kMiB);
  CHECK(pages.released() == 12 * kMiB);
  std::vector<size_t> resident = ResidentPagesPerMiB(path);
  REQUIRE(resident.size() == 20);
  for (size_t mib = 0; mib < 12; ++mib) CHECK_MESSAGE(resident[mib] == 0, "MiB " << mib);
  for (size_t mib = 12; mib < 20; ++mib) CHECK_MESSAGE(resident[mib] > 0, "MiB " << mib);

  // Less than a step more: no call; a whole step more: one more MiB goes.
  pages.Release(fd.get(), 20 * kMiB + kMiB / 2);
  CHECK(pages.released() == 12 * kMiB);
  WriteSynced(fd.get(), kMiB);
  pages.Release(fd.get(), 21 * kMiB);
  CHECK(pages.released() == 13 * kMiB);
  resident = ResidentPagesPerMiB(path);
  CHECK(resident[12] == 0);
  CHECK(resident[13] > 0);

  // A failed call (a closed descriptor) moves nothing: the next one covers it.
  pages.Release(-1, 30 * kMiB);
  CHECK(pages.released() == 13 * kMiB);
}

TEST_CASE("synced pages: the audit file lets go of what a sync made durable, and still verifies") {
  const test_util::TempDir dir = DiskDir();
  const std::string path = dir / "audit.jsonl";
  std::string err;
  audit_file::AuditFileWriter w;
  REQUIRE(w.Open(path, "key", &err));
  // About 11 MiB of entries of 4 KB: more than the kept window.
  audit_entry::AuditEntryFields fields = test_util::SampleEntry(0);
  fields.data_canonical = "{\"pad\": \"" + std::string(4000, 'a') + "\"}";
  int appended = 0;
  while (w.durable_head().size < 11 * kMiB) {
    REQUIRE(w.Append(fields, &err));
    if (++appended % 256 == 0) REQUIRE(w.Sync(&err));
  }
  const std::vector<size_t> resident = ResidentPagesPerMiB(path);
  CHECK(resident[0] == 0);                   // durable for long: gone from the cache
  CHECK(resident[resident.size() - 1] > 0);  // the end: kept
  REQUIRE(w.Close(&err));
  // Read back from the disk, the chain is whole.
  audit_verifier::VerifyReport report;
  CHECK(audit_verifier::VerifyAuditFile(path, "key", &report, &err) ==
        audit_verifier::VerifyResult::kValid);
  CHECK(report.entries == static_cast<uint64_t>(appended));
}
