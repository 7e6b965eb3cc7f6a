#include "image_names.h"

#include <doctest/doctest.h>

#include <string>

using image_names::NameList;
using image_names::ParseNames;
using image_names::ValidateName;

namespace {

bool Valid(std::string_view name) {
  image_text::Text why;
  return ValidateName(name, &why);
}

}  // namespace

TEST_CASE("image_names: plausible command names pass") {
  for (std::string_view name :
       {"curl", "apt-get", "python3.11", "g++", "x86_64", "ansible-playbook", "a", "perl5.36.0"}) {
    CHECK_MESSAGE(Valid(name), name);
  }
  CHECK(Valid(std::string(64, 'a')));
}

TEST_CASE("image_names: paths, globs, shell characters and odd shapes fail") {
  for (std::string_view name :
       {"",        "usr/bin/curl",  "/curl",       "..",   ".",     "a..b",  "../x",
        "cu*rl",   "c?rl",          "[ab]",        "a;b",  "$(id)", "`id`",  "a|b",
        "a&b",     "a b",           "a\"b",        "a'b",  "~root", "{a,b}", "-rf",
        ".hidden", "agt-deny-shim", "caf\xc3\xa9", "a\\b", "a>b",   "a=b",   "a:b"}) {
    CHECK_MESSAGE(!Valid(name), name);
  }
  CHECK(!Valid(std::string(65, 'a')));
  CHECK(!Valid(std::string_view("a\0b", 3)));
}

TEST_CASE("image_names: the reason names the failing byte") {
  image_text::Text why;
  CHECK(!ValidateName("cu*rl", &why));
  CHECK(why.view() ==
        "byte 3 (\"*\") is not one of [A-Za-z0-9._+-]: no '/', glob or shell characters");
}

TEST_CASE("image_names: lists split on any whitespace and merge duplicates") {
  NameList list;
  image_text::Text err;
  REQUIRE(ParseNames("  curl\twget\n curl  ssh ", "--names", &list, &err));
  REQUIRE(list.size() == 3);
  CHECK(list[0] == "curl");
  CHECK(list[1] == "wget");
  CHECK(list[2] == "ssh");
  CHECK(list.Contains("ssh"));
  CHECK(!list.Contains("git"));
}

TEST_CASE("image_names: an empty or blank list parses to no names") {
  NameList list;
  image_text::Text err;
  CHECK(ParseNames("", "X", &list, &err));
  CHECK(ParseNames(" \t\n", "X", &list, &err));
  CHECK(list.empty());
  CHECK(image_names::IsBlank(" \t\n"));
  CHECK(!image_names::IsBlank(" a "));
}

TEST_CASE("image_names: one bad name fails the list and names its source") {
  NameList list;
  image_text::Text err;
  CHECK(!ParseNames("curl wget /usr/bin/ssh git", "DENIED_LOGGED_BIN_NAMES", &list, &err));
  CHECK(err.view() ==
        "bad name \"/usr/bin/ssh\" in DENIED_LOGGED_BIN_NAMES: byte 1 (\"/\") is not one of "
        "[A-Za-z0-9._+-]: no '/', glob or shell characters");
}

TEST_CASE("image_names: hostile bytes are escaped in messages") {
  NameList list;
  image_text::Text err;
  CHECK(!ParseNames("a\x1b[31mb", "--names", &list, &err));
  CHECK(err.view().find("\"a\\x1b[31mb\"") != std::string_view::npos);
}

TEST_CASE("image_names: more than 256 distinct names is refused, not cut") {
  std::string text;
  for (int i = 0; i < 257; ++i) text += "n" + std::to_string(i) + " ";
  NameList list;
  image_text::Text err;
  CHECK(!ParseNames(text, "--names", &list, &err));
  CHECK(err.view() == "too many names in --names: at most 256");
  NameList ok;
  image_text::Text err2;
  std::string dup;
  for (int i = 0; i < 300; ++i) dup += "same ";
  CHECK(ParseNames(dup, "--names", &ok, &err2));
  CHECK(ok.size() == 1);
}

TEST_CASE("image_names: an allow list may hold NAME=TARGET aliases of its own names") {
  NameList list;
  image_text::Text err;
  REQUIRE(ParseNames("python=python3 python3 ls", "ALLOWED_BIN_NAMES", &list, &err,
                     image_names::Aliases::kAccepted));
  CHECK(list.size() == 3);
  CHECK(list[0] == "python");
  CHECK(list.AliasOf(std::size_t{0}) == "python3");
  CHECK(list.AliasOf("python") == "python3");
  CHECK(list.AliasOf("python3").empty());
  CHECK(list.Contains("python"));
}

TEST_CASE("image_names: aliases are refused where not accepted, and checked where they are") {
  struct Case {
    const char* text;
    image_names::Aliases aliases;
    const char* why;
  };
  const Case cases[] = {
      {"python=python3 python3", image_names::Aliases::kRefused,
       "bad name \"python=python3\" in L"},
      {"python=python3", image_names::Aliases::kAccepted, "python3 is not in the list"},
      {"py=python python=python3 python3", image_names::Aliases::kAccepted,
       "python is itself an alias"},
      {"python=python python3", image_names::Aliases::kAccepted, "cannot be an alias of itself"},
      {"python=py/thon python3", image_names::Aliases::kAccepted, "bad name \"py/thon\""},
      {"=python3 python3", image_names::Aliases::kAccepted, "empty name"},
      {"python python=python3 python3", image_names::Aliases::kAccepted,
       "given twice in L, once as an alias"},
  };
  for (const Case& c : cases) {
    NameList list;
    image_text::Text err;
    CHECK_MESSAGE(!ParseNames(c.text, "L", &list, &err, c.aliases), c.text);
    CHECK_MESSAGE(std::string(err.view()).find(c.why) != std::string::npos,
                  std::string(err.view()));
  }
}

TEST_CASE("image_names: a version or case variant of a name is recognised, other names are not") {
  struct Case {
    const char* file;
    const char* name;
    bool variant;
  };
  const Case cases[] = {
      {"curl", "curl", true},         {"Curl", "curl", true},     {"CURL", "curl", true},
      {"pip3.11", "pip", true},       {"pip3.11", "pip3", true},  {"perl5.36.0", "perl", true},
      {"gawk-5.2.1", "gawk", true},   {"lua5.4", "lua", true},    {"node_18", "node", true},
      {"curl-config", "curl", false}, {"sha256sum", "sh", false}, {"ssh-keygen", "ssh", false},
      {"bash.", "bash", false},       {"luac5.4", "lua", false},  {"cur", "curl", false},
      {"python3.11", "python", true}, {"gitk", "git", false},     {"git-upload-pack", "git", false},
  };
  for (const Case& c : cases) {
    CHECK_MESSAGE(image_names::IsVariantOf(c.file, c.name) == c.variant, c.file, " vs ", c.name);
  }
}
