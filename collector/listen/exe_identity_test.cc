#include "listen/exe_identity.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "test_util.h"
#include "unique_fd.h"

namespace {

std::string HashOf(const std::string& path) {
  const unique_fd::UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  std::string hex, err;
  struct stat st;
  REQUIRE(fstat(fd.get(), &st) == 0);
  REQUIRE(exe_identity::Sha256OfFile(fd.get(), st.st_size, &hex, &err));
  return hex;
}

}  // namespace

TEST_CASE("exe identity: a settled file is hashed once; one changed just now every time") {
  test_util::TempDir dir;
  const std::string path = dir / "shim";
  test_util::WriteFile(path, "genuine!");
  const std::string genuine = HashOf(path);
  std::string err;
  exe_identity::ShimReference shim;
  REQUIRE(shim.FromHex(genuine, &err));
  exe_identity::HashCache cache(&shim);
  exe_identity::HashBudget budget;
  using Result = exe_identity::HashCache::Result;

  const unique_fd::UniqueFd fd(open(path.c_str(), O_RDWR | O_CLOEXEC));
  REQUIRE(fd.ok());
  struct stat st;
  REQUIRE(fstat(fd.get(), &st) == 0);
  const exe_identity::Identity id = exe_identity::Identity::Of(st);
  std::string hex;

  // Changed within kSettledNs: hashed, not kept.
  const int64_t fresh = id.ctime_ns + exe_identity::HashCache::kSettledNs / 2;
  REQUIRE(cache.Sha256(fd.get(), id, fresh, &budget, &hex, &err) == Result::kKnown);
  CHECK(hex == genuine);
  std::string cached;
  CHECK(!cache.Cached(id, &cached));  // the caller opens the file and hashes it
  // Rewritten in place, same size, and (as within one timestamp tick) the
  // same identity: the new content is what is reported.
  REQUIRE(pwrite(fd.get(), "forged!!", 8, 0) == 8);
  REQUIRE(cache.Sha256(fd.get(), id, fresh, &budget, &hex, &err) == Result::kKnown);
  CHECK(hex == HashOf(path));
  CHECK(hex != genuine);
  CHECK(cache.hashed() == 2);

  // Settled: hashed once, then the cache answers for the identity.
  const int64_t settled = id.ctime_ns + exe_identity::HashCache::kSettledNs + 1;
  REQUIRE(cache.Sha256(fd.get(), id, settled, &budget, &hex, &err) == Result::kKnown);
  REQUIRE(cache.Sha256(fd.get(), id, settled, &budget, &hex, &err) == Result::kKnown);
  CHECK(cache.hashed() == 3);
  // ...and answers without a descriptor (no open of /proc/PID/exe).
  REQUIRE(cache.Cached(id, &cached));
  CHECK(cached == hex);
  // Another identity (a later ctime) is hashed again.
  exe_identity::Identity changed = id;
  changed.ctime_ns += 1;
  REQUIRE(cache.Sha256(fd.get(), changed, settled + 1, &budget, &hex, &err) == Result::kKnown);
  CHECK(cache.hashed() == 4);
}

TEST_CASE("exe identity: a file that cannot be the shim (another size) is not read") {
  test_util::TempDir dir;
  const std::string path = dir / "other";
  test_util::WriteFile(path, "a longer file than the shim");
  exe_identity::ShimReference shim;
  std::string err;
  test_util::WriteFile(dir / "shim", "shim");
  REQUIRE(shim.FromFile(dir / "shim", &err));
  exe_identity::HashCache cache(&shim);
  const unique_fd::UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st;
  REQUIRE(fstat(fd.get(), &st) == 0);
  std::string hex = "x";
  exe_identity::HashBudget budget;
  REQUIRE(cache.Sha256(fd.get(), exe_identity::Identity::Of(st), 0, &budget, &hex, &err) ==
          exe_identity::HashCache::Result::kKnown);
  CHECK(hex.empty());
  CHECK(cache.hashed() == 0);
}

