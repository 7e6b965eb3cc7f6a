// The four subcommands end to end on throw-away roots (native build).
#include "image_tool.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "denied_names.h"
#include "image_test_support.h"

using image_test::Result;
using image_test::Run;
using image_test::TempRoot;

namespace {

const std::string kShim = "/usr/local/lib/agt/agt-deny-shim";

bool Has(const std::string& text, const std::string& piece) {
  return text.find(piece) != std::string::npos;
}

int Lines(const std::string& text, const std::string& piece) {
  int n = 0;
  size_t pos = 0;
  while ((pos = text.find(piece, pos)) != std::string::npos) {
    ++n;
    pos += piece.size();
  }
  return n;
}

// A small Debian-like root: coreutils, shells, a denied CLI in each state.
void Populate(TempRoot& t) {
  t.MergedUsr();
  for (const char* f :
       {"ls", "cat", "python3.11", "dash", "bash", "perl", "mawk", "curl", "busybox"}) {
    t.File(std::string("usr/bin/") + f);
  }
  t.Link("usr/bin/python3", "python3.11");
  t.Link("usr/bin/sh", "dash");
  t.Dir("etc/alternatives");
  t.Link("etc/alternatives/awk", "/usr/bin/mawk");
  t.Link("usr/bin/awk", "/etc/alternatives/awk");
  t.Link("usr/bin/wget", "/opt/gone/wget");  // dangling
  t.Link("usr/local/bin/git", "/usr/bin/ls");
}

// Install with a small strip list (zsh, absent from Populate's root) unless
// the test is about the stripped names.
Result Install(TempRoot& t, const std::string& names, const std::string& stripped = "zsh") {
  return Run(image_tool::Install, {"--root", t.path(), "--names", names, "--stripped", stripped});
}

}  // namespace

TEST_CASE("install: links every real path and the pinned directory, once per directory") {
  TempRoot t;
  Populate(t);
  Result r = Install(t, "curl wget git");
  CHECK(r.status == 0);
  for (const char* dir :
       {"usr/bin", "usr/sbin", "usr/local/bin", "usr/local/sbin", "usr/local/sandbox-bin"}) {
    for (const char* name : {"curl", "wget", "git"}) {
      CHECK_MESSAGE(t.ReadLink(std::string(dir) + "/" + name) == kShim, dir, "/", name);
    }
  }
  CHECK(t.ReadLink("bin") == "usr/bin");  // the merged-/usr link itself is kept
  CHECK(Has(r.out, "/usr/bin/curl -> " + kShim + " (replaced regular file, mode 0755)"));
  CHECK(Has(r.out, "/usr/bin/wget -> " + kShim + " (replaced symlink to \"/opt/gone/wget\")"));
  CHECK(Has(r.out, "/usr/local/bin/git -> " + kShim + " (replaced symlink to \"/usr/bin/ls\")"));
  CHECK(Has(r.out, "/bin is /usr/bin (same directory, done once)"));
  CHECK(Lines(r.out, "/usr/bin/curl ->") == 1);
  CHECK(Has(
      r.out,
      "4 names (3 denied, 1 stripped): 20 links made, 0 already the shim, 0 left alone (allowed), "
      "0 other copies stripped, 0 failed"));
  CHECK(Has(r.err, "--names leaves out"));
}

TEST_CASE("install: running it again changes nothing") {
  TempRoot t;
  Populate(t);
  REQUIRE(Install(t, "curl wget git").status == 0);
  std::string before = t.Snapshot();
  Result again = Install(t, "curl wget git");
  CHECK(again.status == 0);
  CHECK(t.Snapshot() == before);
  CHECK(Has(again.out, "4 names (3 denied, 1 stripped): 0 links made, 20 already the shim"));
}

TEST_CASE("install: one bad name fails the whole run and changes nothing") {
  TempRoot t;
  Populate(t);
  std::string before = t.Snapshot();
  for (const char* names : {"curl w*get git", "curl ../../etc/passwd", "curl $(reboot)", "curl -rf",
                            "curl agt-deny-shim", "curl a;b"}) {
    Result r = Install(t, names);
    CHECK_MESSAGE(r.status == 2, names);
    CHECK_MESSAGE(Has(r.err, "agt-deny-shim: error: install: bad name "), names);
    CHECK_MESSAGE(Has(r.err, "nothing was changed"), names);
    CHECK(r.out.empty());
  }
  CHECK(t.Snapshot() == before);
}

