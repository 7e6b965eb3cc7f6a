#include "cli_args.h"

#include <doctest/doctest.h>

#include <vector>

namespace {

const cli_args::OptionRow kRows[] = {
    {"--key-file", "K", "key"},
    {"--out", "FILE", "output"},
    {"--force", nullptr, "a flag"},
};

bool ParseList(std::vector<const char*> args, cli_args::ParsedArgs* out, std::string* err) {
  args.insert(args.begin(), {"agt-collector", "cmd"});
  return cli_args::Parse(static_cast<int>(args.size()), const_cast<char**>(args.data()), 2, kRows,
                         3, out, err);
}

}  // namespace

TEST_CASE("options: both spellings, flags, positionals and --") {
  cli_args::ParsedArgs a;
  std::string err;
  REQUIRE(ParseList({"--key-file", "k", "--out=o", "--force", "log1", "--", "--log2"}, &a, &err));
  CHECK(a.get("--key-file") == "k");
  CHECK(a.get("--out") == "o");
  CHECK(a.has("--force"));
  CHECK(a.positional == std::vector<std::string>{"log1", "--log2"});
}

TEST_CASE("options: errors") {
  std::string err;
  {
    cli_args::ParsedArgs a;
    CHECK_FALSE(ParseList({"--key-fil", "k"}, &a, &err));
    CHECK(err == "unknown option --key-fil (did you mean --key-file?)");
  }
  {
    cli_args::ParsedArgs a;
    CHECK_FALSE(ParseList({"--out", "a", "--out", "b"}, &a, &err));
    CHECK(err == "option --out given twice");
  }
  {
    cli_args::ParsedArgs a;
    CHECK_FALSE(ParseList({"--out"}, &a, &err));
    CHECK(err.find("needs a value") != std::string::npos);
  }
  {
    cli_args::ParsedArgs a;
    CHECK_FALSE(ParseList({"--force=1"}, &a, &err));
    CHECK_FALSE(ParseList({"-x"}, &a, &err));
  }
  {
    cli_args::ParsedArgs a;
    CHECK_FALSE(ParseList({"--out="}, &a, &err));
  }
}

TEST_CASE("options help lists every row") {
  const std::string help = cli_args::OptionsHelp(kRows, 3);
  CHECK(help.find("--key-file K") != std::string::npos);
  CHECK(help.find("--force") != std::string::npos);
  CHECK(help.find("a flag") != std::string::npos);
}
