#include "tail/tail_engine.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "audit_file.h"
#include "tail/checkpoint_journal.h"
#include "tail/checkpoint_journal_test_util.h"
#include "tail/tail_test_util.h"

namespace {

const char kKey[] = "0123456789abcdef0123456789abcdef";

// An upstream-shaped record (the five keys only), numbered through argv.
std::string Record(int n) {
  return "{\"argv\":[\"n" + std::to_string(n) +
         "\"],\"binary\":\"curl\",\"event\":\"command_denied\",\"issue\":2662,"
         "\"timestamp\":\"2026-06-14T10:00:00Z\"}\n";
}

size_t CountLines(const std::string& path) {
  FILE* f = fopen(path.c_str(), "re");
  if (!f) return 0;
  size_t n = 0;
  for (int c; (c = fgetc(f)) != EOF;) n += c == '\n';
  fclose(f);
  return n;
}

struct Fixture {
  tail_test_util::TempDir d;
  std::string out, state, pattern;
  Fixture() {
    d.Mkdir("sb");
    d.Mkdir("sb/a");
    d.Mkdir("sb/b");
    out = d.Join("audit.jsonl");
    state = d.Join("state");
    pattern = d.Join("sb/{sandbox_id}/denied.log");
  }
  // The output opened and the engine started on it (kept by the caller);
  // `max_entries_per_cycle` 0 keeps the default.
  void Start(audit_file::AuditFileWriter* w, tail_engine::Engine* e,
             size_t max_entries_per_cycle = 0) const {
    std::string err;
    REQUIRE_MESSAGE(w->Open(out, kKey, &err), err);
    tail_engine::Options o;
    o.patterns = {pattern};
    o.state_dir = state;
    o.append_only_logs = false;  // these tests rename and truncate logs (tail_engine_guard_test.cc)
    if (max_entries_per_cycle > 0) o.max_entries_per_cycle = max_entries_per_cycle;
    REQUIRE_MESSAGE(e->Init(o, w, nullptr, &err), err);
  }
  // One collector lifetime: Init, scan, pump until idle.
  tail_engine::Stats RunOnce(size_t max_entries_per_cycle = 0) {
    audit_file::AuditFileWriter w;
    tail_engine::Engine e;
    Start(&w, &e, max_entries_per_cycle);
    std::string err;
    e.Scan();
    for (int i = 0; i < 100 && e.HasWork(); ++i) REQUIRE_MESSAGE(e.Pump(&err), err);
    REQUIRE_MESSAGE(e.Commit(&err), err);  // the last cycle durable
    return e.stats();
  }
};

// The keys the checkpoint journal in d's "state" names: the journal alone,
// copied into a directory of its own (no per-source file beside it).
std::vector<std::string> JournalKeys(const tail_test_util::TempDir& d) {
  tail_test_util::TempDir alone;
  std::ifstream in(d.Join(std::string("state/") + checkpoint_journal::kFileName), std::ios::binary);
  REQUIRE(in.good());
  std::stringstream bytes;
  bytes << in.rdbuf();
  alone.Write(checkpoint_journal::kFileName, bytes.str());
  checkpoint_journal::State journal;
  checkpoint_journal::Found found;
  std::string err;
  REQUIRE(checkpoint_journal::Load(alone.fd(), &journal, &found, &err) ==
          checkpoint_journal::LoadResult::kLoaded);
  std::vector<std::string> keys;
  for (const auto& [key, value] : journal) keys.push_back(key);
  return keys;
}

}  // namespace