TEST_CASE("install: names come from DENIED_LOGGED_BIN_NAMES, else the default set") {
  TempRoot t;
  Populate(t);
  {
    image_test::ScopedEnv env("DENIED_LOGGED_BIN_NAMES", "curl");
    Result r = Run(image_tool::Install, {"--root", t.path()});
    CHECK(r.status == 0);
    CHECK(Has(r.err, "DENIED_LOGGED_BIN_NAMES leaves out " +
                         std::to_string(denied_names::kRows.size() - 1)));
    CHECK(t.ReadLink("usr/local/sandbox-bin/curl") == kShim);
    CHECK(!t.Exists("usr/local/sandbox-bin/kubectl"));
  }
  {
    image_test::ScopedEnv env("DENIED_LOGGED_BIN_NAMES", "");  // an unset build-arg
    Result r = Run(image_tool::Install, {"--root", t.path()});
    CHECK(r.status == 0);
    CHECK(!Has(r.err, "leaves out"));
    for (const auto& row : denied_names::kRows) {
      CHECK(t.ReadLink("usr/local/sandbox-bin/" + std::string(row.name)) == kShim);
    }
  }
  image_test::ScopedEnv env("DENIED_LOGGED_BIN_NAMES", "curl bad/name");
  std::string before = t.Snapshot();
  Result r = Run(image_tool::Install, {"--root", t.path()});
  CHECK(r.status == 2);
  CHECK(Has(r.err, "bad name \"bad/name\" in DENIED_LOGGED_BIN_NAMES"));
  CHECK(t.Snapshot() == before);
}

TEST_CASE("install: the allow list wins over the deny list") {
  TempRoot t;
  Populate(t);
  t.Dir("usr/local/sandbox-bin");
  t.Link("usr/local/sandbox-bin/curl", "/usr/bin/curl");
  Result r = Install(t, "curl wget");
  CHECK(r.status == 0);
  CHECK(t.ReadLink("usr/local/sandbox-bin/curl") == "/usr/bin/curl");
  CHECK(!t.IsLink("usr/bin/curl"));  // left alone at its real path too
  CHECK(t.ReadLink("usr/bin/wget") == kShim);
  CHECK(Has(
      r.err,
      "left alone: curl (in /usr/local/sandbox-bin as an allowed command; the allow list wins)"));
}

TEST_CASE("install: refuses, changing nothing, without the shim or with a directory in the way") {
  TempRoot t;
  Populate(t);
  unlink(t.At("usr/local/lib/agt/agt-deny-shim").c_str());
  std::string before = t.Snapshot();
  Result r = Install(t, "curl");
  CHECK(r.status == 1);
  CHECK(Has(r.err, "the shim \"/usr/local/lib/agt/agt-deny-shim\" is not in the root"));
  CHECK(t.Snapshot() == before);

  TempRoot u;
  Populate(u);
  u.Dir("usr/sbin/curl");
  before = u.Snapshot();
  r = Install(u, "wget curl");
  CHECK(r.status == 1);
  CHECK(Has(r.err, "/usr/sbin/curl is a directory, not a command; nothing was changed"));
  CHECK(u.Snapshot() == before);
}

TEST_CASE("install: links out of the root are resolved inside it; the host is never touched") {
  TempRoot host;
  host.File("curl", 0755, "host curl");
  TempRoot t;
  Populate(t);
  // /usr/local/bin points at a host directory by absolute path: inside the
  // root that path does not exist, so the directory is skipped.
  unlink(t.At("usr/local/bin/git").c_str());
  rmdir(t.At("usr/local/bin").c_str());
  t.Link("usr/local/bin", host.path());
  t.Link("usr/bin/ssh", "../../../../../../.." + host.path() + "/curl");
  std::string host_before = host.Snapshot();
  Result r = Install(t, "curl ssh");
  CHECK(r.status == 0);
  CHECK(host.Snapshot() == host_before);
  CHECK(t.ReadLink("usr/bin/ssh") == kShim);
}

