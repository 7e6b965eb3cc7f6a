#include "cli_args.h"

#include <doctest/doctest.h>

#include <vector>

namespace {

constexpr unsigned kCmd = 1, kOther = 2;

const cli_args::OptionRow kRows[] = {
    {"--key-file", "K", "key", kCmd},
    {"--out", "FILE", "output", kCmd},
    {"--force", nullptr, "a flag", kCmd},
    {"--watch", "P...", "patterns", kCmd, true},
    {"--other", nullptr, "another command's", kOther},
};

bool ParseList(std::vector<const char*> args, cli_args::ParsedArgs* out, std::string* err) {
  args.insert(args.begin(), {"agt-collector", "cmd"});
  return cli_args::Parse(static_cast<int>(args.size()), const_cast<char**>(args.data()), 2, kRows,
                         5, kCmd, out, err);
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
  {
    cli_args::ParsedArgs a;
    CHECK_FALSE(ParseList({"--other"}, &a, &err));  // another command's option
    CHECK(err.find("unknown option --other") == 0);
  }
  {
    cli_args::ParsedArgs a;
    CHECK_FALSE(ParseList({"--outt", "o"}, &a, &err));
    CHECK(err == "unknown option --outt (did you mean --out?)");
  }
}

TEST_CASE("options: a repeatable option takes every word up to the next option") {
  cli_args::ParsedArgs a;
  std::string err;
  REQUIRE(
      ParseList({"--watch", "p1", "p2", "--out", "o", "--watch=p3", "--watch", "p4"}, &a, &err));
  CHECK(a.all("--watch") == std::vector<std::string>{"p1", "p2", "p3", "p4"});
  CHECK(a.get("--out") == "o");
  CHECK(a.positional.empty());
}

TEST_CASE("options help lists every row") {
  const std::string help = cli_args::OptionsHelp(kRows, 5, kCmd);
  CHECK(help.find("--key-file K") != std::string::npos);
  CHECK(help.find("--other") == std::string::npos);  // not this command's
  CHECK(help.find("--force") != std::string::npos);
  CHECK(help.find("a flag") != std::string::npos);
}
