#include "listen/cgroup_sandbox_id.h"

#include <doctest/doctest.h>

#include <string>

namespace {

const std::string kId(64, 'a');

std::string IdOf(const std::string& proc_cgroup, const std::string& pattern = "") {
  cgroup_sandbox_id::Matcher m;
  std::string err;
  REQUIRE(m.Init(pattern, &err));
  std::string cgroup, id;
  return m.Match(proc_cgroup, &cgroup, &id) ? id : "<none: " + cgroup + ">";
}

}  // namespace

TEST_CASE("the container id from the cgroup layouts of Docker, containerd, CRI-O, Kubernetes") {
  CHECK(IdOf("0::/system.slice/docker-" + kId + ".scope\n") == kId);
  CHECK(IdOf("0::/docker/" + kId + "\n") == kId);
  CHECK(IdOf("12:memory:/docker/" + kId + "\n0::/\n") == kId);
  CHECK(IdOf("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/"
             "cri-containerd-" +
             kId + ".scope\n") == kId);
  CHECK(IdOf("0::/kubepods/burstable/pod0b1c/" + kId + "\n") == kId);
  CHECK(IdOf("0::/machine.slice/crio-" + kId + ".scope\n") == kId);
  // Nested cgroups below the container's (a systemd inside it) still name it.
  CHECK(IdOf("0::/system.slice/docker-" + kId + ".scope/init.scope\n") == kId);
}

TEST_CASE("no layout: no sandbox id, and the unified path is the one reported") {
  CHECK(IdOf("4:memory:/user.slice\n0::/user.slice/session-1.scope\n") ==
        "<none: /user.slice/session-1.scope>");
  CHECK(IdOf("0::/docker-" + std::string(63, 'a') + ".scope\n") ==
        "<none: /docker-" + std::string(63, 'a') + ".scope>");  // not 64 hex digits
  CHECK(IdOf("0::/docker-" + kId + ".scopeX\n").rfind("<none", 0) == 0);
  CHECK(IdOf("") == "<none: >");
  CHECK(IdOf("garbage without colons") == "<none: >");
}

TEST_CASE("the operator's pattern: its first group, checked like any sandbox id") {
  CHECK(IdOf("0::/agents/sb-7.scope\n", "/agents/([a-z0-9-]+)\\.scope$") == "sb-7");
  CHECK(IdOf("0::/agents/..\n", "/agents/(.*)$").rfind("<none", 0) == 0);
  cgroup_sandbox_id::Matcher m;
  std::string err;
  CHECK_FALSE(m.Init("/agents/[a-z]+", &err));
  CHECK(err.find("has no group") != std::string::npos);
  cgroup_sandbox_id::Matcher bad;
  CHECK_FALSE(bad.Init("(unclosed", &err));
  CHECK(err.find("cgroup pattern") == 0);
}

TEST_CASE("a cgroup seen before is answered from the cache, the same as the first time") {
  cgroup_sandbox_id::Matcher m;
  std::string err;
  REQUIRE(m.Init("", &err));
  const std::string docker = "0::/system.slice/docker-" + kId + ".scope\n";
  const std::string none = "0::/user.slice/session-1.scope\n";
  for (int round = 0; round < 2; ++round) {
    std::string cgroup, id;
    CHECK(m.Match(docker, &cgroup, &id));
    CHECK(id == kId);
    CHECK(cgroup == "/system.slice/docker-" + kId + ".scope");
    CHECK_FALSE(m.Match(none, &cgroup, &id));
    CHECK(id.empty());
    CHECK(cgroup == "/user.slice/session-1.scope");
  }
  CHECK(m.cache_hits() == 2);
  // Bounded: more distinct texts than it keeps are still answered right.
  for (size_t i = 0; i <= cgroup_sandbox_id::Matcher::kMaxCached; ++i) {
    std::string cgroup, id;
    CHECK_FALSE(m.Match("0::/user.slice/u" + std::to_string(i) + "\n", &cgroup, &id));
  }
  std::string cgroup, id;
  CHECK(m.Match(docker, &cgroup, &id));
  CHECK(id == kId);
}
