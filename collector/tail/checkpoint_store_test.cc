#include "tail/checkpoint_store.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "tail/tail_test_util.h"

using checkpoint_store::Checkpoint;
using checkpoint_store::LoadResult;

namespace {

Checkpoint At(int fd, uint64_t offset) {
  struct stat st;
  REQUIRE(fstat(fd, &st) == 0);
  Checkpoint c;
  c.file = file_id::FileId::Of(st);
  c.position.offset = offset;
  std::string err;
  REQUIRE(checkpoint_store::HashBefore(fd, offset, &c.hash_len, &c.sha256_hex, &err));
  return c;
}

}  // namespace

TEST_CASE("checkpoint_store: save, load, round trip") {
  tail_test_util::TempDir d;
  d.Write("log", std::string(10000, 'a') + "\n");
  int fd = open(d.Join("log").c_str(), O_RDONLY | O_CLOEXEC);
  Checkpoint c = At(fd, 9000);
  c.position.skipping_long_line = true;
  CHECK(c.hash_len == checkpoint_store::kHashWindow);
  std::string err;
  REQUIRE(checkpoint_store::Save(d.fd(), "sb-1", c, &err));
  REQUIRE(checkpoint_store::SyncDirectory(d.fd(), &err));
  Checkpoint got;
  REQUIRE(checkpoint_store::Load(d.fd(), "sb-1", &got, &err) == LoadResult::kLoaded);
  CHECK(got.file.dev == c.file.dev);
  CHECK(got.file.ino == c.file.ino);
  CHECK(got.file == c.file);
  CHECK(got.position.offset == 9000);
  CHECK(got.position.skipping_long_line);
  CHECK(got.hash_len == c.hash_len);
  CHECK(got.sha256_hex == c.sha256_hex);
  CHECK(access(d.Join("sb-1.checkpoint.tmp").c_str(), F_OK) != 0);
  CHECK(checkpoint_store::Load(d.fd(), "other", &got, &err) == LoadResult::kNone);
  CHECK(checkpoint_store::StillValid(fd, c, &err));
  close(fd);
}

TEST_CASE("checkpoint_store: a later save swaps files, freeing and allocating no inode") {
  tail_test_util::TempDir d;
  d.Write("log", std::string(10000, 'a') + "\n");
  int fd = open(d.Join("log").c_str(), O_RDONLY | O_CLOEXEC);
  std::string err;
  REQUIRE(checkpoint_store::Save(d.fd(), "sb-1", At(fd, 100), &err));
  REQUIRE(checkpoint_store::Save(d.fd(), "sb-1", At(fd, 200), &err));
  // The second save's file now sits behind as .tmp: the first checkpoint.
  struct stat first, behind;
  REQUIRE(stat(d.Join("sb-1.checkpoint.tmp").c_str(), &behind) == 0);
  REQUIRE(stat(d.Join("sb-1.checkpoint").c_str(), &first) == 0);
  REQUIRE(checkpoint_store::Save(d.fd(), "sb-1", At(fd, 300), &err));
  struct stat now, now_behind;
  REQUIRE(stat(d.Join("sb-1.checkpoint").c_str(), &now) == 0);
  REQUIRE(stat(d.Join("sb-1.checkpoint.tmp").c_str(), &now_behind) == 0);
  CHECK(now.st_ino == behind.st_ino);  // the staged file was the one left behind
  CHECK(now_behind.st_ino == first.st_ino);
  Checkpoint got;
  REQUIRE(checkpoint_store::Load(d.fd(), "sb-1", &got, &err) == LoadResult::kLoaded);
  CHECK(got.position.offset == 300);
  // A stage cut short (a crash while writing the .tmp) leaves the published one whole.
  d.Write("sb-1.checkpoint.tmp", "agt-collector checkpoint 1\ndev=");
  REQUIRE(checkpoint_store::Load(d.fd(), "sb-1", &got, &err) == LoadResult::kLoaded);
  CHECK(got.position.offset == 300);
  close(fd);
}

