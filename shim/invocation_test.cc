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

namespace {

// Attribute() for a one-element argv (or none when argv0 is null).
std::string_view DeniedName(std::string_view exec_path, const char* argv0) {
  const char* argv[] = {argv0, nullptr};
  return invocation::Attribute(exec_path, argv0 != nullptr ? 1 : 0, argv).binary;
}

}  // namespace

TEST_CASE("the exec path names the command, not argv[0]") {
  CHECK(DeniedName("/usr/bin/az", "agt-deny-shim") == "az");
  CHECK(DeniedName("/usr/bin/az", "kubectl") == "az");
  CHECK(DeniedName("curl", "curl") == "curl");
}

TEST_CASE("through the shim's own path, argv[0] names the command") {
  CHECK(DeniedName("/opt/agt/agt-deny-shim", "/usr/bin/wget") == "wget");
  CHECK(DeniedName("/opt/agt/agt-deny-shim", "bad name") == "unknown");
}

TEST_CASE("empty argv and implausible names are unknown") {
  CHECK(DeniedName("/usr/bin/curl", nullptr) == "unknown");
  CHECK(DeniedName("/usr/bin/curl", "") == "unknown");
  CHECK(DeniedName("/tmp/x\ny", "curl") == "unknown");
  CHECK(DeniedName("/tmp/..", "curl") == "unknown");
  CHECK(DeniedName("", "/bin/ssh") == "ssh");
}

TEST_CASE("a name holding a secret shape is unknown, never shown") {
  CHECK(DeniedName("/opt/agt/agt-deny-shim", "AKIAIOSFODNN7EXAMPLE") == "unknown");
  CHECK(DeniedName("/tmp/sk-abcdefghijklmnopqrstuvwxyz", "curl") == "unknown");
  CHECK(DeniedName("/tmp/xoxb-1234567890-abcdefghij", "curl") == "unknown");
  CHECK(DeniedName("/usr/bin/AKIA", "curl") == "AKIA");  // too short to be a key
}

TEST_CASE("self mode needs both the exec path and argv[0]") {
  CHECK(invocation::IsSelfMode("/usr/local/bin/agt-deny-shim", "agt-deny-shim"));
  CHECK(invocation::IsSelfMode("./agt-deny-shim", "/x/agt-deny-shim"));
  CHECK_FALSE(invocation::IsSelfMode("/usr/bin/az", "agt-deny-shim"));
  CHECK_FALSE(invocation::IsSelfMode("/usr/local/bin/agt-deny-shim", "curl"));
  CHECK_FALSE(invocation::IsSelfMode("/usr/local/bin/agt-deny-shim", nullptr));
}

TEST_CASE("how the shim was reached") {
  using invocation::Via;
  const char* spoofed[] = {"", "https://x", nullptr};
  invocation::Attribution a = invocation::Attribute("/usr/bin/curl", 2, spoofed);  // exec -a ''
  CHECK(a.binary == "curl");
  CHECK(a.via == Via::kPath);
  const char* fd_argv[] = {"curl", "x", nullptr};
  for (const char* path :
       {"/dev/fd/3", "/proc/self/fd/4", "/proc/thread-self/fd/5", "/proc/123/fd/6"}) {
    a = invocation::Attribute(path, 2, fd_argv);
    CHECK(a.binary == "unknown");
    CHECK(a.via == Via::kFd);
  }
  CHECK_FALSE(
      invocation::IsFdPath("/dev/fd/3/curl"));  // execveat(dirfd, "curl"): named by its path
  CHECK_FALSE(invocation::IsFdPath("/proc/self/fd/"));
  CHECK_FALSE(invocation::IsFdPath("/proc/x/fd/3"));
  const char* shim_argv[] = {"/usr/bin/wget", nullptr};
  CHECK(invocation::Attribute("/opt/agt-deny-shim", 1, shim_argv).via == Via::kArgv0);
  const char* empty[] = {"", nullptr};
  CHECK(invocation::Attribute("/usr/bin/curl", 1, empty).via == Via::kNone);
  CHECK(invocation::Attribute("/usr/bin/curl", 0, nullptr).via == Via::kNone);
}

TEST_CASE("through a script's #! line: the interpreter names the command, the script is kept") {
  using invocation::Via;
  const char* plain[] = {"/usr/bin/curl", "./ls", "-la", nullptr};  // #!/usr/bin/curl in ./ls
  invocation::Attribution a = invocation::Attribute("./ls", 3, plain);
  CHECK(a.binary == "curl");
  CHECK(a.via == Via::kScript);
  CHECK(a.script == "./ls");
  const char* with_arg[] = {"/usr/bin/curl", "-s", "/tmp/ls", nullptr};  // #!/usr/bin/curl -s
  a = invocation::Attribute("/tmp/ls", 3, with_arg);
  CHECK(a.binary == "curl");
  CHECK(a.script == "/tmp/ls");
  const char* relative[] = {"curl", "./ls", nullptr};  // not what the kernel builds
  CHECK(invocation::Attribute("./ls", 2, relative).via == Via::kPath);
  const char* other[] = {"/usr/bin/curl", "other", nullptr};
  CHECK(invocation::Attribute("./ls", 2, other).via == Via::kPath);
}
