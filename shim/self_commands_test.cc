#include "self_commands.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "denied_names.h"

namespace {

struct Result {
  int status;
  std::string out;
  std::string err;
};

std::string Drain(int fd) {
  std::string text;
  char chunk[4096];
  ssize_t n;
  while ((n = read(fd, chunk, sizeof chunk)) > 0) text.append(chunk, static_cast<std::size_t>(n));
  close(fd);
  return text;
}

// Runs a self-mode command line with stdout/stderr captured in temp files.
Result RunCommand(std::vector<std::string> args) {
  char out_path[] = "/tmp/self_commands_test_outXXXXXX";
  char err_path[] = "/tmp/self_commands_test_errXXXXXX";
  int out_fd = mkstemp(out_path);
  int err_fd = mkstemp(err_path);
  REQUIRE(out_fd >= 0);
  REQUIRE(err_fd >= 0);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  Result r;
  r.status = self_commands::Run(static_cast<int>(args.size()), argv.data(), out_fd, err_fd);
  lseek(out_fd, 0, SEEK_SET);
  lseek(err_fd, 0, SEEK_SET);
  r.out = Drain(out_fd);
  r.err = Drain(err_fd);
  unlink(out_path);
  unlink(err_path);
  return r;
}

}  // namespace

TEST_CASE("the table holds every subcommand once, with help") {
  for (const char* name :
       {"--help", "--version", "list", "explain", "install", "allow", "harden", "verify"}) {
    CAPTURE(name);
    REQUIRE(self_commands::Find(name) != nullptr);
    CHECK(!self_commands::Find(name)->help.empty());
  }
  CHECK(self_commands::Find("uninstall") == nullptr);
  for (std::size_t i = 0; i < self_commands::CommandCount(); ++i) {
    for (std::size_t j = i + 1; j < self_commands::CommandCount(); ++j) {
      CHECK(self_commands::CommandAt(i).name != self_commands::CommandAt(j).name);
    }
  }
}

TEST_CASE("--help is generated from the table") {
  Result r = RunCommand({"--help"});
  CHECK(r.status == 0);
  for (std::size_t i = 0; i < self_commands::CommandCount(); ++i) {
    const self_commands::Command& c = self_commands::CommandAt(i);
    CHECK(r.out.find(std::string(c.help)) != std::string::npos);
  }
  CHECK(r.err.empty());
}

TEST_CASE("--version prints the version") {
  Result r = RunCommand({"--version"});
  CHECK(r.status == 0);
  CHECK(r.out.rfind("agt-deny-shim ", 0) == 0);
}

TEST_CASE("list prints every denied name with its category") {
  Result r = RunCommand({"list"});
  CHECK(r.status == 0);
  for (const denied_names::Row& row : denied_names::kRows) {
    std::string line = std::string(row.name);
    bool listed =
        r.out.find("\n" + line + " ") != std::string::npos || r.out.rfind(line + " ", 0) == 0;
    CHECK(listed);
  }
  CHECK(r.out.find("remote access") != std::string::npos);
}

TEST_CASE("explain") {
  Result ok = RunCommand({"explain", "curl"});
  CHECK(ok.status == 0);
  CHECK(ok.out.find("network") != std::string::npos);
  Result typo = RunCommand({"explain", "culr"});
  CHECK(typo.status == 1);
  CHECK(typo.err.find("did you mean 'curl'?") != std::string::npos);
  Result missing = RunCommand({"explain"});
  CHECK(missing.status == 2);
  Result weird = RunCommand({"explain", "a\nb"});
  CHECK(weird.status == 2);
  CHECK(weird.err.find("a\nb") == std::string::npos);
}

TEST_CASE("unknown commands and options exit 2 with a hint") {
  Result cmd = RunCommand({"lst"});
  CHECK(cmd.status == 2);
  CHECK(cmd.err.find("agt-deny-shim: error: unknown command 'lst' (did you mean 'list'?)") !=
        std::string::npos);
  Result opt = RunCommand({"--verison"});
  CHECK(opt.status == 2);
  CHECK(opt.err.find("unknown option '--verison' (did you mean '--version'?)") !=
        std::string::npos);
  Result none = RunCommand({});
  CHECK(none.status == 2);
  Result extra = RunCommand({"list", "x"});
  CHECK(extra.status == 2);
}
