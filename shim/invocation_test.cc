#include "invocation.h"

#include <doctest/doctest.h>

#include <string>

TEST_CASE("basename") {
  CHECK(invocation::Basename("/usr/bin/curl") == "curl");
  CHECK(invocation::Basename("curl") == "curl");
  CHECK(invocation::Basename("/usr/bin/") == "");
  CHECK(invocation::Basename("") == "");
}

TEST_CASE("plausible names") {
  CHECK(invocation::IsPlausibleName("curl"));
  CHECK(invocation::IsPlausibleName("apt-get"));
  CHECK(invocation::IsPlausibleName("g++"));
  CHECK(invocation::IsPlausibleName("python3.11"));
  CHECK(invocation::IsPlausibleName(std::string(64, 'a')));
  CHECK_FALSE(invocation::IsPlausibleName(std::string(65, 'a')));
  CHECK_FALSE(invocation::IsPlausibleName(""));
  CHECK_FALSE(invocation::IsPlausibleName("."));
  CHECK_FALSE(invocation::IsPlausibleName(".."));
  CHECK_FALSE(invocation::IsPlausibleName("a b"));
  CHECK_FALSE(invocation::IsPlausibleName("cu\"rl"));
  CHECK_FALSE(invocation::IsPlausibleName("caf\xc3\xa9"));
}

TEST_CASE("the exec path names the command, not argv[0]") {
  CHECK(invocation::DeniedName("/usr/bin/az", "agt-deny-shim") == "az");
  CHECK(invocation::DeniedName("/usr/bin/az", "kubectl") == "az");
  CHECK(invocation::DeniedName("curl", "curl") == "curl");
}

TEST_CASE("through the shim's own path, argv[0] names the command") {
  CHECK(invocation::DeniedName("/opt/agt/agt-deny-shim", "/usr/bin/wget") == "wget");
  CHECK(invocation::DeniedName("/opt/agt/agt-deny-shim", "bad name") == "unknown");
}

TEST_CASE("empty argv and implausible names are unknown") {
  CHECK(invocation::DeniedName("/usr/bin/curl", nullptr) == "unknown");
  CHECK(invocation::DeniedName("/usr/bin/curl", "") == "unknown");
  CHECK(invocation::DeniedName("/tmp/x\ny", "curl") == "unknown");
  CHECK(invocation::DeniedName("/tmp/..", "curl") == "unknown");
  CHECK(invocation::DeniedName("", "/bin/ssh") == "ssh");
}

TEST_CASE("a name holding a secret shape is unknown, never shown") {
  CHECK(invocation::DeniedName("/opt/agt/agt-deny-shim", "AKIAIOSFODNN7EXAMPLE") == "unknown");
  CHECK(invocation::DeniedName("/tmp/sk-abcdefghijklmnopqrstuvwxyz", "curl") == "unknown");
  CHECK(invocation::DeniedName("/tmp/xoxb-1234567890-abcdefghij", "curl") == "unknown");
  CHECK(invocation::DeniedName("/usr/bin/AKIA", "curl") == "AKIA");  // too short to be a key
}

TEST_CASE("self mode needs both the exec path and argv[0]") {
  CHECK(invocation::IsSelfMode("/usr/local/bin/agt-deny-shim", "agt-deny-shim"));
  CHECK(invocation::IsSelfMode("./agt-deny-shim", "/x/agt-deny-shim"));
  CHECK_FALSE(invocation::IsSelfMode("/usr/bin/az", "agt-deny-shim"));
  CHECK_FALSE(invocation::IsSelfMode("/usr/local/bin/agt-deny-shim", "curl"));
  CHECK_FALSE(invocation::IsSelfMode("/usr/local/bin/agt-deny-shim", nullptr));
}
