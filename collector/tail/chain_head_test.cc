#include "tail/chain_head.h"

#include <doctest/doctest.h>

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "tail/tail_test_util.h"

using chain_head::ChainHead;
using chain_head::LoadResult;

TEST_CASE("chain_head: save and load round trip, with and without entries") {
  tail_test_util::TempDir d;
  ChainHead got;
  std::string err;
  CHECK(chain_head::Load(d.fd(), &got, &err) == LoadResult::kNone);
  ChainHead h;
  h.file = {12, 34};
  h.entries = 3;
  h.size = 4567;
  h.content_hash = std::string(64, 'a');
  REQUIRE(chain_head::Save(d.fd(), h, &err));
  REQUIRE(chain_head::Load(d.fd(), &got, &err) == LoadResult::kLoaded);
  CHECK(got.file == h.file);
  CHECK(got.entries == 3);
  CHECK(got.size == 4567);
  CHECK(got.content_hash == h.content_hash);
  ChainHead empty;
  empty.file = {1, 2};
  REQUIRE(chain_head::Save(d.fd(), empty, &err));
  REQUIRE(chain_head::Load(d.fd(), &got, &err) == LoadResult::kLoaded);
  CHECK(got.entries == 0);
  CHECK(got.content_hash.empty());
}

TEST_CASE("chain_head: every cut or edited file is refused, never half-read") {
  tail_test_util::TempDir d;
  const std::string good =
      "agt-collector chain head 1\ndev=1 ino=2 entries=5 size=900 content_hash=" +
      std::string(64, 'b') + "\n";
  ChainHead got;
  std::string err;
  for (size_t n = 0; n < good.size(); ++n) {
    d.Write(chain_head::kFileName, good.substr(0, n));
    CHECK_MESSAGE(chain_head::Load(d.fd(), &got, &err) == LoadResult::kCorrupt, n);
  }
  d.Write(chain_head::kFileName, good);
  CHECK(chain_head::Load(d.fd(), &got, &err) == LoadResult::kLoaded);
  for (const std::string& bad : {
           std::string(
               "agt-collector chain head 1\ndev=1 ino=2 entries=5 size=900 content_hash=\n"),
           std::string("agt-collector chain head 1\ndev=1 ino=2 entries=0 size=9 content_hash=\n"),
           "agt-collector chain head 1\ndev=1 ino=2 entries=5 size=900 content_hash=" +
               std::string(64, 'B') + "\n",
           "agt-collector chain head 1\ndev=1 ino=2 entries=5 size=900 content_hash=" +
               std::string(64, 'b') + " x\n",
       }) {
    d.Write(chain_head::kFileName, bad);
    CHECK_MESSAGE(chain_head::Load(d.fd(), &got, &err) == LoadResult::kCorrupt, bad);
  }
}

namespace {

ChainHead HeadOf(uint64_t entries) {
  ChainHead h;
  h.file = {12, 34};
  h.entries = entries;
  h.size = entries * 100;
  h.content_hash = entries == 0 ? std::string() : std::string(64, "0123456789abcdef"[entries % 16]);
  return h;
}

ino_t InodeOf(const std::string& path) {
  struct stat st;
  REQUIRE(stat(path.c_str(), &st) == 0);
  return st.st_ino;
}

}  // namespace

TEST_CASE("chain_head: saves overwrite the file in place, the newest head always loads") {
  tail_test_util::TempDir d;
  std::string err;
  REQUIRE(chain_head::Save(d.fd(), HeadOf(0), &err));
  const ino_t inode = InodeOf(d.Join(chain_head::kFileName));
  for (uint64_t entries = 1; entries <= 5; ++entries) {
    REQUIRE_MESSAGE(chain_head::Save(d.fd(), HeadOf(entries), &err), err);
    ChainHead got;
    REQUIRE(chain_head::Load(d.fd(), &got, &err) == LoadResult::kLoaded);
    CHECK(got.entries == entries);
    CHECK(got.size == entries * 100);
    CHECK(got.content_hash == HeadOf(entries).content_hash);
  }
  // Neither created nor renamed after the first: the same file, no temporary.
  CHECK(InodeOf(d.Join(chain_head::kFileName)) == inode);
  CHECK(access(d.Join("chain.head.tmp").c_str(), F_OK) != 0);
}

