#include "audit_file.h"

#include <doctest/doctest.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <seccomp.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "audit_verifier.h"
#include "test_util.h"

namespace {

audit_entry::AuditEntryFields Entry(int i) { return test_util::SampleEntry(i); }

audit_verifier::VerifyResult Verify(const std::string& path, const std::string& key,
                                    audit_verifier::VerifyReport* report) {
  std::string err;
  return audit_verifier::VerifyAuditFile(path, key, report, &err);
}

// The file verifies (chain and signatures) with `entries` entries.
void CheckVerifies(const std::string& path, uint64_t entries) {
  audit_verifier::VerifyReport report;
  CHECK(Verify(path, "key", &report) == audit_verifier::VerifyResult::kValid);
  CHECK(report.entries == entries);
}

}  // namespace

TEST_CASE("append, sync, resume the chain after reopening") {
  test_util::TempDir dir;
  const std::string path = dir / "audit.jsonl";
  std::string err;
  {
    audit_file::AuditFileWriter w;
    REQUIRE(w.Open(path, "key", &err));
    for (int i = 0; i < 3; ++i) REQUIRE(w.Append(Entry(i), &err));
    REQUIRE(w.Sync(&err));
  }
  struct stat st;
  REQUIRE(stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  {
    audit_file::AuditFileWriter w;
    REQUIRE(w.Open(path, "key", &err));
    CHECK(w.previous_hash().size() == 64);
    for (int i = 3; i < 5; ++i) REQUIRE(w.Append(Entry(i), &err));
    REQUIRE(w.Sync(&err));
    std::vector<std::string> ids;
    REQUIRE(w.RecentEntryIds(2, &ids, &err));
    CHECK(ids == std::vector<std::string>{"audit_0000000000000003", "audit_0000000000000004"});
    REQUIRE(w.RecentEntryIds(100, &ids, &err));
    CHECK(ids.size() == 5);
  }
  audit_verifier::VerifyReport report;
  CHECK(Verify(path, "key", &report) == audit_verifier::VerifyResult::kValid);
  CHECK(report.entries == 5);
}

TEST_CASE("Open refuses a broken or foreign last line, never restarting the chain") {
  test_util::TempDir dir;
  const std::string path = dir / "audit.jsonl";
  std::string err;
  {
    audit_file::AuditFileWriter w;
    REQUIRE(w.Open(path, "key", &err));
    REQUIRE(w.Append(Entry(0), &err));
    REQUIRE(w.Sync(&err));
  }
  const std::string good = test_util::ReadFile(path);
  audit_file::AuditFileWriter w;
  CHECK_FALSE(w.Open(path, "other key", &err));
  CHECK(err.find("signature does not match") != std::string::npos);
  test_util::WriteFile(path, good + "not json\n");
  CHECK_FALSE(w.Open(path, "key", &err));
  CHECK(err.find("cannot resume") != std::string::npos);
  CHECK(test_util::ReadFile(path) == good + "not json\n");  // untouched
}

TEST_CASE("Open cuts a torn last line (a crash mid-write) after checking the line before it") {
  test_util::TempDir dir;
  const std::string path = dir / "audit.jsonl";
  std::string err;
  {
    audit_file::AuditFileWriter w;
    REQUIRE(w.Open(path, "key", &err));
    for (int i = 0; i < 2; ++i) REQUIRE(w.Append(Entry(i), &err));
    REQUIRE(w.Sync(&err));
    CHECK(w.recovery_notice().empty());
  }
  const std::string good = test_util::ReadFile(path);
  const std::string second = test_util::Lines(good)[1];
  test_util::WriteFile(path, good + second.substr(0, 100));
  {
    audit_file::AuditFileWriter w;
    REQUIRE(w.Open(path, "key", &err));
    CHECK(w.recovery_notice().find("removed 100 bytes") != std::string::npos);
    CHECK(test_util::ReadFile(path) == good);
    REQUIRE(w.Append(Entry(2), &err));
    REQUIRE(w.Sync(&err));
  }
  audit_verifier::VerifyReport report;
  CHECK(Verify(path, "key", &report) == audit_verifier::VerifyResult::kValid);
  CHECK(report.entries == 3);
  // The line before the torn bytes must verify, else nothing is touched.
  test_util::WriteFile(path, good + "tampered\n" + "torn");
  audit_file::AuditFileWriter w;
  CHECK_FALSE(w.Open(path, "key", &err));
  CHECK(test_util::ReadFile(path) == good + "tampered\ntorn");
  // A file holding only a torn line holds no entry: it is emptied.
  test_util::WriteFile(path, second.substr(0, 50));
  REQUIRE(w.Open(path, "key", &err));
  CHECK(w.previous_hash().empty());
  CHECK(test_util::ReadFile(path).empty());
}

TEST_CASE("Open refuses symlinks, non-regular files and a second writer") {
  test_util::TempDir dir;
  std::string err;
  REQUIRE(symlink((dir / "target").c_str(), (dir / "link").c_str()) == 0);
  audit_file::AuditFileWriter w;
  CHECK_FALSE(w.Open(dir / "link", "key", &err));
  CHECK(err.find("symbolic link") != std::string::npos);
  CHECK_FALSE(w.Open(dir.path(), "key", &err));
  REQUIRE(w.Open(dir / "a.jsonl", "key", &err));
  audit_file::AuditFileWriter second;
  CHECK_FALSE(second.Open(dir / "a.jsonl", "key", &err));
  CHECK(err.find("another agt-collector") != std::string::npos);
  REQUIRE(w.Close(&err));
  CHECK(second.Open(dir / "a.jsonl", "key", &err));
}

TEST_CASE("Reopen after the file was rotated away starts a fresh chain in a new file") {
  test_util::TempDir dir;
  const std::string path = dir / "audit.jsonl";
  std::string err;
  audit_file::AuditFileWriter w;
  REQUIRE(w.Open(path, "key", &err));
  REQUIRE(w.Append(Entry(0), &err));
  REQUIRE(w.Sync(&err));
  REQUIRE(rename(path.c_str(), (dir / "audit.jsonl.1").c_str()) == 0);
  REQUIRE(w.Append(Entry(1), &err));
  REQUIRE(w.Reopen(&err));  // syncs entry 1 into the rotated file first
  REQUIRE(w.Append(Entry(2), &err));
  REQUIRE(w.Sync(&err));
  audit_verifier::VerifyReport r1, r2;
  CHECK(Verify(dir / "audit.jsonl.1", "key", &r1) == audit_verifier::VerifyResult::kValid);
  CHECK(r1.entries == 2);
  CHECK(Verify(path, "key", &r2) == audit_verifier::VerifyResult::kValid);
  CHECK(r2.entries == 1);
}

TEST_CASE("ReadLastLine finds the last line across chunk boundaries") {
  test_util::TempDir dir;
  const std::string path = dir / "f";
  const std::string big(200000, 'b');
  test_util::WriteFile(path, "first\n" + big + "\n");
  const int fd = open(path.c_str(), O_RDONLY);
  std::string line, err;
  uint64_t complete = 0;
  REQUIRE(audit_file::ReadLastLine(fd, "t.jsonl", 6 + big.size() + 1, &line, &complete, &err));
  CHECK(line == big);
  CHECK(complete == 6 + big.size() + 1);
  REQUIRE(audit_file::ReadLastLine(fd, "t.jsonl", 6, &line, &complete, &err));
  CHECK(line == "first");
  CHECK(complete == 6);
  // Sizes that end inside a line: the torn part is not a line.
  REQUIRE(audit_file::ReadLastLine(fd, "t.jsonl", 6 + 70000, &line, &complete, &err));
  CHECK(line == "first");
  CHECK(complete == 6);
  REQUIRE(audit_file::ReadLastLine(fd, "t.jsonl", 3, &line, &complete, &err));
  CHECK(line.empty());
  CHECK(complete == 0);
  close(fd);
}

TEST_CASE("VerifyLine rejects what upstream's json.loads rejects: bytes after a NUL, a BOM") {
  chain_signer::ChainSigner signer;
  std::string err;
  REQUIRE(signer.Init("k3y-bytes-for-the-test", &err));
  std::string line;
  REQUIRE(signer.SignAppend(Entry(1), &line, &err));
  line.pop_back();  // '\n'
  audit_verifier::LineFacts facts;
  std::string reason;
  const std::string none;
  CHECK(audit_verifier::VerifyLine(line, &none, signer.hasher(), &facts, &reason));
  // json.loads allows whitespace around the object: so does VerifyLine.
  CHECK(audit_verifier::VerifyLine(" " + line + " \t", &none, signer.hasher(), &facts, &reason));
  // A signed line followed by a NUL and junk is "Extra data" to Python.
  const std::string junk = line + std::string("\0junk", 5);
  CHECK_FALSE(audit_verifier::VerifyLine(junk, &none, signer.hasher(), &facts, &reason));
  CHECK(reason.find("NUL") != std::string::npos);
  CHECK_FALSE(audit_verifier::VerifyLine(line + std::string(1, '\0'), &none, signer.hasher(),
                                         &facts, &reason));
  // Document::Parse(str, len) skips a UTF-8 BOM byte by byte, so a lone
  // 0xBB before "995" read as 995; the verifier's stream skips nothing,
  // and Python (upstream's verifier) refuses all of these.
  for (const char* prefix : {"\xef", "\xbb", "\xbf", "\xef\xbb", "\xbb\xbf", "\xef\xbb\xbf",
                             " \xbb", "\xef\xbb\xbf\xef\xbb\xbf"}) {
    CAPTURE(prefix);
    CHECK_FALSE(audit_verifier::VerifyLine(prefix + line, &none, signer.hasher(), &facts, &reason));
    CHECK(reason == "not a JSON object");
  }
  // After the object too (trailing bytes are "Extra data" to Python).
  CHECK_FALSE(audit_verifier::VerifyLine(line + "\xbb", &none, signer.hasher(), &facts, &reason));
}

TEST_CASE("VerifyLine: a line that is not UTF-8 is not a JSON object, wherever the bytes are") {
  chain_signer::ChainSigner signer;
  std::string err;
  REQUIRE(signer.Init("k3y-bytes-for-the-test", &err));
  audit_entry::AuditEntryFields f = Entry(1);
  f.data_canonical = "{\"i\": 1, \"s\": \"x\"}";  // no data.labels: the outer ones are unsigned
  std::string line;
  REQUIRE(signer.SignAppend(f, &line, &err));
  line.pop_back();
  audit_verifier::LineFacts facts;
  std::string reason;
  const auto edited = [&](const std::string& from, const std::string& to) {
    std::string edit = line;
    const size_t at = edit.find(from);
    REQUIRE(at != std::string::npos);
    return edit.replace(at, from.size(), to);
  };
  // The parse leaves the encoding to the verifier; each of these reads as
  // it did when the parser checked it.
  for (const std::string& bad : {edited("\"s\": \"x\"", "\"s\": \"\xc3\""),  // in data
                                 edited("\"sandbox_id\": \"sb\"", "\"sandbox_id\": \"\xff\""),
                                 edited("{\"action\"", "{\"\xff\": 1, \"action\""),
                                 edited("\"entry_id\": \"", "\"entry_id\": \"\xed\xa0\x80"),
                                 edited("\"trace_id\": null", "\"trace_id\": null\xc0\xaf")}) {
    CAPTURE(bad);
    CHECK_FALSE(audit_verifier::VerifyLine(bad, nullptr, signer.hasher(), &facts, &reason));
    CHECK(reason == "not a JSON object");
  }
  // An escaped lone surrogate in an unsigned outer label is ASCII in the
  // line: accepted, as it always was (only the line's own bytes count).
  CHECK(audit_verifier::VerifyLine(edited("\"sandbox_id\": \"sb\"", "\"sandbox_id\": \"\\udc00\""),
                                   nullptr, signer.hasher(), &facts, &reason));
  CHECK(audit_verifier::VerifyLine(line, nullptr, signer.hasher(), &facts, &reason));
}

TEST_CASE("VerifyLine holds the outer labels to their signed copy in data.labels") {
  chain_signer::ChainSigner signer;
  std::string err;
  REQUIRE(signer.Init("k3y-bytes-for-the-test", &err));
  audit_verifier::LineFacts facts;
  // Signed with `labels` as data.labels, the outer labels then set to
  // sandbox_id / environment (compute_driver stays null).
  auto verify = [&](const std::string& labels, const char* sandbox_id, const char* environment,
                    std::string* reason) {
    audit_entry::AuditEntryFields f = Entry(1);
    f.data_canonical = "{\"i\": 1, \"labels\": " + labels + ", \"z\": [{\"labels\": 5}]}";
    std::string line;
    REQUIRE(signer.SignAppend(f, &line, &err));
    line.pop_back();
    // The outer labels are not under the signature: edit them in the line.
    auto set = [&](const char* name, const char* value) {
      const std::string from = std::string("\"") + name +
                               "\": " + (name == std::string("sandbox_id") ? "\"sb\"" : "null");
      const size_t at = line.rfind(from);  // the outer one: after "data"
      REQUIRE(at != std::string::npos);
      line.replace(at, from.size(),
                   std::string("\"") + name +
                       "\": " + (value ? std::string("\"") + value + "\"" : std::string("null")));
    };
    set("sandbox_id", sandbox_id);
    set("environment", environment);
    // Each line is signed after the last (chained): the link is not checked.
    return audit_verifier::VerifyLine(line, nullptr, signer.hasher(), &facts, reason);
  };
  std::string reason;
  const std::string agree =
      R"({"compute_driver": null, "environment": "prod", "sandbox_id": "sb"})";
  CHECK(verify(agree, "sb", "prod", &reason));
  CHECK_FALSE(verify(agree, "sb-other", "prod", &reason));
  CHECK(reason.find("\"sandbox_id\" disagrees with its signed copy") != std::string::npos);
  CHECK_FALSE(verify(agree, "sb", nullptr, &reason));
  CHECK(reason.find("\"environment\" disagrees") != std::string::npos);
  // A label missing from the copy, or of another type, disagrees.
  CHECK_FALSE(verify(R"({"environment": "prod", "sandbox_id": "sb"})", "sb", "prod", &reason));
  CHECK(reason.find("\"compute_driver\" disagrees") != std::string::npos);
  CHECK_FALSE(verify(R"({"compute_driver": [null], "environment": "prod", "sandbox_id": "sb"})",
                     "sb", "prod", &reason));
  CHECK(reason.find("\"compute_driver\" disagrees") != std::string::npos);
  CHECK_FALSE(
      verify(R"({"compute_driver": null, "environment": {"x": "prod"}, "sandbox_id": "sb"})", "sb",
             "prod", &reason));
  CHECK(reason.find("\"environment\" disagrees") != std::string::npos);
  CHECK_FALSE(verify("[1]", "sb", "prod", &reason));
  CHECK(reason == "data.labels is not an object");
  CHECK_FALSE(verify("\"sb\"", "sb", "prod", &reason));
  CHECK(reason == "data.labels is not an object");
  // Other members of the copy, and nested "labels" keys elsewhere, do not count.
  CHECK(verify(R"({"compute_driver": null, "environment": "prod", "extra": {"sandbox_id": "x"},)"
               R"( "sandbox_id": "sb"})",
               "sb", "prod", &reason));
}

TEST_CASE("RecentEntryIds holds one line at a time, not a window of lines") {
  // A sandbox decides how long entries are (hundreds of KiB within the
  // default limits). 400 entries of 128 KiB: a 50 MiB tail, read by a
  // child process whose address space may grow by 24 MiB only.
  test_util::TempDir dir;
  const std::string path = dir / "audit.jsonl";
  std::string err;
  audit_file::AuditFileWriter w;
  REQUIRE(w.Open(path, "key", &err));
  constexpr int kEntries = 400;
  for (int i = 0; i < kEntries; ++i) {
    audit_entry::AuditEntryFields f = Entry(i);
    f.entry_id = "audit_" + std::string(13, '0') + std::to_string(100 + i);
    f.data_canonical = "{\"s\": \"" + std::string(128 * 1024, 'x') + "\"}";
    REQUIRE(w.Append(f, &err));
  }
  REQUIRE(w.Sync(&err));
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    unsigned long vm_kib = 0;
    std::ifstream status("/proc/self/status");
    for (std::string l; std::getline(status, l);) {
      if (l.rfind("VmSize:", 0) == 0) vm_kib = std::stoul(l.substr(7));
    }
    const rlim_t limit = (static_cast<rlim_t>(vm_kib) << 10) + (24u << 20);
    const struct rlimit rl = {limit, limit};
    if (vm_kib == 0 || setrlimit(RLIMIT_AS, &rl) != 0) _exit(2);
    std::vector<std::string> ids;
    std::string child_err;
    bool ok = false;
    try {
      ok = w.RecentEntryIds(kEntries, &ids, &child_err);
    } catch (const std::bad_alloc&) {
      _exit(3);
    }
    _exit(ok && ids.size() == kEntries && ids.front() == "audit_0000000000000100" &&
                  ids.back() == "audit_0000000000000499"
              ? 0
              : 1);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  // And in this process, the window of the newest ones.
  std::vector<std::string> ids;
  REQUIRE(w.RecentEntryIds(3, &ids, &err));
  CHECK(ids == std::vector<std::string>{"audit_0000000000000497", "audit_0000000000000498",
                                        "audit_0000000000000499"});
}

TEST_CASE("an entry as long as the largest record limit allows verifies and resumes") {
  // A 16 MiB record of 2-byte characters escapes to 48 MiB: 9 MiB here
  // (beyond the 8 MiB verify once read) keeps the test quick.
  test_util::TempDir dir;
  const std::string path = dir / "audit.jsonl";
  std::string err;
  {
    audit_file::AuditFileWriter w;
    REQUIRE(w.Open(path, "key", &err));
    audit_entry::AuditEntryFields f = Entry(1);
    f.data_canonical = "{\"s\": \"" + std::string(9u << 20, 'x') + "\"}";
    REQUIRE(w.Append(f, &err));
    REQUIRE(w.Append(Entry(2), &err));
    REQUIRE(w.Sync(&err));
  }
  audit_verifier::VerifyReport report;
  CHECK(Verify(path, "key", &report) == audit_verifier::VerifyResult::kValid);
  CHECK(report.broken_reason == "");
  CHECK(report.entries == 2);
  audit_file::AuditFileWriter w;
  REQUIRE(w.Open(path, "key", &err));
  std::vector<std::string> ids;
  REQUIRE(w.RecentEntryIds(5, &ids, &err));
  CHECK(ids.size() == 2);
}

TEST_CASE("group commit: one background sync at a time; what comes meanwhile waits for the next") {
  test_util::TempDir dir;
  const std::string path = dir / "audit.jsonl";
  std::string err;
  audit_file::AuditFileWriter w;
  REQUIRE(w.Open(path, "key", &err));
  const uint64_t size_at_open = w.durable_head().size;
  for (int i = 0; i < 3; ++i) REQUIRE(w.Append(Entry(i), &err));
  REQUIRE(w.SyncInBackground(&err));
  REQUIRE(w.background_sync_problem().empty());
  CHECK(w.sync_in_flight());
  CHECK(w.sync_requested_appended() == 3);
  // Appended while it runs: not covered, and no second sync is started.
  for (int i = 3; i < 5; ++i) REQUIRE(w.Append(Entry(i), &err));
  REQUIRE(w.SyncInBackground(&err));
  CHECK(w.sync_requested_appended() == 3);
  CHECK(w.durable_appended() <= 3);
  // Its end moves the durable head to what it covered, not further.
  REQUIRE(w.SyncFinished(true, &err));
  CHECK_FALSE(w.sync_in_flight());
  CHECK(w.durable_appended() == 3);
  CHECK(w.durable_head().entries == 3);
  CHECK(w.durable_head().size > size_at_open);
  const uint64_t size_after_three = w.durable_head().size;
  // The next covers the two that waited.
  REQUIRE(w.SyncInBackground(&err));
  CHECK(w.sync_requested_appended() == 5);
  REQUIRE(w.SyncFinished(true, &err));
  CHECK(w.durable_appended() == 5);
  CHECK(w.durable_head().entries == 5);
  CHECK(w.durable_head().size > size_after_three);
  CHECK(w.durable_head().content_hash == w.previous_hash());
  // Nothing new: nothing started.
  REQUIRE(w.SyncInBackground(&err));
  CHECK_FALSE(w.sync_in_flight());
  CheckVerifies(path, 5);
}

TEST_CASE("group commit: a disk a sync has shown quick (tmpfs) is synced in line") {
  test_util::TempDir dir("/dev/shm");
  struct statfs fs;
  REQUIRE_MESSAGE(
      (!dir.path().empty() && statfs(dir.path().c_str(), &fs) == 0 && fs.f_type == TMPFS_MAGIC),
      "needs /dev/shm on tmpfs");
  const std::string path = dir / "audit.jsonl";
  std::string err;
  audit_file::AuditFileWriter w;
  REQUIRE(w.Open(path, "key", &err));
  // No sync measured yet: the first goes to the thread.
  CHECK_FALSE(w.sync_is_quick());
  REQUIRE(w.Append(Entry(0), &err));
  REQUIRE(w.SyncInBackground(&err));
  CHECK(w.sync_in_flight());
  REQUIRE(w.SyncFinished(true, &err));
  CHECK(w.durable_appended() == 1);
  // tmpfs syncs in microseconds; a loaded machine may stretch one, so a
  // few are allowed to be measured slow (each then goes to the thread).
  int i = 1;
  for (; i < 20 && !w.sync_is_quick(); ++i) {
    REQUIRE(w.Append(Entry(i), &err));
    REQUIRE(w.SyncInBackground(&err));
    REQUIRE(w.SyncFinished(true, &err));
  }
  REQUIRE(w.sync_is_quick());
  // In line: durable on return, nothing left in flight, the head moved.
  REQUIRE(w.Append(Entry(i), &err));
  REQUIRE(w.Append(Entry(i + 1), &err));
  REQUIRE(w.SyncInBackground(&err));
  CHECK_FALSE(w.sync_in_flight());
  CHECK(w.durable_appended() == w.entries_appended());
  CHECK(w.sync_requested_appended() == w.entries_appended());
  CHECK(w.durable_head().entries == static_cast<uint64_t>(i + 2));
  CHECK(w.durable_head().content_hash == w.previous_hash());
  CheckVerifies(path, static_cast<uint64_t>(i + 2));
}

TEST_CASE("group commit: an in-line Sync waits for the background one and covers everything") {
  test_util::TempDir dir;
  const std::string path = dir / "audit.jsonl";
  std::string err;
  audit_file::AuditFileWriter w;
  REQUIRE(w.Open(path, "key", &err));
  REQUIRE(w.Append(Entry(0), &err));
  REQUIRE(w.SyncInBackground(&err));
  REQUIRE(w.Append(Entry(1), &err));
  REQUIRE(w.Sync(&err));  // the file channel's commit, say
  CHECK_FALSE(w.sync_in_flight());
  CHECK(w.durable_appended() == 2);
  CHECK(w.durable_head().entries == 2);
  // A background sync's end never moves the head back.
  REQUIRE(w.SyncFinished(false, &err));
  CHECK(w.durable_appended() == 2);
  // Reopen (SIGHUP) while one is in flight: waited for, the count goes on.
  REQUIRE(w.Append(Entry(2), &err));
  REQUIRE(w.SyncInBackground(&err));
  REQUIRE(w.Reopen(&err));
  CHECK(w.durable_appended() == 3);
  REQUIRE(w.Append(Entry(3), &err));
  REQUIRE(w.SyncInBackground(&err));
  REQUIRE(w.SyncFinished(true, &err));
  CHECK(w.durable_appended() == 4);
  CHECK(w.durable_head().entries == 4);
  CheckVerifies(path, 4);
}

TEST_CASE("Close reports a background sync that failed, rather than dropping it") {
  test_util::TempDir dir;
  const std::string path = dir / "audit.jsonl";
  // In a child: from the filter on, the kernel fails every fdatasync with
  // EIO there (the sync thread, started after it, inherits it).
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::string err;
    audit_file::AuditFileWriter w;
    if (!w.Open(path, "key", &err) || !w.Append(Entry(0), &err)) _exit(2);
    const scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (ctx == nullptr || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EIO), SCMP_SYS(fdatasync), 0) != 0 ||
        seccomp_load(ctx) != 0) {
      _exit(3);
    }
    if (!w.SyncInBackground(&err) || !w.sync_in_flight()) _exit(4);
    const bool closed = w.Close(&err);
    const bool said = err.find("fdatasync") != std::string::npos &&
                      err.find(path) != std::string::npos &&
                      err.find(strerror(EIO)) != std::string::npos;
    _exit(!closed && said ? 0 : 5);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);  // 5: Close said nothing, or not what failed
}