TEST_CASE("allow: links the first executable found, warns about the rest") {
  TempRoot t;
  Populate(t);
  t.File("usr/local/bin/ls");  // earlier in PATH order than /usr/bin/ls
  t.File("usr/bin/noexec", 0644);
  Result r =
      Run(image_tool::Allow, {"--root", t.path(), "--names", "python3 ls awk noexec missing"});
  CHECK(r.status == 0);
  CHECK(t.ReadLink("usr/local/sandbox-bin/python3") == "/usr/bin/python3");
  CHECK(t.ReadLink("usr/local/sandbox-bin/ls") == "/usr/local/bin/ls");
  CHECK(t.ReadLink("usr/local/sandbox-bin/awk") == "/usr/bin/awk");
  CHECK(!t.Exists("usr/local/sandbox-bin/noexec"));
  CHECK(!t.Exists("usr/local/sandbox-bin/missing"));
  CHECK(Has(r.err, "/usr/bin/noexec is not executable (mode 0644, stripped?)"));
  CHECK(Has(r.err, "not found at any real path, not allowed: noexec missing"));
  std::string before = t.Snapshot();
  Result again =
      Run(image_tool::Allow, {"--root", t.path(), "--names", "python3 ls awk noexec missing"});
  CHECK(again.status == 0);
  CHECK(t.Snapshot() == before);
}

TEST_CASE("allow: an alias is linked to its target's real path; verify holds it to that file") {
  TempRoot t;
  Populate(t);
  Result r = Run(image_tool::Allow, {"--root", t.path(), "--names", "python=python3 python3 ls"});
  CHECK(r.status == 0);
  CHECK(t.ReadLink("usr/local/sandbox-bin/python") == "/usr/bin/python3");
  CHECK(t.ReadLink("usr/local/sandbox-bin/python3") == "/usr/bin/python3");
  CHECK(Has(r.out, "/usr/local/sandbox-bin/python -> /usr/bin/python3 (new) alias of python3"));
  std::vector<std::string> args = {"--root",     t.path(),    "--denied",
                                   "curl",       "--allowed", "python=python3 python3 ls",
                                   "--stripped", "zsh"};
  REQUIRE(Install(t, "curl").status == 0);
  Result ok = Run(image_tool::Verify, args);
  CHECK_MESSAGE(ok.status == 0, ok.out);
  // The alias pointing elsewhere is drift; an alias list is a usage error elsewhere.
  unlink(t.At("usr/local/sandbox-bin/python").c_str());
  t.Link("usr/local/sandbox-bin/python", "/usr/bin/ls");
  Result bad = Run(image_tool::Verify, args);
  CHECK(bad.status == 1);
  CHECK(Has(
      bad.out,
      "drift: /usr/local/sandbox-bin/python: alias of python3 leads to /usr/bin/ls, not to what "
      "/usr/local/sandbox-bin/python3 runs\n"));
  Result usage = Run(image_tool::Install, {"--root", t.path(), "--names", "python=python3"});
  CHECK(usage.status == 2);
  CHECK(Has(usage.err, "bad name \"python=python3\" in --names"));
}

TEST_CASE("allow: needs a list; never allows the shim") {
  TempRoot t;
  Populate(t);
  image_test::ScopedEnv env("ALLOWED_BIN_NAMES", nullptr);
  Result r = Run(image_tool::Allow, {"--root", t.path()});
  CHECK(r.status == 2);
  CHECK(Has(r.err, "no names: pass --names LIST or set ALLOWED_BIN_NAMES"));
  REQUIRE(Install(t, "curl").status == 0);
  t.Dir("usr/local/sandbox-bin");
  unlink(t.At("usr/local/sandbox-bin/curl").c_str());
  Result a = Run(image_tool::Allow, {"--root", t.path(), "--names", "curl"});
  CHECK(Has(a.err, "is the deny shim; not allowing it"));
  CHECK(!t.Exists("usr/local/sandbox-bin/curl"));
}