TEST_CASE("tail_engine: reads every sandbox once; a restart resumes from the checkpoints") {
  Fixture f;
  f.d.Write("sb/a/denied.log", Record(1) + Record(2));
  f.d.Write("sb/b/denied.log", Record(3));
  tail_engine::Stats s = f.RunOnce();
  CHECK(s.entries_written == 3);
  CHECK(s.sources == 2);
  CHECK(CountLines(f.out) == 3);
  CHECK(JournalKeys(f.d) == std::vector<std::string>{"a", "b"});
  CHECK(access((f.state + "/a.checkpoint").c_str(), F_OK) != 0);  // one journal, no file each

  f.d.Write("sb/a/denied.log", Record(4), true);
  s = f.RunOnce();
  CHECK(s.entries_written == 1);
  CHECK(s.entries_already_present == 0);
  CHECK(CountLines(f.out) == 4);
}

TEST_CASE("tail_engine: an older version's per-source checkpoints resume: nothing again or lost") {
  Fixture f;
  f.d.Write("sb/a/denied.log", Record(1) + Record(2));
  f.d.Write("sb/b/denied.log", Record(3));
  REQUIRE(f.RunOnce().entries_written == 3);
  // The state as an older version leaves it: one KEY.checkpoint each.
  checkpoint_journal::State state;
  checkpoint_journal::Found found;
  std::string err;
  const unique_fd::UniqueFd state_dir(open(f.state.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  REQUIRE(checkpoint_journal::Load(state_dir.get(), &state, &found, &err) ==
          checkpoint_journal::LoadResult::kLoaded);
  REQUIRE(state.size() == 2);
  for (const auto& [key, text] : state) {
    checkpoint_store::Checkpoint c;
    REQUIRE(checkpoint_store::Parse(key, text, &c, &err) == checkpoint_store::LoadResult::kLoaded);
    c.written_ns = 0;  // an older version wrote none: the file's mtime says
    f.d.Write("state/" + key + ".checkpoint",
              "agt-collector checkpoint 1\n" + checkpoint_store::Text(c));
  }
  REQUIRE(unlink((f.state + "/" + checkpoint_journal::kFileName).c_str()) == 0);
  // More than the replay window holds, so a source read from its start
  // would show as entries written again, and one skipped as entries missing.
  std::string more;
  for (int n = 10; n < 400; ++n) more += Record(n);
  f.d.Write("sb/a/denied.log", more, true);
  tail_engine::Stats s = f.RunOnce(100);
  CHECK(s.entries_written == 390);
  CHECK(s.entries_already_present == 0);
  CHECK(CountLines(f.out) == 393);
  // The journal holds what moved since (over the older file); b, which did
  // not move, resumes from its older file.
  CHECK(JournalKeys(f.d) == std::vector<std::string>{"a"});
  f.d.Write("sb/b/denied.log", Record(500), true);
  s = f.RunOnce(100);
  CHECK(s.entries_written == 1);
  CHECK(s.entries_already_present == 0);
  CHECK(CountLines(f.out) == 394);
}

TEST_CASE("tail_engine: a compaction keeps every checkpoint, live source or not: nothing again") {
  Fixture f;
  f.d.Write("sb/a/denied.log", Record(1) + Record(2));
  f.d.Write("sb/b/denied.log", Record(3));
  REQUIRE(f.RunOnce().entries_written == 3);
  const std::string journal_path = f.state + "/" + checkpoint_journal::kFileName;
  checkpoint_journal::State state;
  checkpoint_journal::Found found;
  std::string err;
  {
    const unique_fd::UniqueFd dir(open(f.state.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    REQUIRE(checkpoint_journal::Load(dir.get(), &state, &found, &err) ==
            checkpoint_journal::LoadResult::kLoaded);
  }
  REQUIRE(state.size() == 2);
  // "gone": a sandbox no longer there, so never a live source: its
  // checkpoint survives only as kept text. Stale frames before the state
  // make the journal large and mostly stale: the next commit compacts it.
  state["gone"] = state["a"];
  std::string bytes = checkpoint_journal::kHeader;
  const std::string stale = checkpoint_journal_test_util::Frame({{"a", state["b"]}});
  while (bytes.size() <= checkpoint_journal::kCompactAtLeastBytes) bytes += stale;
  std::vector<std::pair<std::string_view, std::string_view>> entries(state.begin(), state.end());
  bytes += checkpoint_journal_test_util::Frame(entries);
  f.d.Write("state/" + std::string(checkpoint_journal::kFileName), bytes);

  f.d.Write("sb/a/denied.log", Record(4), true);
  tail_engine::Stats s = f.RunOnce();
  CHECK(s.entries_written == 1);
  CHECK(s.entries_already_present == 0);
  struct stat st;
  REQUIRE(stat(journal_path.c_str(), &st) == 0);
  CHECK(static_cast<uint64_t>(st.st_size) < 64 * 1024);  // compacted
  CHECK(JournalKeys(f.d) == std::vector<std::string>{"a", "b", "gone"});
  // Each source resumes from its compacted checkpoint: one new entry each.
  f.d.Write("sb/a/denied.log", Record(5), true);
  f.d.Write("sb/b/denied.log", Record(6), true);
  s = f.RunOnce();
  CHECK(s.entries_written == 2);
  CHECK(s.entries_already_present == 0);
  CHECK(CountLines(f.out) == 6);
}

TEST_CASE("tail_engine: entries already in the output are not written again") {
  Fixture f;
  f.d.Write("sb/a/denied.log", Record(1) + Record(2) + Record(3));
  CHECK(f.RunOnce().entries_written == 3);
  // As if the process died after the output sync, before the checkpoint.
  REQUIRE(unlink((f.state + "/" + checkpoint_journal::kFileName).c_str()) == 0);
  tail_engine::Stats s = f.RunOnce();
  CHECK(s.entries_written == 0);
  CHECK(s.entries_already_present == 3);
  CHECK(CountLines(f.out) == 3);
}

TEST_CASE("tail_engine: a partial line waits for its newline; rejected lines advance") {
  Fixture f;
  const std::string r2 = Record(2);
  f.d.Write("sb/a/denied.log", Record(1) + "not json\n" + r2.substr(0, 20));
  tail_engine::Stats s = f.RunOnce();
  CHECK(s.entries_written == 1);
  CHECK(s.lines_rejected == 1);
  f.d.Write("sb/a/denied.log", r2.substr(20), true);
  s = f.RunOnce();
  CHECK(s.entries_written == 1);
  CHECK(s.lines_rejected == 0);
  CHECK(CountLines(f.out) == 2);
}

TEST_CASE("tail_engine: rotated while stopped: the old file is finished first") {
  Fixture f;
  f.d.Write("sb/a/denied.log", Record(1));
  CHECK(f.RunOnce().entries_written == 1);
  f.d.Write("sb/a/denied.log", Record(2), true);
  REQUIRE(rename(f.d.Join("sb/a/denied.log").c_str(), f.d.Join("sb/a/denied.log.1").c_str()) == 0);
  f.d.Write("sb/a/denied.log", Record(3));
  tail_engine::Stats s = f.RunOnce();
  CHECK(s.entries_written == 2);
  CHECK(CountLines(f.out) == 3);
}

TEST_CASE("tail_engine: a rename event that comes after its file was let go reads nothing twice") {
  // The scan sees each rotation before inotify's rename events are read, so
  // the renamed names arrive after their files were drained and let go. A
  // let-go file is read on from where reading stopped, never from offset 0.
  Fixture f;
  const std::string log = f.d.Join("sb/a/denied.log");
  auto append = [&](const std::string& path, int n) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    REQUIRE(fd >= 0);
    const std::string line = Record(n);
    REQUIRE(write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()));
    close(fd);
  };
  append(log, 1);  // file A
  audit_file::AuditFileWriter w;
  tail_engine::Engine e;
  f.Start(&w, &e);
  std::string err;
  // Scans only (every sandbox looked at), no inotify: its events wait.
  auto scan_and_pump = [&] {
    for (int i = 0; i < 10; ++i) e.Scan();
    for (int i = 0; i < 100 && e.HasWork(); ++i) REQUIRE_MESSAGE(e.Pump(&err), err);
    REQUIRE_MESSAGE(e.Commit(&err), err);  // the last cycle durable
  };
  scan_and_pump();
  REQUIRE(rename(log.c_str(), (log + ".1").c_str()) == 0);
  append(log, 2);   // file B
  scan_and_pump();  // A drained, B read, A waits (the rotation's linger)
  REQUIRE(rename(log.c_str(), (log + ".2").c_str()) == 0);
  append(log, 3);         // file C
  scan_and_pump();        // B drained, C read; A let go (B waits now)
  e.HandleInotify();      // the late events: names .1 and .2
  append(log + ".1", 4);  // a writer still holding A appends once more
  REQUIRE(rename(log.c_str(), (log + ".3").c_str()) == 0);
  append(log, 5);  // file D
  e.HandleInotify();
  scan_and_pump();
  CHECK(CountLines(f.out) == 5);  // 1..5, each once (A and C read again from 0 made 7)
  std::string audit;
  FILE* in = fopen(f.out.c_str(), "re");
  REQUIRE(in != nullptr);
  for (int c; (c = fgetc(in)) != EOF;) audit += static_cast<char>(c);
  fclose(in);
  for (int n = 1; n <= 5; ++n) {
    const std::string argv = "\"argv\": [\"n" + std::to_string(n) + "\"]";
    size_t count = 0;
    for (size_t at = audit.find(argv); at != std::string::npos; at = audit.find(argv, at + 1))
      ++count;
    CHECK_MESSAGE(count == 1, "record n" << n << " is in the audit file " << count << " times");
  }
}

TEST_CASE("tail_engine: truncation is detected and the file read from the start") {
  Fixture f;
  f.d.Write("sb/a/denied.log", Record(1) + Record(2));
  CHECK(f.RunOnce().entries_written == 2);
  f.d.Write("sb/a/denied.log", Record(7));  // O_TRUNC: same inode, shorter
  CHECK(f.RunOnce().entries_written == 1);
  f.d.Write("sb/a/denied.log", Record(8) + Record(9) + Record(10));  // regrown past the offset
  CHECK(f.RunOnce().entries_written == 3);
  CHECK(CountLines(f.out) == 6);
}

TEST_CASE("tail_engine: the ids this run wrote are remembered up to the bound, oldest out first") {
  // A log cut and written again with the same bytes gives the same entry
  // ids: the newest 16384 this run wrote are skipped, older ones not.
  Fixture f;
  std::string a, b;
  for (int n = 1; n <= 50; ++n) a += Record(n);
  for (int n = 1; n <= 16384; ++n) b += Record(100000 + n);
  audit_file::AuditFileWriter w;
  tail_engine::Engine e;
  f.Start(&w, &e);
  std::string err;
  auto scan_and_pump = [&] {
    e.HandleInotify();
    e.Scan();
    for (int i = 0; i < 100 && e.HasWork(); ++i) REQUIRE_MESSAGE(e.Pump(&err), err);
    REQUIRE_MESSAGE(e.Commit(&err), err);  // the last cycle durable
  };
  f.d.Write("sb/a/denied.log", a);
  scan_and_pump();
  f.d.Write("sb/b/denied.log", b);  // a's 50 ids are the oldest now: pushed out
  scan_and_pump();
  REQUIRE(e.stats().entries_written == 16434);
  f.d.Write("sb/b/denied.log", "");  // cut, then the same bytes again
  scan_and_pump();
  f.d.Write("sb/b/denied.log", b);
  scan_and_pump();
  CHECK(e.stats().entries_already_present == 16384);
  CHECK(e.stats().entries_written == 16434);
  f.d.Write("sb/a/denied.log", "");
  scan_and_pump();
  f.d.Write("sb/a/denied.log", a);
  scan_and_pump();
  CHECK(e.stats().entries_already_present == 16384);
  CHECK(e.stats().entries_written == 16484);
  CHECK(CountLines(f.out) == 16484);
}

TEST_CASE(
    "tail_engine: a cycle's commit runs while the next cycle reads, and ends before its own") {
  Fixture f;
  std::string a;
  for (int n = 1; n <= 300; ++n) a += Record(n);
  f.d.Write("sb/a/denied.log", a);
  audit_file::AuditFileWriter w;
  tail_engine::Engine e;
  f.Start(&w, &e, 100);  // one source: several cycles
  std::string err;
  e.Scan();
  REQUIRE_MESSAGE(e.Pump(&err), err);
  // More to read: the first cycle's commit is left in flight, and nothing
  // that depends on it being durable has happened yet.
  REQUIRE(e.HasWork());
  CHECK(e.commit_in_flight());
  CHECK(e.stats().entries_written == 0);
  CHECK(w.durable_head().entries == 0);
  const size_t first = CountLines(f.out);  // flushed as its commit started
  CHECK(first > 0);
  CHECK(first <= 100);
  REQUIRE_MESSAGE(e.Pump(&err), err);
  // The second cycle read while it ran, then ended it before starting its own.
  CHECK(e.commit_in_flight());
  CHECK(e.stats().entries_written == first);
  CHECK(w.durable_head().entries == first);
  CHECK(CountLines(f.out) > first);
  for (int i = 0; i < 10 && e.HasWork(); ++i) REQUIRE_MESSAGE(e.Pump(&err), err);
  // Nothing left to read: Pump did not wait for the last commit. Its end
  // makes the done descriptor readable, and SettleCommit then ends it (and
  // starts one more for what the last Pump read while it ran).
  REQUIRE(e.commit_in_flight());
  for (int i = 0; i < 10 && e.commit_in_flight(); ++i) {
    REQUIRE(e.commit_done_fd() >= 0);
    struct pollfd done = {e.commit_done_fd(), POLLIN, 0};
    REQUIRE(poll(&done, 1, 10000) == 1);
    REQUIRE_MESSAGE(e.SettleCommit(&err), err);
  }
  CHECK_FALSE(e.commit_in_flight());
  CHECK(e.commit_done_fd() == -1);
  CHECK(e.stats().entries_written == 300);
  CHECK(w.durable_head().entries == 300);
  CHECK(CountLines(f.out) == 300);
}

TEST_CASE(
    "tail_engine: a restart's window reaches back two cycles for sources with no checkpoint") {
  // A crash while one cycle's commit is in flight and the next has appended
  // leaves both cycles' entries with no checkpoint past them: here, the
  // sources' first run with every checkpoint and the head removed, 600
  // entries, more than one cycle's window (100 + 256) and within two.
  Fixture f;
  std::string a, b;
  for (int n = 1; n <= 10; ++n) a += Record(n);
  for (int n = 1; n <= 590; ++n) b += Record(1000 + n);
  f.d.Write("sb/a/denied.log", a);
  f.RunOnce(100);  // a's 10, the oldest entries
  f.d.Write("sb/b/denied.log", b);
  const tail_engine::Stats first = f.RunOnce(100);
  REQUIRE(first.entries_written == 590);
  REQUIRE(CountLines(f.out) == 600);
  for (const char* name : {checkpoint_journal::kFileName, "chain.head"}) {
    REQUIRE(unlinkat(f.d.fd(), ("state/" + std::string(name)).c_str(), 0) == 0);
  }
  REQUIRE(tail_engine::ReplayWindowEntries(100) >= 600);
  const tail_engine::Stats again = f.RunOnce(100);
  CHECK(again.entries_written == 0);
  CHECK(again.entries_already_present == 600);
  CHECK(CountLines(f.out) == 600);
}
