#include "listen/cgroup_by_id.h"

#include <doctest/doctest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "listen/peer_attestation.h"
#include "unique_fd.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77  // Linux 6.5; older headers lack it
#endif

namespace {

const std::string kId(64, 'a');
const std::string kScope = "/system.slice/docker-" + kId + ".scope";

}  // namespace

TEST_CASE("the unified hierarchy's path of a /proc/PID/cgroup text") {
  CHECK(cgroup_by_id::UnifiedPath("0::/a/b\n") == "/a/b");
  CHECK(cgroup_by_id::UnifiedPath("4:memory:/x\n0::/a\n1:cpu:/y\n") == "/a");
  CHECK(cgroup_by_id::UnifiedPath("4:memory:/x\n1:cpu:/y\n").empty());
  CHECK(cgroup_by_id::UnifiedPath("").empty());
}

TEST_CASE("an answer is kept by cgroup id only when the unified path gave it") {
  cgroup_by_id::Cache cache;
  std::string cgroup, id;
  CHECK_FALSE(cache.Find(7, &cgroup, &id));
  cache.Learn(7, "9:name=systemd:/\n0::" + kScope + "\n", kScope, kId);
  REQUIRE(cache.Find(7, &cgroup, &id));
  CHECK(cgroup == kScope);
  CHECK(id == kId);
  CHECK_FALSE(cache.Find(8, &cgroup, &id));  // another cgroup: not answered from 7's
  // A cgroup v1 line gave it: the next read may differ for the same id.
  cache.Learn(9, "4:memory:/docker/" + kId + "\n0::/\n", "/docker/" + kId, kId);
  CHECK_FALSE(cache.Find(9, &cgroup, &id));
  // Nothing matched: read again each time.
  cache.Learn(10, "0::/user.slice\n", "/user.slice", "");
  CHECK_FALSE(cache.Find(10, &cgroup, &id));
  CHECK(cache.size() == 1);
}

TEST_CASE("bounded: full, it forgets everything and learns again") {
  cgroup_by_id::Cache cache;
  for (uint64_t i = 0; i < cgroup_by_id::Cache::kMaxEntries; ++i) {
    cache.Learn(i, "0::" + kScope + "\n", kScope, kId);
  }
  CHECK(cache.size() == cgroup_by_id::Cache::kMaxEntries);
  cache.Learn(99999, "0::" + kScope + "\n", kScope, kId);
  CHECK(cache.size() == 1);
}

TEST_CASE("the kernel gives a peer's cgroup id through its pidfd, the same as a second ask") {
  int sv[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
  const unique_fd::UniqueFd a(sv[0]), b(sv[1]);
  int pidfd = -1;
  socklen_t len = sizeof pidfd;
  REQUIRE(getsockopt(a.get(), SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == 0);
  const unique_fd::UniqueFd owned(pidfd);
  uint64_t first = 0, second = 0;
  REQUIRE(peer_attestation::CgroupIdOf(pidfd, &first));
  REQUIRE(peer_attestation::CgroupIdOf(pidfd, &second));
  CHECK(first != 0);
  CHECK(first == second);
  // Not a pidfd: no answer.
  uint64_t none = 0;
  CHECK_FALSE(peer_attestation::CgroupIdOf(a.get(), &none));
}