TEST_CASE("harden: strips exec and setuid bits through links inside the root") {
  TempRoot t;
  Populate(t);
  chmod(t.At("usr/bin/bash").c_str(), 04755);
  Result r = Run(image_tool::Harden, {"--root", t.path(), "--names", "sh bash awk busybox zsh"});
  CHECK(r.status == 0);
  CHECK(t.Mode("usr/bin/dash") == 0644);
  CHECK(t.Mode("usr/bin/bash") == 0644);
  CHECK(t.Mode("usr/bin/mawk") == 0644);
  CHECK(t.Mode("usr/bin/busybox") == 0644);
  CHECK(t.IsLink("usr/bin/sh"));  // the link stays, the file it names is stripped
  CHECK(Has(r.out, "stripped /usr/bin/dash (mode 0755 -> 0644) via /usr/bin/sh"));
  CHECK(Has(r.out, "stripped /usr/bin/bash (mode 4755 -> 0644)"));
  CHECK(Has(r.err, "not present: zsh"));
  CHECK(t.Mode("usr/bin/ls") == 0755);
  std::string before = t.Snapshot();
  CHECK(Run(image_tool::Harden, {"--root", t.path(), "--names", "sh bash awk busybox"}).status ==
        0);
  CHECK(t.Snapshot() == before);
}

TEST_CASE("harden: never strips the shim or anything outside the root") {
  TempRoot host;
  host.File("sh", 0755);
  TempRoot t;
  Populate(t);
  unlink(t.At("usr/bin/sh").c_str());
  t.Link("usr/bin/sh", host.At("sh"));  // absolute host path: resolved inside the root
  t.Link("usr/bin/perl", kShim);
  Result r = Run(image_tool::Harden, {"--root", t.path(), "--names", "sh perl"});
  CHECK(r.status == 0);
  CHECK(host.Mode("sh") == 0755);
  CHECK(t.Mode("usr/local/lib/agt/agt-deny-shim") == 0755);
  CHECK(Has(r.out, "/usr/bin/perl is the deny shim; left executable"));
}

TEST_CASE("verify: a built root passes; each drift is one line") {
  TempRoot t;
  Populate(t);
  REQUIRE(Run(image_tool::Allow, {"--root", t.path(), "--names", "python3 ls cat"}).status == 0);
  REQUIRE(Run(image_tool::Harden, {"--root", t.path(), "--names", "sh bash dash awk perl busybox"})
              .status == 0);
  REQUIRE(Install(t, "curl wget git", "sh bash dash awk perl busybox").status == 0);
  std::vector<std::string> args = {
      "--root",    t.path(),         "--denied",   "curl wget git",
      "--allowed", "python3 ls cat", "--stripped", "sh bash dash awk perl busybox"};
  Result ok = Run(image_tool::Verify, args);
  CHECK_MESSAGE(ok.status == 0, ok.out);
  CHECK(Has(ok.out,
            "agt-deny-shim: verify: ok: 3 denied, 3 allowed, 6 stripped names in 4 directories"));
  CHECK(Has(ok.out, "agt-deny-shim: verify: the whole root scanned: "));
  CHECK(Has(ok.out, "agt-deny-shim: verify: verify took "));

  // Tamper: a real curl back, an extra pinned entry, a real shell back, a
  // missing pinned shim link.
  unlink(t.At("usr/bin/curl").c_str());
  t.File("usr/bin/curl", 0755, "the real curl\n");
  t.Link("usr/local/sandbox-bin/id", "/usr/bin/ls");
  unlink(t.At("usr/bin/dash").c_str());
  t.File("usr/bin/dash", 0755, "the real dash\n");
  unlink(t.At("usr/local/sandbox-bin/wget").c_str());
  Result bad = Run(image_tool::Verify, args);
  CHECK(bad.status == 1);
  CHECK(Has(bad.out,
            "drift: /usr/bin/curl: denied name is not the shim (regular file, mode 0755)\n"));
  CHECK(Has(bad.out,
            "drift: /usr/local/sandbox-bin/id: neither an allowed name nor a shim link (symlink to "
            "\"/usr/bin/ls\")\n"));
  CHECK(Has(bad.out,
            "drift: /usr/bin/dash: denied name is not the shim (regular file, mode 0755)\n"));
  CHECK(Has(bad.out,
            "drift: /usr/local/sandbox-bin/wget: denied name not linked to the shim in the pinned "
            "directory"));
  CHECK(Lines(bad.out, "agt-deny-shim: verify: drift: ") == 4);
  CHECK(Has(bad.err, "agt-deny-shim: error: verify: 4 drifts found"));

  chmod(t.At("usr/local/lib/agt/agt-deny-shim").c_str(), 0775);
  Result shim = Run(image_tool::Verify, args);
  CHECK(Has(shim.out, "drift: /usr/local/lib/agt/agt-deny-shim: the shim has mode 0775"));
  CHECK(Has(shim.out,
            "drift: /usr/local/lib/agt/agt-deny-shim: the shim is readable by others (mode 0775; "
            "want 0711): the kernel leaves its denials dumpable"));
  // Readable only: the one drift about the shim is that one.
  chmod(t.At("usr/local/lib/agt/agt-deny-shim").c_str(), 0755);
  Result readable = Run(image_tool::Verify, args);
  CHECK(Lines(readable.out, "drift: /usr/local/lib/agt/agt-deny-shim: ") == 1);
  CHECK(Has(readable.out, "the shim is readable by others (mode 0755; want 0711)"));
}

