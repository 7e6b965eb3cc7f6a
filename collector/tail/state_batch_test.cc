#include "tail/state_batch.h"

#include <doctest/doctest.h>
#include <errno.h>
#include <sys/stat.h>

#include <string>

#include "tail/tail_test_util.h"

namespace {

state_batch::Checkpoint At(const std::string& key, uint64_t offset) {
  state_batch::Checkpoint c;
  c.key = key;
  c.value.file = {7, offset + 100};
  c.value.position.offset = offset;
  checkpoint_store::HashBytes({}, {}, &c.value.hash_len, &c.value.sha256_hex);
  c.value.has_audit = true;
  c.value.audit_file = {1, 2};
  c.value.audit_size = 900;
  return c;
}

uint64_t LoadedOffset(int dir_fd, const std::string& key) {
  checkpoint_store::Checkpoint c;
  std::string err;
  REQUIRE(checkpoint_store::Load(dir_fd, key, &c, &err) == checkpoint_store::LoadResult::kLoaded);
  return c.position.offset;
}

}  // namespace

TEST_CASE("state_batch: the head and each checkpoint land, a few and many at a time") {
  tail_test_util::TempDir d;
  // 2: one fsync each; 9: one syncfs (past kFsyncEachUpTo). Twice each, so
  // the second batch swaps with the first's files and the sizes follow.
  for (size_t count : {size_t{2}, size_t{9}}) {
    state_batch::Batch b;
    b.write_head = true;
    b.head.file = {1, 2};
    b.head.entries = count;
    b.head.size = 900;
    b.head.content_hash = std::string(64, 'c');
    for (size_t i = 0; i < count; ++i) b.checkpoints.push_back(At("sb-" + std::to_string(i), i));
    std::string err;
    for (int round = 0; round < 2; ++round) {
      REQUIRE_MESSAGE(state_batch::Write(d.fd(), d.path(), &b, &err), err);
      chain_head::ChainHead head;
      REQUIRE(chain_head::Load(d.fd(), &head, &err) == chain_head::LoadResult::kLoaded);
      CHECK(head.entries == count);
      for (size_t i = 0; i < count; ++i) {
        CHECK(LoadedOffset(d.fd(), b.checkpoints[i].key) == i);
        CHECK(b.checkpoints[i].sizes.published > 0);  // known: no fstat next time
      }
    }
  }
}

TEST_CASE("state_batch: a checkpoint that cannot be staged publishes nothing") {
  tail_test_util::TempDir d;
  state_batch::Batch b;
  b.write_head = true;
  b.head.file = {1, 2};
  b.checkpoints.push_back(At("sb-a", 10));
  b.checkpoints.push_back(At("sb-b", 20));
  // sb-b's staging file is a directory: its open fails.
  d.Mkdir("sb-b.checkpoint.tmp");
  std::string err;
  int error_number = 0;
  CHECK_FALSE(state_batch::Write(d.fd(), d.path(), &b, &err, &error_number));
  CHECK(err.find("checkpoint in " + d.path() + ": open sb-b.checkpoint.tmp") == 0);
  CHECK(error_number == EISDIR);  // the failed call's, for the caller to tell EMFILE apart
  chain_head::ChainHead head;
  checkpoint_store::Checkpoint c;
  CHECK(chain_head::Load(d.fd(), &head, &err) == chain_head::LoadResult::kNone);
  CHECK(checkpoint_store::Load(d.fd(), "sb-a", &c, &err) == checkpoint_store::LoadResult::kNone);
  struct stat st;
  CHECK(fstatat(d.fd(), "sb-a.checkpoint.tmp", &st, 0) == 0);  // staged, never renamed
}

TEST_CASE("state_batch: an empty batch touches nothing") {
  tail_test_util::TempDir d;
  state_batch::Batch b;
  std::string err;
  CHECK(state_batch::Write(-1, d.path(), &b, &err));  // not even the directory's fd
}