TEST_CASE("checkpoint_store: the sizes kept across stages and swaps are the files' sizes") {
  tail_test_util::TempDir d;
  d.Write("log", std::string(10000, 'a') + "\n");
  const int fd = open(d.Join("log").c_str(), O_RDONLY | O_CLOEXEC);
  const auto size_of = [&](const char* name) {
    struct stat st;
    return stat(d.Join(name).c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : -1;
  };
  std::string err;
  checkpoint_store::FileSizes sizes;
  // Bodies growing and shrinking (a longer one, then shorter ones): with the
  // size known and no fstat, a shorter body still cuts what was there.
  Checkpoint c = At(fd, 9999);
  for (const uint64_t offset : {9999u, 5u, 100u, 7u, 10000u, 3u}) {
    c = At(fd, offset);
    if (offset == 10000) c.gone.push_back({{12345678901ull, 98765432109ull}, 123456789012ull});
    REQUIRE(checkpoint_store::Stage(d.fd(), "sb-1", c, false, &err, &sizes));
    CHECK(sizes.tmp == size_of("sb-1.checkpoint.tmp"));
    REQUIRE(checkpoint_store::Publish(d.fd(), "sb-1", &err, &sizes));
    CHECK(sizes.published == size_of("sb-1.checkpoint"));
    CHECK(sizes.tmp == size_of("sb-1.checkpoint.tmp"));
    Checkpoint got;
    REQUIRE(checkpoint_store::Load(d.fd(), "sb-1", &got, &err) == LoadResult::kLoaded);
    CHECK(got.position.offset == offset);
    CHECK(got.gone.size() == c.gone.size());
  }
  close(fd);
}

TEST_CASE("checkpoint_store: every cut of the checkpoint file is refused, never misread") {
  tail_test_util::TempDir d;
  d.Write("log", "hello\nworld\n");
  int fd = open(d.Join("log").c_str(), O_RDONLY | O_CLOEXEC);
  Checkpoint c = At(fd, 6);
  close(fd);
  std::string err;
  REQUIRE(checkpoint_store::Save(d.fd(), "k", c, &err));
  int cfd = open(d.Join("k.checkpoint").c_str(), O_RDONLY);
  char buf[512];
  ssize_t n = read(cfd, buf, sizeof buf);
  close(cfd);
  REQUIRE(n > 0);
  for (ssize_t cut = 0; cut < n; ++cut) {
    d.Write("k.checkpoint", std::string(buf, static_cast<size_t>(cut)));
    Checkpoint got;
    CHECK(checkpoint_store::Load(d.fd(), "k", &got, &err) == LoadResult::kCorrupt);
  }
  d.Write("k.checkpoint", std::string(buf, static_cast<size_t>(n)) + "junk");
  Checkpoint got;
  CHECK(checkpoint_store::Load(d.fd(), "k", &got, &err) == LoadResult::kCorrupt);
}

TEST_CASE("checkpoint_store: truncation, copytruncate-and-regrow and another file are detected") {
  tail_test_util::TempDir d;
  const std::string first = "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n";
  d.Write("log", first);
  int fd = open(d.Join("log").c_str(), O_RDONLY | O_CLOEXEC);
  Checkpoint c = At(fd, first.size());
  std::string why;
  CHECK(checkpoint_store::StillValid(fd, c, &why));
  d.Write("log", first + "{\"a\":4}\n");  // grown: still valid
  CHECK(checkpoint_store::StillValid(fd, c, &why));

  d.Write("log", "{\"a\":9}\n");  // truncated below the offset (O_TRUNC keeps the inode)
  CHECK_FALSE(checkpoint_store::StillValid(fd, c, &why));
  CHECK(why.find("truncated") != std::string::npos);
  CHECK(why.find(std::to_string(first.size())) != std::string::npos);

  // Shrunk and regrown past the old offset between two looks.
  d.Write("log", "{\"b\":1}\n{\"b\":2}\n{\"b\":3}\n{\"b\":4}\n");
  CHECK_FALSE(checkpoint_store::StillValid(fd, c, &why));
  CHECK(why.find("rewritten") != std::string::npos);
  close(fd);

  // Another file entirely.
  d.Write("other", first);
  int ofd = open(d.Join("other").c_str(), O_RDONLY | O_CLOEXEC);
  CHECK_FALSE(checkpoint_store::StillValid(ofd, c, &why));
  CHECK(why.find("different file") != std::string::npos);
  close(ofd);
}

TEST_CASE("checkpoint_store: a checkpoint hashed with the append-only window is checked over it") {
  tail_test_util::TempDir d;
  std::string bytes;
  for (int i = 0; bytes.size() < 9000; ++i) bytes += "{\"n\":" + std::to_string(i) + "}\n";
  d.Write("log", bytes);
  int fd = open(d.Join("log").c_str(), O_RDONLY | O_CLOEXEC);
  const uint64_t offset = bytes.size();
  Checkpoint c = At(fd, offset);
  std::string err;
  REQUIRE(checkpoint_store::HashBefore(fd, offset, &c.hash_len, &c.sha256_hex, &err,
                                       checkpoint_store::HashWindowAt(offset, true)));
  CHECK(c.hash_len == checkpoint_store::kAppendOnlyHashWindow);
  // Saved and loaded as it was written: the loader takes the shorter length.
  REQUIRE(checkpoint_store::Save(d.fd(), "sb-1", c, &err));
  Checkpoint got;
  REQUIRE(checkpoint_store::Load(d.fd(), "sb-1", &got, &err) == LoadResult::kLoaded);
  CHECK(got.hash_len == checkpoint_store::kAppendOnlyHashWindow);
  std::string why;
  CHECK(checkpoint_store::StillValid(fd, got, &why));
  // A byte inside the window changed: refused; one before it is not its concern.
  std::string changed = bytes;
  changed[offset - 10] = 'x';
  d.Write("log", changed);
  CHECK_FALSE(checkpoint_store::StillValid(fd, got, &why));
  CHECK(why.find("rewritten") != std::string::npos);
  changed = bytes;
  changed[offset - checkpoint_store::kAppendOnlyHashWindow - 1] = 'x';
  d.Write("log", changed);
  CHECK(checkpoint_store::StillValid(fd, got, &why));
  // Fewer bytes than either window: never written, refused.
  got.hash_len = 100;
  CHECK_FALSE(checkpoint_store::StillValid(fd, got, &why));
  CHECK(why.find("fewer") != std::string::npos);
  // Near the start both windows are the whole prefix.
  CHECK(checkpoint_store::HashWindowAt(300, true) == 300);
  CHECK(checkpoint_store::HashWindowAt(300, false) == 300);
  CHECK(checkpoint_store::HashWindowAt(5000, false) == checkpoint_store::kHashWindow);
  close(fd);
}

TEST_CASE("checkpoint_store: a run in progress and a held-back count survive a round trip") {
  tail_test_util::TempDir d;
  checkpoint_store::Checkpoint c;
  c.file = {1, 2};
  c.position.offset = 5000;
  c.position.in_nul_run = true;
  c.position.run_start = 1234;
  c.held = {45, 4500, 1781431200};
  c.hash_len = 4096;
  c.sha256_hex = std::string(64, 'a');
  std::string err;
  REQUIRE(checkpoint_store::Save(d.fd(), "sb", c, &err));
  checkpoint_store::Checkpoint got;
  REQUIRE(checkpoint_store::Load(d.fd(), "sb", &got, &err) ==
          checkpoint_store::LoadResult::kLoaded);
  CHECK(got.position == c.position);
  CHECK(got.held == c.held);
  // One written before these fields existed still loads (over-long: from its offset).
  d.Write("old.checkpoint",
          "agt-collector checkpoint 1\ndev=1 ino=2 offset=10 skipping=1 "
          "hash_len=10 sha256=" +
              std::string(64, 'b') + "\n");
  REQUIRE(checkpoint_store::Load(d.fd(), "old", &got, &err) ==
          checkpoint_store::LoadResult::kLoaded);
  CHECK(got.position.skipping_long_line);
  CHECK(got.position.run_start == 10);
  CHECK(got.held.lines == 0);
  d.Write("bad.checkpoint",
          "agt-collector checkpoint 1\ndev=1 ino=2 offset=10 skipping=0 "
          "hash_len=10 sha256=" +
              std::string(64, 'b') + " held=1,2\n");
  CHECK(checkpoint_store::Load(d.fd(), "bad", &got, &err) ==
        checkpoint_store::LoadResult::kCorrupt);
}

TEST_CASE("checkpoint_store: the audit file's size and the files let go, at their widest") {
  tail_test_util::TempDir d;
  d.Write("log", "a\n");
  int fd = open(d.Join("log").c_str(), O_RDONLY | O_CLOEXEC);
  Checkpoint c = At(fd, 2);
  close(fd);
  const uint64_t kMax = UINT64_MAX;
  c.file = {kMax, kMax};
  c.position.offset = kMax;
  c.position.in_nul_run = true;
  c.position.run_start = kMax;
  c.held = {kMax, kMax, INT64_MIN};
  c.has_audit = true;
  c.audit_file = {kMax, kMax - 1};
  c.audit_size = kMax - 2;
  for (uint64_t i = 0; i < checkpoint_store::kGoneKept; ++i)
    c.gone.push_back({{kMax, kMax - i}, i});
  std::string err;
  REQUIRE(checkpoint_store::Save(d.fd(), "sb-1", c, &err));
  Checkpoint got;
  REQUIRE(checkpoint_store::Load(d.fd(), "sb-1", &got, &err) == LoadResult::kLoaded);
  CHECK(got.has_audit);
  CHECK(got.audit_file == c.audit_file);
  CHECK(got.audit_size == kMax - 2);
  REQUIRE(got.gone.size() == checkpoint_store::kGoneKept);
  for (uint64_t i = 0; i < checkpoint_store::kGoneKept; ++i) {
    CHECK(got.gone[i].file == c.gone[i].file);
    CHECK(got.gone[i].offset == i);
  }
  std::vector<std::string> keys;
  REQUIRE(checkpoint_store::ListKeys(d.fd(), &keys, &err));
  CHECK(keys == std::vector<std::string>{"sb-1"});
  // A checkpoint from before these fields: no audit size (the whole file is
  // searched at restart), no files let go.
  d.Write("old.checkpoint",
          "agt-collector checkpoint 1\ndev=1 ino=2 offset=0 skipping=0 hash_len=0 sha256=" +
              std::string(64, '0') + "\n");
  REQUIRE(checkpoint_store::Load(d.fd(), "old", &got, &err) == LoadResult::kLoaded);
  CHECK_FALSE(got.has_audit);
  CHECK(got.gone.empty());
}

TEST_CASE("checkpoint_store: the window hashed in two parts is the window hashed from the file") {
  // The reader's window is a ring: HashBytes takes its two halves in place.
  tail_test_util::TempDir d;
  std::string bytes;
  for (int i = 0; bytes.size() < 6000; ++i) bytes += std::to_string(i) + ",";
  d.Write("log", bytes);
  const int fd = open(d.Join("log").c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  const Checkpoint c = At(fd, 5000);
  const std::string window =
      bytes.substr(5000 - checkpoint_store::kHashWindow, checkpoint_store::kHashWindow);
  for (size_t cut : {size_t{0}, size_t{1}, size_t{1000}, window.size()}) {
    uint32_t len = 0;
    std::string hex;
    checkpoint_store::HashBytes(std::string_view(window).substr(0, cut),
                                std::string_view(window).substr(cut), &len, &hex);
    CHECK(len == c.hash_len);
    CHECK(hex == c.sha256_hex);
  }
  // And it is SHA-256: the empty window's digest, as a first checkpoint has it.
  uint32_t len = 1;
  std::string hex;
  checkpoint_store::HashBytes({}, {}, &len, &hex);
  CHECK(len == 0);
  CHECK(hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  close(fd);
}

TEST_CASE("checkpoint_store: the text of a checkpoint is the format state directories hold") {
  // Written by earlier versions and read by every later one: field for
  // field, as the format has always been spelled.
  Checkpoint c;
  c.file = {2049, 18446744073709551615u};
  c.position.offset = 4096;
  c.position.in_nul_run = true;
  c.position.run_start = 4000;
  c.hash_len = 256;
  c.sha256_hex = std::string(64, 'e');
  c.held = {7, 700, -5};
  c.audit_file = {66, 12};
  c.audit_size = 123456789;
  c.written_ns = 1700000000123456789;
  c.gone = {{{1, 2}, 3}, {{4, 5}, 6}};
  CHECK(checkpoint_store::Text(c) ==
        "dev=2049 ino=18446744073709551615 offset=4096 skipping=2 hash_len=256 sha256=" +
            std::string(64, 'e') +
            " run_start=4000 held=7,700,-5 audit=66,12,123456789 written=1700000000123456789"
            " gone=1,2,3 gone=4,5,6\n");
  Checkpoint plain;
  CHECK(checkpoint_store::Text(plain) ==
        "dev=0 ino=0 offset=0 skipping=0 hash_len=0 sha256= run_start=0 held=0,0,0 "
        "audit=0,0,0\n");
}
