#include "tail/inotify_watcher.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tail/tail_test_util.h"

namespace {

struct Seen {
  int wd;
  uint32_t mask;
  uint32_t cookie;
  std::string name;
};

std::vector<Seen> DrainAll(inotify_watcher::Watcher* w, bool* overflow) {
  std::vector<Seen> seen;
  *overflow = w->Drain([&](const inotify_watcher::Event& e) {
    seen.push_back({e.wd, e.mask, e.cookie, std::string(e.name)});
  });
  return seen;
}

}  // namespace

TEST_CASE("inotify_watcher: events with names, and rename pairs by cookie") {
  tail_test_util::TempDir d;
  d.Mkdir("sb");
  inotify_watcher::Watcher w;
  std::string err;
  REQUIRE(w.Init(&err));
  int dfd = open(d.Join("sb").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(dfd >= 0);
  int wd = -1;
  REQUIRE(w.AddDirectoryFd(dfd, IN_CREATE | IN_MODIFY | IN_MOVED_FROM | IN_MOVED_TO, &wd, &err) ==
          inotify_watcher::AddResult::kOk);
  close(dfd);
  CHECK(w.watches() == 1);
  d.Write("sb/denied.log", "x\n");
  REQUIRE(rename(d.Join("sb/denied.log").c_str(), d.Join("sb/denied.log.1").c_str()) == 0);
  bool overflow = true;
  std::vector<Seen> seen = DrainAll(&w, &overflow);
  CHECK_FALSE(overflow);
  REQUIRE(seen.size() >= 4);
  CHECK(seen[0].wd == wd);
  CHECK((seen[0].mask & IN_CREATE) != 0);
  CHECK(seen[0].name == "denied.log");
  const Seen& from = seen[seen.size() - 2];
  const Seen& to = seen[seen.size() - 1];
  CHECK((from.mask & IN_MOVED_FROM) != 0);
  CHECK(from.name == "denied.log");
  CHECK((to.mask & IN_MOVED_TO) != 0);
  CHECK(to.name == "denied.log.1");
  CHECK(from.cookie == to.cookie);
  CHECK(DrainAll(&w, &overflow).empty());
}

TEST_CASE("inotify_watcher: only directories are watched") {
  tail_test_util::TempDir d;
  d.Write("file", "x");
  inotify_watcher::Watcher w;
  std::string err;
  REQUIRE(w.Init(&err));
  int wd = -1;
  CHECK(w.AddPath(d.Join("file"), IN_CREATE, &wd, &err) == inotify_watcher::AddResult::kError);
  CHECK(err.find("inotify_add_watch") == 0);
  CHECK(w.AddPath(d.Join("missing"), IN_CREATE, &wd, &err) == inotify_watcher::AddResult::kError);
  CHECK(w.watches() == 0);
}

TEST_CASE("inotify_watcher: a flooded queue reports the overflow") {
  tail_test_util::TempDir d;
  inotify_watcher::Watcher w;
  std::string err;
  REQUIRE(w.Init(&err));
  int wd = -1;
  REQUIRE(w.AddPath(d.path(), IN_MODIFY, &wd, &err) == inotify_watcher::AddResult::kOk);
  long queue = 16384;
  if (FILE* f = fopen("/proc/sys/fs/inotify/max_queued_events", "re")) {
    if (fscanf(f, "%ld", &queue) != 1) queue = 16384;
    fclose(f);
  }
  // Alternate two files: identical consecutive events would be merged.
  int a = open(d.Join("a").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  int b = open(d.Join("b").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  REQUIRE(a >= 0);
  REQUIRE(b >= 0);
  for (long i = 0; i < queue / 2 + 100; ++i) {
    CHECK(write(a, "x", 1) == 1);
    CHECK(write(b, "y", 1) == 1);
  }
  close(a);
  close(b);
  bool overflow = false;
  DrainAll(&w, &overflow);
  CHECK(overflow);
}
