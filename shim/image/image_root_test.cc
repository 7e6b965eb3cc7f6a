#include "image_root.h"

#include <doctest/doctest.h>

#include <string>

#include "image_test_support.h"

using image_root::Located;
using image_root::Walk;
using image_root::WalkMode;
using image_root::WalkResult;
using image_test::TempRoot;

namespace {

struct Rooted {
  TempRoot t;
  image_root::Fd fd;
  Rooted() {
    image_text::Text err;
    REQUIRE(image_root::OpenRoot(t.path().c_str(), &fd, &err));
  }
};

std::string CanonDir(Rooted& r, const char* path) {
  Located loc;
  image_text::Text err;
  WalkResult res = Walk(r.fd.get(), path, WalkMode::kDirectory, &loc, &err);
  if (res == WalkResult::kMissing) return "missing";
  if (res == WalkResult::kError) return "error: " + std::string(err.view());
  return std::string(loc.path.view());
}

}  // namespace

TEST_CASE("image_root: merged /usr directories resolve inside the root") {
  Rooted r;
  r.t.MergedUsr();
  CHECK(CanonDir(r, "/bin") == "/usr/bin");
  CHECK(CanonDir(r, "sbin") == "/usr/sbin");
  CHECK(CanonDir(r, "/usr/local/bin") == "/usr/local/bin");
  CHECK(CanonDir(r, "/") == "/");
  CHECK(CanonDir(r, "/nope") == "missing");
}

TEST_CASE("image_root: absolute and dot-dot links never leave the root") {
  Rooted r;
  r.t.MergedUsr();
  // Absolute targets are the root's, ".." stops at the root.
  r.t.Link("usr/local/bin/up", "../../../../../../../usr/bin");
  r.t.Link("usr/local/bin/abs", "/usr/sbin");
  r.t.Link("usr/local/bin/etc", "/etc");
  CHECK(CanonDir(r, "/usr/local/bin/up") == "/usr/bin");
  CHECK(CanonDir(r, "/usr/local/bin/abs") == "/usr/sbin");
  CHECK(CanonDir(r, "/usr/local/bin/etc") == "missing");  // the host's /etc is not seen
  CHECK(CanonDir(r, "/../../..") == "/");
}

TEST_CASE("image_root: an entry walk follows a final link only in kFollow") {
  Rooted r;
  r.t.MergedUsr();
  r.t.File("usr/bin/mawk");
  r.t.Dir("etc/alternatives");
  r.t.Link("etc/alternatives/awk", "/usr/bin/mawk");
  r.t.Link("usr/bin/awk", "/etc/alternatives/awk");
  Located loc;
  image_text::Text err;
  REQUIRE(Walk(r.fd.get(), "/bin/awk", WalkMode::kEntry, &loc, &err) == WalkResult::kOk);
  CHECK(loc.exists);
  CHECK(loc.path.view() == "/usr/bin/awk");
  CHECK(S_ISLNK(loc.st.st_mode));
  Located target;
  REQUIRE(Walk(r.fd.get(), "/bin/awk", WalkMode::kFollow, &target, &err) == WalkResult::kOk);
  CHECK(target.exists);
  CHECK(target.path.view() == "/usr/bin/mawk");
  CHECK(std::string(target.name) == "mawk");
  CHECK(S_ISREG(target.st.st_mode));
}

TEST_CASE("image_root: a link to a host file resolves to the same path inside the root") {
  Rooted r;
  r.t.MergedUsr();
  r.t.Link("usr/bin/passwd-link", "../../../../../../../../etc/passwd");
  Located target;
  image_text::Text err;
  REQUIRE(Walk(r.fd.get(), "/usr/bin/passwd-link", WalkMode::kFollow, &target, &err) ==
          WalkResult::kMissing);
  r.t.Dir("etc");
  REQUIRE(Walk(r.fd.get(), "/usr/bin/passwd-link", WalkMode::kFollow, &target, &err) ==
          WalkResult::kOk);
  CHECK(!target.exists);  // dangling inside the root: the host's /etc/passwd is never reached
  CHECK(target.path.view() == "/etc/passwd");
}

TEST_CASE("image_root: missing entries, loops and files in the middle") {
  Rooted r;
  r.t.MergedUsr();
  Located loc;
  image_text::Text err;
  REQUIRE(Walk(r.fd.get(), "/usr/bin/curl", WalkMode::kEntry, &loc, &err) == WalkResult::kOk);
  CHECK(!loc.exists);
  CHECK(loc.path.view() == "/usr/bin/curl");
  CHECK(Walk(r.fd.get(), "/opt/x/curl", WalkMode::kEntry, &loc, &err) == WalkResult::kMissing);

  r.t.Link("usr/bin/a", "b");
  r.t.Link("usr/bin/b", "a");
  image_text::Text loop;
  CHECK(Walk(r.fd.get(), "/usr/bin/a", WalkMode::kFollow, &loc, &loop) == WalkResult::kError);
  CHECK(std::string(loop.view()).find("too many levels of symbolic links") != std::string::npos);

  r.t.File("usr/bin/f");
  image_text::Text notdir;
  CHECK(Walk(r.fd.get(), "/usr/bin/f/x", WalkMode::kEntry, &loc, &notdir) == WalkResult::kError);
  CHECK(std::string(notdir.view()).find("is not a directory") != std::string::npos);
}

TEST_CASE("image_root: real dirs are found once each, duplicates noted") {
  Rooted r;
  r.t.MergedUsr();
  image_root::RealDirs dirs;
  image_text::Text err;
  REQUIRE(image_root::OpenRealDirs(r.fd.get(), &dirs, &err));
  int unique = 0;
  for (std::size_t i = 0; i < dirs.dirs.size(); ++i) unique += dirs.Unique(i) ? 1 : 0;
  CHECK(unique == 4);
  CHECK(dirs.dirs[4].listed == "/sbin");
  CHECK(dirs.dirs[4].same_as == 2);
  CHECK(dirs.dirs[5].same_as == 3);
}

TEST_CASE("image_root: EnsureDir creates missing parents inside the root") {
  Rooted r;
  bool created = false;
  image_text::Text err;
  REQUIRE(image_root::EnsureDir(r.fd.get(), "/usr/local/sandbox-bin", &created, &err));
  CHECK(created);
  CHECK(r.t.Exists("usr/local/sandbox-bin"));
  // Through a link to an absolute path: still inside the root.
  r.t.Dir("srv");
  r.t.Link("opt", "/srv");
  REQUIRE(image_root::EnsureDir(r.fd.get(), "/opt/x", &created, &err));
  CHECK(r.t.Exists("srv/x"));
  // A dangling link in the way is refused, not created through.
  r.t.Link("var", "/nowhere");
  image_text::Text dangling;
  CHECK(!image_root::EnsureDir(r.fd.get(), "/var/lib", &created, &dangling));
  CHECK(std::string(dangling.view()) ==
        "\"/var\" exists but is not a directory (a dangling link?)");
  CHECK(!r.t.Exists("nowhere"));
}

TEST_CASE("image_root: PathBuf push and pop") {
  image_root::PathBuf p;
  CHECK(p.view() == "/");
  REQUIRE(p.Set("//usr///bin/"));
  CHECK(p.view() == "/usr/bin");
  CHECK(p.Base() == "bin");
  p.Pop();
  CHECK(p.view() == "/usr");
  p.Pop();
  CHECK(p.view() == "/");
  p.Pop();
  CHECK(p.view() == "/");
}
