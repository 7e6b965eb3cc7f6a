#include "image_options.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "denied_names.h"
#include "image_strip_names.h"
#include "image_test_support.h"

using image_options::Options;
using image_options::Subcommand;

namespace {

bool ParseArgs(Subcommand sub, std::vector<std::string> args, Options* o, std::string* err) {
  static std::vector<std::vector<std::string>> keep;  // argv outlives the views in Options
  keep.push_back(args);
  std::vector<char*> argv;
  for (std::string& a : keep.back()) argv.push_back(&a[0]);
  image_text::Text e;
  bool ok = image_options::Parse(sub, static_cast<int>(argv.size()), argv.data(), o, &e);
  *err = std::string(e.view());
  return ok;
}

}  // namespace

TEST_CASE("image_options: both --opt value and --opt=value") {
  Options o;
  std::string err;
  REQUIRE(ParseArgs(Subcommand::kInstall, {"--root", "/r", "--names=curl wget", "--shim", "/s"}, &o,
                    &err));
  CHECK(std::string(o.root) == "/r");
  CHECK(o.names_set);
  CHECK(o.names == "curl wget");
  CHECK(o.shim == "/s");
  Options d;
  REQUIRE(ParseArgs(Subcommand::kVerify, {"--root=/x"}, &d, &err));
  CHECK(std::string(d.root) == "/x");
  CHECK(d.shim == "/usr/local/lib/agt/agt-deny-shim");
}

TEST_CASE(
    "image_options: unknown options get a did-you-mean; options of other subcommands are unknown") {
  Options o;
  std::string err;
  CHECK(!ParseArgs(Subcommand::kInstall, {"--root", "/r", "--nmaes", "x"}, &o, &err));
  CHECK(err ==
        "unknown option \"--nmaes\" for install (did you mean --names?); see agt-deny-shim install "
        "--help");
  Options v;
  CHECK(!ParseArgs(Subcommand::kVerify, {"--root", "/r", "--names", "x"}, &v, &err));
  CHECK(err.find("unknown option \"--names\" for verify") == 0);
  Options p;
  CHECK(!ParseArgs(Subcommand::kAllow, {"--root", "/r", "stray"}, &p, &err));
  CHECK(err.find("unexpected argument \"stray\"") == 0);
}

TEST_CASE("image_options: --root is required and needs a value") {
  Options o;
  std::string err;
  CHECK(!ParseArgs(Subcommand::kHarden, {}, &o, &err));
  CHECK(err == "--root DIR is required; see agt-deny-shim harden --help");
  Options p;
  CHECK(!ParseArgs(Subcommand::kHarden, {"--root"}, &p, &err));
  CHECK(err == "--root needs a value (DIR)");
  Options q;
  CHECK(!ParseArgs(Subcommand::kHarden, {"--help=yes"}, &q, &err));
  Options h;
  CHECK(ParseArgs(Subcommand::kHarden, {"--help"}, &h, &err));
  CHECK(h.help);
}

TEST_CASE("image_options: lists come from the option, else the variable, else the default") {
  image_test::ScopedEnv env("AGT_TEST_LIST", "env1 env2");
  image_names::NameList a;
  image_options::Source src;
  image_text::Text err;
  REQUIRE(image_options::LoadList(true, "opt", "--names", "AGT_TEST_LIST",
                                  image_options::Default::kDeniedSet, &a, &src, &err));
  CHECK(src == image_options::Source::kOption);
  CHECK(a.size() == 1);
  image_names::NameList b;
  REQUIRE(image_options::LoadList(false, "", "--names", "AGT_TEST_LIST",
                                  image_options::Default::kDeniedSet, &b, &src, &err));
  CHECK(src == image_options::Source::kEnvironment);
  CHECK(b.size() == 2);
  image_test::ScopedEnv blank("AGT_TEST_LIST", "  ");  // an unset build-arg arrives blank
  image_names::NameList c;
  REQUIRE(image_options::LoadList(false, "", "--names", "AGT_TEST_LIST",
                                  image_options::Default::kDeniedSet, &c, &src, &err));
  CHECK(src == image_options::Source::kDefault);
  CHECK(c.size() == denied_names::kRows.size());
  image_names::NameList d;
  REQUIRE(image_options::LoadList(false, "", "--names", "AGT_TEST_LIST",
                                  image_options::Default::kStripSet, &d, &src, &err));
  CHECK(d.size() == image_strip_names::kRows.size());
  CHECK(d.Contains("sh"));
  CHECK(d.Contains("busybox"));
}

TEST_CASE("image_options: a blank option or a missing required list is an error") {
  image_test::ScopedEnv env("AGT_TEST_LIST", nullptr);
  image_names::NameList a;
  image_options::Source src;
  image_text::Text err;
  CHECK(!image_options::LoadList(true, " ", "--names", "AGT_TEST_LIST",
                                 image_options::Default::kDeniedSet, &a, &src, &err));
  CHECK(err.view() == "--names is empty");
  image_text::Text err2;
  CHECK(!image_options::LoadList(false, "", "--names", "AGT_TEST_LIST",
                                 image_options::Default::kRequired, &a, &src, &err2));
  CHECK(err2.view() == "no names: pass --names LIST or set AGT_TEST_LIST");
}

TEST_CASE("image_options: default names are all valid names") {
  for (const auto& row : denied_names::kRows) {
    image_text::Text why;
    CHECK_MESSAGE(image_names::ValidateName(row.name, &why), row.name);
  }
  for (const auto& row : image_strip_names::kRows) {
    image_text::Text why;
    CHECK_MESSAGE(image_names::ValidateName(row.name, &why), row.name);
    CHECK_MESSAGE(denied_names::Find(row.name) == nullptr, row.name);  // stripped, not shimmed
  }
}