TEST_CASE("install: the shim is made unreadable to all but its owner, once") {
  TempRoot t;
  Populate(t);
  CHECK(t.Mode("usr/local/lib/agt/agt-deny-shim") == 0755);
  Result r = Install(t, "curl");
  CHECK(r.status == 0);
  CHECK(t.Mode("usr/local/lib/agt/agt-deny-shim") == 0711);
  CHECK(Has(r.out,
            "the shim /usr/local/lib/agt/agt-deny-shim made unreadable to the sandbox user (mode "
            "0755 -> 0711): its denials are not dumpable"));
  Result again = Install(t, "curl");
  CHECK(again.status == 0);
  CHECK(t.Mode("usr/local/lib/agt/agt-deny-shim") == 0711);
  CHECK_FALSE(Has(again.out, "made unreadable"));
}

TEST_CASE(
    "verify: looks everywhere: other copies by name, variant and content; owners; directory "
    "modes") {
  TempRoot t;
  Populate(t);
  REQUIRE(Run(image_tool::Allow, {"--root", t.path(), "--names", "python3 ls cat"}).status == 0);
  REQUIRE(Install(t, "curl git pip", "sh").status == 0);
  std::vector<std::string> args = {"--root",    t.path(),         "--denied",   "curl git pip",
                                   "--allowed", "python3 ls cat", "--stripped", "sh"};
  REQUIRE(Run(image_tool::Verify, args).status == 0);
  std::string before = t.Snapshot();

  t.Dir("usr/lib/git-core");
  t.File("usr/lib/git-core/git", 0755, "a second git\n");
  t.Dir("opt/bin");
  t.File("opt/bin/Curl", 0755, "curl by another case\n");
  t.File("usr/bin/pip3.11", 0755, "pip with a version\n");
  t.File("opt/bin/fetch", 0755, "a second git\n");          // same bytes as the git above
  t.File("opt/bin/sh-notes.txt", 0644, "not a program\n");  // not executable, not a variant
  t.File("opt/bin/curl.conf", 0644, "x\n");                 // not executable
  Result bad = Run(image_tool::Verify, args);
  CHECK(bad.status == 1);
  CHECK(Has(bad.out,
            "drift: /usr/lib/git-core/git: executable copy of git outside the command directories "
            "(regular file, mode 0755, owner 0)\n"));
  CHECK(Has(bad.out, "drift: /opt/bin/Curl: executable copy of curl outside"));
  CHECK(Has(bad.out, "drift: /usr/bin/pip3.11: executable copy of pip outside"));
  CHECK(Has(bad.out,
            "drift: /opt/bin/fetch: executable, same content as /usr/lib/git-core/git (git)"));
  CHECK(Lines(bad.out, "agt-deny-shim: verify: drift: ") == 4);

  // install takes the exec bits off those copies (and the content match goes with them).
  Result fix = Install(t, "curl git pip", "sh");
  CHECK(fix.status == 0);
  CHECK(Has(fix.out, "stripped /usr/lib/git-core/git (mode 0755 -> 0644)"));
  CHECK(Has(fix.out, "stripped /opt/bin/Curl (mode 0755 -> 0644)"));
  CHECK(Has(fix.out, "stripped /usr/bin/pip3.11 (mode 0755 -> 0644)"));
  Result again = Run(image_tool::Verify, args);
  CHECK(again.status == 1);  // fetch: a renamed copy is found only by its bytes
  CHECK(Lines(again.out, "agt-deny-shim: verify: drift: ") == 1);
  CHECK(Has(again.out,
            "drift: /opt/bin/fetch: executable, same content as /usr/lib/git-core/git (git)"));
  unlink(t.At("opt/bin/fetch").c_str());
  REQUIRE(Run(image_tool::Verify, args).status == 0);

  // Owners and directory modes.
  REQUIRE(chown(t.At("usr/local/lib/agt/agt-deny-shim").c_str(), 65534, 65534) == 0);
  REQUIRE(lchown(t.At("usr/local/sandbox-bin/curl").c_str(), 65534, 65534) == 0);
  chmod(t.At("usr/local").c_str(), 0777);
  chmod(t.At("usr/bin").c_str(), 0775);
  Result owners = Run(image_tool::Verify, args);
  CHECK(owners.status == 1);
  CHECK(Has(owners.out,
            "drift: /usr/local/lib/agt/agt-deny-shim: the shim is owned by uid 65534, not root"));
  CHECK(Has(owners.out,
            "drift: /usr/local/sandbox-bin/curl: pinned entry owned by uid 65534, not root"));
  CHECK(Has(owners.out,
            "drift: /usr/local: directory on the way to the shim is writable by group or others "
            "(mode 0777)"));
  CHECK(Has(owners.out,
            "drift: /usr/bin: directory on the way to a real-path directory is writable"));
  CHECK(Lines(owners.out, "/usr/local: directory on the way") == 1);  // reported once
  (void)before;
}

