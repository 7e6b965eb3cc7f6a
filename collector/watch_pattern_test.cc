#include "watch_pattern.h"

#include <doctest/doctest.h>

TEST_CASE("watch patterns: one {sandbox_id} filling a whole component") {
  std::string err;
  CHECK(watch_pattern::IsValidWatchPattern("/var/log/agt/sandboxes/{sandbox_id}/denied.log", &err));
  CHECK(watch_pattern::IsValidWatchPattern("/{sandbox_id}/denied.log", &err));
  for (const char* bad :
       {"var/{sandbox_id}/l", "/var/log/denied.log", "/a/{sandbox_id}/{sandbox_id}/l",
        "/a/x{sandbox_id}/l", "/a/{sandbox_id}x/l", "/a/{sandbox_id}", "/a/{sandbox_id}/",
        "/a/*/{sandbox_id}/l", "/a/../{sandbox_id}/l", "/a//{sandbox_id}/l", "/a/{sandbox}/l"}) {
    CAPTURE(bad);
    CHECK_FALSE(watch_pattern::IsValidWatchPattern(bad, &err));
  }
}

TEST_CASE("watch patterns: matching extracts a plausible sandbox id") {
  const char* p = "/var/log/agt/sandboxes/{sandbox_id}/denied.log";
  std::string id;
  CHECK(watch_pattern::MatchWatchPattern(p, "/var/log/agt/sandboxes/sb-1/denied.log", &id));
  CHECK(id == "sb-1");
  CHECK_FALSE(watch_pattern::MatchWatchPattern(p, "/var/log/agt/sandboxes/a/b/denied.log", &id));
  CHECK_FALSE(watch_pattern::MatchWatchPattern(p, "/var/log/agt/sandboxes/../denied.log", &id));
  CHECK_FALSE(watch_pattern::MatchWatchPattern(p, "/var/log/agt/sandboxes//denied.log", &id));
  CHECK_FALSE(watch_pattern::MatchWatchPattern(p, "/var/log/agt/sandboxes/sb 1/denied.log", &id));
  CHECK_FALSE(watch_pattern::MatchWatchPattern(p, "/var/log/agt/sandboxes/sb-1/denied.log.1", &id));
  CHECK(watch_pattern::PatternBaseDir(p) == "/var/log/agt/sandboxes");
  CHECK(watch_pattern::PatternBaseDir("/{sandbox_id}/l") == "/");
}

TEST_CASE("sandbox ids") {
  CHECK(watch_pattern::IsPlausibleSandboxId("sb-1_a.b"));
  CHECK_FALSE(watch_pattern::IsPlausibleSandboxId(""));
  CHECK_FALSE(watch_pattern::IsPlausibleSandboxId("."));
  CHECK_FALSE(watch_pattern::IsPlausibleSandboxId(".."));
  CHECK_FALSE(watch_pattern::IsPlausibleSandboxId("a/b"));
  CHECK_FALSE(watch_pattern::IsPlausibleSandboxId(std::string(129, 'a')));
  CHECK(watch_pattern::IsPlausibleSandboxId(std::string(128, 'a')));
}