TEST_CASE(
    "exe identity: with only the shim's hash given, its size is learnt from its first match") {
  test_util::TempDir dir;
  test_util::WriteFile(dir / "shim", "genuine!");
  test_util::WriteFile(dir / "longer", "a longer file than the shim");
  exe_identity::ShimReference shim;
  std::string err;
  REQUIRE(shim.FromHex(HashOf(dir / "shim"), &err));
  exe_identity::HashCache cache(&shim);
  exe_identity::HashBudget budget;
  using Result = exe_identity::HashCache::Result;
  const auto hash = [&](const std::string& path, std::string* hex) {
    const unique_fd::UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat st;
    REQUIRE(fstat(fd.get(), &st) == 0);
    return cache.Sha256(fd.get(), exe_identity::Identity::Of(st), 0, &budget, hex, &err);
  };
  CHECK(cache.shim_size() == -1);
  std::string hex;
  // Before: any size may be the shim, so another file is read.
  REQUIRE(hash(dir / "longer", &hex) == Result::kKnown);
  CHECK(hex == HashOf(dir / "longer"));
  CHECK(cache.hashed() == 1);
  CHECK(cache.shim_size() == -1);
  REQUIRE(hash(dir / "shim", &hex) == Result::kKnown);
  CHECK(hex == shim.sha256());
  CHECK(cache.shim_size() == 8);
  // After: a file of another size (a new one: nothing cached) is not read.
  test_util::WriteFile(dir / "other", "another file, another size");
  REQUIRE(hash(dir / "other", &hex) == Result::kKnown);
  CHECK(hex.empty());
  CHECK(cache.hashed() == 2);
}

TEST_CASE("exe identity: hashing is paid from the budget; a file it cannot pay for is not read") {
  test_util::TempDir dir;
  const std::string path = dir / "exe";
  test_util::WriteFile(path, std::string(1000, 'x'));
  exe_identity::ShimReference shim;
  std::string err;
  REQUIRE(shim.FromHex(std::string(64, '0'), &err));  // nothing matches: every file is read
  exe_identity::HashCache cache(&shim);
  using Result = exe_identity::HashCache::Result;
  const unique_fd::UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st;
  REQUIRE(fstat(fd.get(), &st) == 0);
  const exe_identity::Identity id = exe_identity::Identity::Of(st);
  const int64_t fresh = id.ctime_ns;  // changed just now: never cached, read each time

  exe_identity::HashBudget budget;
  constexpr int64_t kFull = exe_identity::HashBudget::kBytesPerSecond;
  budget.Refill(0);
  CHECK(budget.bytes() == kFull);  // starts full
  REQUIRE(budget.Take(kFull - 1500));
  std::string hex;
  REQUIRE(cache.Sha256(fd.get(), id, fresh, &budget, &hex, &err) == Result::kKnown);
  CHECK(budget.bytes() == 500);
  CHECK(cache.hashed() == 1);
  // 500 bytes left, the file is 1000: not read.
  CHECK(cache.Sha256(fd.get(), id, fresh, &budget, &hex, &err) == Result::kOverBudget);
  CHECK(cache.hashed() == 1);
  CHECK(budget.bytes() == 500);
  // A millisecond later the bucket holds kFull / 1000 more, never more than kFull.
  budget.Refill(1);
  CHECK(budget.bytes() == 500 + kFull / 1000);
  REQUIRE(cache.Sha256(fd.get(), id, fresh, &budget, &hex, &err) == Result::kKnown);
  CHECK(cache.hashed() == 2);
  budget.Refill(60'000);
  CHECK(budget.bytes() == kFull);
  // A clock that went back adds nothing.
  REQUIRE(budget.Take(kFull));
  budget.Refill(59'000);
  CHECK(budget.bytes() == 0);
}

TEST_CASE("exe identity: a file that grew past its stated size is not read to its end") {
  test_util::TempDir dir;
  const std::string path = dir / "exe";
  test_util::WriteFile(path, std::string(200000, 'x'));
  const unique_fd::UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  std::string hex, err;
  CHECK(!exe_identity::Sha256OfFile(fd.get(), 100, &hex, &err));
  CHECK(err == "the file grew past its size while it was hashed");
  REQUIRE(exe_identity::Sha256OfFile(fd.get(), 200000, &hex, &err));
  CHECK(hex == HashOf(path));
}

TEST_CASE("exe identity: --shim naming a file larger than any executable hashed is refused") {
  test_util::TempDir dir;
  const std::string path = dir / "huge";
  const unique_fd::UniqueFd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0755));
  REQUIRE(ftruncate(fd.get(), exe_identity::kMaxHashedBytes + 1) == 0);
  exe_identity::ShimReference shim;
  std::string err;
  CHECK(!shim.FromFile(path, &err));
  CHECK(err.find("more than any executable is hashed for (64 MiB): not the shim") !=
        std::string::npos);
}