TEST_CASE("install: shells and interpreters are linked to the shim too, so a call is logged") {
  TempRoot t;
  Populate(t);
  REQUIRE(Run(image_tool::Allow, {"--root", t.path(), "--names", "python3 ls cat"}).status == 0);
  Result r = Run(image_tool::Install, {"--root", t.path(), "--names", "curl"});
  CHECK(r.status == 0);
  for (const char* name : {"sh", "bash", "dash", "perl", "awk", "busybox", "node", "ruby"}) {
    CHECK_MESSAGE(t.ReadLink(std::string("usr/local/sandbox-bin/") + name) == kShim, name);
  }
  for (const char* name : {"bash", "dash", "perl", "awk", "busybox", "node", "ruby"}) {
    CHECK_MESSAGE(t.ReadLink(std::string("usr/bin/") + name) == kShim, name);
  }
  // sh -> dash already leads to the shim once dash is linked: left as it is
  // (exec'd as /bin/sh, the shim still records "sh").
  CHECK(t.ReadLink("usr/bin/sh") == "dash");
  // The allow list still wins over a stripped name.
  TempRoot a;
  Populate(a);
  REQUIRE(Run(image_tool::Allow, {"--root", a.path(), "--names", "python3 ls awk"}).status == 0);
  Result kept =
      Run(image_tool::Install, {"--root", a.path(), "--names", "curl", "--stripped", "awk sh"});
  CHECK(kept.status == 0);
  CHECK(a.ReadLink("usr/local/sandbox-bin/awk") == "/usr/bin/awk");
  CHECK(a.ReadLink("usr/bin/awk") == "/etc/alternatives/awk");
  CHECK(a.ReadLink("usr/bin/sh") == kShim);
}

TEST_CASE(
    "install and harden: a busybox base whose allowed applets are links to busybox is refused") {
  TempRoot t;
  t.MergedUsr();
  t.File("usr/bin/busybox", 0755, "busybox");
  for (const char* applet : {"ls", "cat", "sh", "wget"})
    t.Link(std::string("usr/bin/") + applet, "busybox");
  REQUIRE(Run(image_tool::Allow, {"--root", t.path(), "--names", "ls cat"}).status == 0);
  std::string before = t.Snapshot();
  Result h = Run(image_tool::Harden, {"--root", t.path(), "--names", "sh busybox"});
  CHECK(h.status == 1);
  CHECK(Has(
      h.err,
      "agt-deny-shim: error: harden: refusing to change /usr/bin/busybox: it is what the allowed "
      "command "));
  CHECK(Has(h.err, "nothing was changed"));
  Result i = Install(t, "wget", "busybox");
  CHECK(i.status == 1);
  CHECK(Has(
      i.err,
      "agt-deny-shim: error: install: refusing to link the shim over /usr/bin/busybox: it is what "
      "the allowed command "));
  CHECK(t.Snapshot() == before);
  // Links to busybox that are not allowed (sh, wget) are fine to link over.
  Result ok = Install(t, "wget", "sh");
  CHECK_MESSAGE(ok.status == 0, ok.err);
  CHECK(t.ReadLink("usr/bin/sh") == kShim);
  CHECK(t.Mode("usr/bin/busybox") == 0755);
}

