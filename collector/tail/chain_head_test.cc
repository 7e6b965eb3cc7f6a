#include "tail/chain_head.h"

#include <doctest/doctest.h>

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

TEST_CASE("chain_head: a staged head replaces the saved one only when published") {
  tail_test_util::TempDir d;
  ChainHead h;
  h.file = {12, 34};
  h.entries = 3;
  h.size = 4567;
  h.content_hash = std::string(64, 'a');
  std::string err;
  REQUIRE(chain_head::Save(d.fd(), h, &err));
  ChainHead next = h;
  next.entries = 4;
  next.size = 5000;
  next.content_hash = std::string(64, 'c');
  for (const bool sync_file : {false, true}) {
    REQUIRE(chain_head::Stage(d.fd(), next, sync_file, &err));
    ChainHead got;
    REQUIRE(chain_head::Load(d.fd(), &got, &err) == LoadResult::kLoaded);
    CHECK(got.entries == h.entries);  // staged only: a crash here keeps the previous head
    REQUIRE(chain_head::Publish(d.fd(), &err));
    REQUIRE(chain_head::Load(d.fd(), &got, &err) == LoadResult::kLoaded);
    CHECK(got.entries == next.entries);
    CHECK(got.size == next.size);
    CHECK(got.content_hash == next.content_hash);
    h = next;
    ++next.entries;
    next.size += 100;
  }
  // Nothing staged: publishing fails and says what.
  CHECK_FALSE(chain_head::Publish(d.fd(), &err));
  CHECK(err.find("chain.head.tmp") != std::string::npos);
}
