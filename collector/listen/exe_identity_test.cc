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
  REQUIRE(exe_identity::Sha256OfFile(fd.get(), &hex, &err));
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

  const unique_fd::UniqueFd fd(open(path.c_str(), O_RDWR | O_CLOEXEC));
  REQUIRE(fd.ok());
  struct stat st;
  REQUIRE(fstat(fd.get(), &st) == 0);
  const exe_identity::Identity id = exe_identity::Identity::Of(st);
  std::string hex;

  // Changed within kSettledNs: hashed, not kept.
  const int64_t fresh = id.ctime_ns + exe_identity::HashCache::kSettledNs / 2;
  REQUIRE(cache.Sha256(fd.get(), id, fresh, &hex, &err));
  CHECK(hex == genuine);
  std::string cached;
  CHECK(!cache.Cached(id, &cached));  // the caller opens the file and hashes it
  // Rewritten in place, same size, and (as within one timestamp tick) the
  // same identity: the new content is what is reported.
  REQUIRE(pwrite(fd.get(), "forged!!", 8, 0) == 8);
  REQUIRE(cache.Sha256(fd.get(), id, fresh, &hex, &err));
  CHECK(hex == HashOf(path));
  CHECK(hex != genuine);
  CHECK(cache.hashed() == 2);

  // Settled: hashed once, then the cache answers for the identity.
  const int64_t settled = id.ctime_ns + exe_identity::HashCache::kSettledNs + 1;
  REQUIRE(cache.Sha256(fd.get(), id, settled, &hex, &err));
  REQUIRE(cache.Sha256(fd.get(), id, settled, &hex, &err));
  CHECK(cache.hashed() == 3);
  // ...and answers without a descriptor (no open of /proc/PID/exe).
  REQUIRE(cache.Cached(id, &cached));
  CHECK(cached == hex);
  // Another identity (a later ctime) is hashed again.
  exe_identity::Identity changed = id;
  changed.ctime_ns += 1;
  REQUIRE(cache.Sha256(fd.get(), changed, settled + 1, &hex, &err));
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
  REQUIRE(cache.Sha256(fd.get(), exe_identity::Identity::Of(st), 0, &hex, &err));
  CHECK(hex.empty());
  CHECK(cache.hashed() == 0);
}