TEST_CASE("harden: a file with a hard link outside the root is refused; links inside it are fine") {
  TempRoot host;
  host.File("bash", 0755, "host bash");
  TempRoot t;
  Populate(t);
  unlink(t.At("usr/bin/bash").c_str());
  REQUIRE(link(host.At("bash").c_str(), t.At("usr/bin/bash").c_str()) == 0);
  std::string before = t.Snapshot();
  Result r = Run(image_tool::Harden, {"--root", t.path(), "--names", "bash perl"});
  CHECK(r.status == 1);
  CHECK(Has(r.err,
            "refusing to change /usr/bin/bash: it has 2 hard links and only 1 are in the root"));
  CHECK(host.Mode("bash") == 0755);
  CHECK(t.Snapshot() == before);

  unlink(t.At("usr/bin/bash").c_str());
  REQUIRE(link(t.At("usr/bin/perl").c_str(), t.At("usr/bin/perl5.36.0").c_str()) == 0);
  t.Dir("opt/lua");
  t.File("opt/lua/lua5.4", 0755);
  Result ok = Run(image_tool::Harden, {"--root", t.path(), "--names", "perl lua"});
  CHECK_MESSAGE(ok.status == 0, ok.err);
  CHECK(t.Mode("usr/bin/perl5.36.0") == 0644);
  CHECK(t.Mode("opt/lua/lua5.4") == 0644);  // found elsewhere in the root by name
  CHECK(Has(ok.out, "stripped /opt/lua/lua5.4 (mode 0755 -> 0644)"));
  CHECK(Has(ok.out, "2 names: 2 files stripped (2 other names found in the root)"));
}

TEST_CASE("verify: reads nothing but the root and changes nothing") {
  TempRoot t;
  Populate(t);
  std::string before = t.Snapshot();
  Result r = Run(image_tool::Verify, {"--root", t.path(), "--denied", "curl", "--stripped", "sh"});
  CHECK(r.status == 1);
  CHECK(Has(r.out, "drift: /usr/local/sandbox-bin: the pinned directory is missing"));
  CHECK(t.Snapshot() == before);
}

TEST_CASE("subcommands: --help prints usage from the option table; no --root is a usage error") {
  Result h = Run(image_tool::Install, {"--help"});
  CHECK(h.status == 0);
  CHECK(Has(h.out, "usage: agt-deny-shim install --root DIR [options]"));
  CHECK(Has(h.out, "--names LIST"));
  CHECK(Has(h.out, "$DENIED_LOGGED_BIN_NAMES, else the default denied set"));
  CHECK(!Has(h.out, "--allowed"));
  Result v = Run(image_tool::Verify, {"--help"});
  CHECK(Has(v.out, "--allowed LIST"));
  CHECK(Run(image_tool::Install, {}).status == 2);
  Result missing = Run(image_tool::Verify, {"--root", "/nonexistent/agt-root"});
  CHECK(missing.status == 1);
  CHECK(Has(missing.err,
            "agt-deny-shim: error: verify: open --root \"/nonexistent/agt-root\": No such file or "
            "directory"));
}

TEST_CASE("subcommands: a pinned directory that is a real-path directory is refused") {
  TempRoot t;
  Populate(t);
  t.Dir("usr/local");
  t.Link("usr/local/sandbox-bin", "/usr/bin");
  std::string before = t.Snapshot();
  Result r = Install(t, "curl");
  CHECK(r.status == 1);
  CHECK(Has(
      r.err,
      "the pinned directory /usr/local/sandbox-bin is the same directory as /usr/bin; nothing was "
      "changed"));
  CHECK(t.Snapshot() == before);
  Result v = Run(image_tool::Verify, {"--root", t.path()});
  CHECK(v.status == 1);
  CHECK(Has(v.err, "is the same directory as /usr/bin"));
}
