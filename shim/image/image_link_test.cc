#include "image_link.h"

#include <doctest/doctest.h>

#include <unistd.h>

#include <string>

#include "image_test_support.h"

using image_test::TempRoot;

namespace {

struct Setup {
  TempRoot t;
  image_root::Fd root;
  image_link::Shim shim;
  Setup() {
    t.MergedUsr();
    image_text::Text err;
    REQUIRE(image_root::OpenRoot(t.path().c_str(), &root, &err));
    REQUIRE(image_link::FindShim(root.get(), image_root::kDefaultShimPath, &shim, &err));
    REQUIRE(shim.present);
  }
  image_link::Kind KindOf(const char* path) {
    image_root::Located e;
    image_text::Text err;
    REQUIRE(image_root::Walk(root.get(), path, image_root::WalkMode::kEntry, &e, &err) ==
            image_root::WalkResult::kOk);
    image_link::Kind k;
    REQUIRE(image_link::Classify(root.get(), e, shim, &k, &err));
    return k;
  }
  bool Replace(const char* dir, const char* name, std::string_view target, image_text::Text* err) {
    image_root::Located d;
    REQUIRE(image_root::Walk(root.get(), dir, image_root::WalkMode::kDirectory, &d, err) ==
            image_root::WalkResult::kOk);
    return image_link::ReplaceWithSymlink(d.dir.get(), name, target, name, err);
  }
};

}  // namespace

TEST_CASE("image_link: the shim by absolute link, relative link chain or hard link") {
  Setup s;
  s.t.Link("usr/bin/curl", "/usr/local/lib/agt/agt-deny-shim");
  s.t.Link("usr/bin/wget", "../local/lib/agt/agt-deny-shim");
  s.t.Link("usr/bin/git", "wget");
  REQUIRE(link(s.t.At("usr/local/lib/agt/agt-deny-shim").c_str(), s.t.At("usr/bin/ssh").c_str()) ==
          0);
  s.t.File("usr/bin/az");
  s.t.Link("usr/bin/dangling", "/nowhere");
  s.t.Link("usr/bin/loop", "loop");
  CHECK(s.KindOf("/usr/bin/curl") == image_link::Kind::kShim);
  CHECK(s.KindOf("/bin/wget") == image_link::Kind::kShim);
  CHECK(s.KindOf("/usr/bin/git") == image_link::Kind::kShim);
  CHECK(s.KindOf("/usr/bin/ssh") == image_link::Kind::kShim);
  CHECK(s.KindOf("/usr/bin/az") == image_link::Kind::kOther);
  CHECK(s.KindOf("/usr/bin/dangling") == image_link::Kind::kOther);
  CHECK(s.KindOf("/usr/bin/loop") == image_link::Kind::kOther);
  CHECK(s.KindOf("/usr/bin/absent") == image_link::Kind::kAbsent);
}

TEST_CASE("image_link: a copy with the same bytes is not the shim") {
  Setup s;
  s.t.File("usr/bin/curl", 0755, "shim");
  CHECK(s.KindOf("/usr/bin/curl") == image_link::Kind::kOther);
}

TEST_CASE("image_link: replaces files, links and dangling links; refuses directories") {
  Setup s;
  s.t.File("usr/bin/curl");
  s.t.Link("usr/bin/wget", "/nowhere");
  s.t.Link("usr/bin/git", "/usr/bin/curl");
  s.t.Dir("usr/bin/ssh");
  image_text::Text err;
  for (const char* name : {"curl", "wget", "git", "new"}) {
    CHECK(s.Replace("/usr/bin", name, "/usr/local/lib/agt/agt-deny-shim", &err));
    CHECK(s.t.ReadLink(std::string("usr/bin/") + name) == "/usr/local/lib/agt/agt-deny-shim");
  }
  CHECK(!s.Replace("/usr/bin", "ssh", "/x", &err));
  CHECK(std::string(err.view()).find("is a directory") != std::string::npos);
  // No temporary link is left behind.
  CHECK(s.t.Snapshot().find(".agt-deny-shim.tmp.") == std::string::npos);
}

TEST_CASE("image_link: a leftover temporary link from an interrupted run is replaced") {
  Setup s;
  s.t.Link("usr/bin/.agt-deny-shim.tmp.curl", "/stale");
  image_text::Text err;
  CHECK(s.Replace("/usr/bin", "curl", "/usr/local/lib/agt/agt-deny-shim", &err));
  CHECK(s.t.ReadLink("usr/bin/curl") == "/usr/local/lib/agt/agt-deny-shim");
  CHECK(!s.t.Exists("usr/bin/.agt-deny-shim.tmp.curl"));
}

TEST_CASE("image_link: the shim path must be absolute; a missing shim is reported as absent") {
  TempRoot t;
  image_root::Fd root;
  image_text::Text err;
  REQUIRE(image_root::OpenRoot(t.path().c_str(), &root, &err));
  image_link::Shim shim;
  CHECK(!image_link::FindShim(root.get(), "usr/local/lib/agt/agt-deny-shim", &shim, &err));
  image_text::Text err2;
  CHECK(image_link::FindShim(root.get(), "/usr/local/lib/agt/agt-deny-shim", &shim, &err2));
  CHECK(!shim.present);
}