TEST_CASE("chain_head: a slot cut or damaged by a crash leaves the head before it") {
  tail_test_util::TempDir d;
  std::string err;
  REQUIRE(chain_head::Save(d.fd(), HeadOf(1), &err));  // slot 0
  REQUIRE(chain_head::Save(d.fd(), HeadOf(2), &err));  // slot 1, the newest
  const std::string whole = d.Read(chain_head::kFileName);
  REQUIRE(whole.size() == 4096 + 512);
  const size_t text_end = whole.find('\0', 4096);
  ChainHead got;
  // The newest slot written only up to byte n (a write the crash cut
  // short), or with one byte changed: the head before it.
  for (size_t n = 4096; n < text_end; ++n) {
    std::string cut = whole;
    std::fill(cut.begin() + static_cast<std::ptrdiff_t>(n), cut.end(), '\0');
    d.Write(chain_head::kFileName, cut);
    REQUIRE_MESSAGE(chain_head::Load(d.fd(), &got, &err) == LoadResult::kLoaded, n);
    CHECK_MESSAGE(got.entries == 1, n);
    std::string edited = whole;
    edited[n] = static_cast<char>(edited[n] ^ 1);
    d.Write(chain_head::kFileName, edited);
    REQUIRE_MESSAGE(chain_head::Load(d.fd(), &got, &err) == LoadResult::kLoaded, n);
    CHECK_MESSAGE(got.entries == 1, n);
  }
  // The next save after such a crash goes to the damaged slot, and wins.
  REQUIRE(chain_head::Save(d.fd(), HeadOf(3), &err));
  REQUIRE(chain_head::Load(d.fd(), &got, &err) == LoadResult::kLoaded);
  CHECK(got.entries == 3);
  // Both slots damaged: refused, never half-read.
  std::string both = whole;
  both[10] = 'X';
  both[4096 + 10] = 'X';
  d.Write(chain_head::kFileName, both);
  CHECK(chain_head::Load(d.fd(), &got, &err) == LoadResult::kCorrupt);
  CHECK(err == "chain.head: malformed chain head");
  d.Write(chain_head::kFileName, whole + "x");  // longer than two slots
  CHECK(chain_head::Load(d.fd(), &got, &err) == LoadResult::kCorrupt);
}

TEST_CASE("chain_head: an older build's file is read, and replaced by the first save") {
  tail_test_util::TempDir d;
  d.Write(chain_head::kFileName,
          "agt-collector chain head 1\ndev=1 ino=2 entries=5 size=900 "
          "content_hash=" +
              std::string(64, 'b') + "\n");
  ChainHead got;
  std::string err;
  REQUIRE(chain_head::Load(d.fd(), &got, &err) == LoadResult::kLoaded);
  CHECK(got.entries == 5);
  REQUIRE(chain_head::Save(d.fd(), HeadOf(6), &err));
  REQUIRE(chain_head::Load(d.fd(), &got, &err) == LoadResult::kLoaded);
  CHECK(got.entries == 6);
  CHECK(d.Read(chain_head::kFileName).rfind("agt-collector chain head 2\n", 0) == 0);
  REQUIRE(chain_head::Save(d.fd(), HeadOf(7), &err));
  REQUIRE(chain_head::Load(d.fd(), &got, &err) == LoadResult::kLoaded);
  CHECK(got.entries == 7);
}

TEST_CASE("chain_head: a failed save says which call failed") {
  tail_test_util::TempDir d;
  std::string err;
  d.Mkdir(chain_head::kFileName);
  CHECK_FALSE(chain_head::Save(d.fd(), HeadOf(1), &err));
  CHECK(err == "open chain.head: Is a directory");
  CHECK(errno == EISDIR);
}
