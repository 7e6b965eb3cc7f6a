#include "tail/state_batch.h"

#include <doctest/doctest.h>
#include <errno.h>
#include <sys/stat.h>

#include <string>

#include "tail/checkpoint_journal_test_util.h"
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

// The state directory as the next start reads it.
uint64_t LoadedOffset(int dir_fd, const std::string& key) {
  checkpoint_journal::State state;
  checkpoint_journal::Found found;
  std::string err;
  REQUIRE(checkpoint_journal::Load(dir_fd, &state, &found, &err) ==
          checkpoint_journal::LoadResult::kLoaded);
  REQUIRE(state.count(key) == 1);
  checkpoint_store::Checkpoint c;
  REQUIRE(checkpoint_store::Parse(key, state[key], &c, &err) ==
          checkpoint_store::LoadResult::kLoaded);
  return c.position.offset;
}

void OpenJournal(int dir_fd, checkpoint_journal::Writer* w) {
  checkpoint_journal::State state;
  checkpoint_journal::Found found;
  std::string err;
  REQUIRE(checkpoint_journal::Load(dir_fd, &state, &found, &err) !=
          checkpoint_journal::LoadResult::kError);
  REQUIRE(w->Open(dir_fd, found, &err));
}

}  // namespace

TEST_CASE("state_batch: the head and every checkpoint land, one frame per batch") {
  tail_test_util::TempDir d;
  checkpoint_journal::Writer journal;
  OpenJournal(d.fd(), &journal);
  for (size_t count : {size_t{2}, size_t{9}}) {
    state_batch::Batch b;
    b.write_head = true;
    b.head.file = {1, 2};
    b.head.entries = count;
    b.head.size = 900;
    b.head.content_hash = std::string(64, 'c');
    for (size_t i = 0; i < count; ++i) b.checkpoints.push_back(At("sb-" + std::to_string(i), i));
    std::string err;
    const uint64_t before = journal.size();
    REQUIRE_MESSAGE(state_batch::Write(&journal, d.fd(), d.path(), &b, &err), err);
    chain_head::ChainHead head;
    REQUIRE(chain_head::Load(d.fd(), &head, &err) == chain_head::LoadResult::kLoaded);
    CHECK(head.entries == count);
    std::vector<std::string> texts;
    for (size_t i = 0; i < count; ++i) {
      CHECK(LoadedOffset(d.fd(), b.checkpoints[i].key) == i);
      texts.push_back(checkpoint_store::Text(b.checkpoints[i].value));
    }
    std::vector<std::pair<std::string_view, std::string_view>> entries;
    for (size_t i = 0; i < count; ++i) entries.emplace_back(b.checkpoints[i].key, texts[i]);
    // One frame: the journal grew by exactly it.
    CHECK(journal.size() - before == checkpoint_journal_test_util::Frame(entries).size());
    // No file per source.
    CHECK(access(d.Join("sb-0.checkpoint").c_str(), F_OK) != 0);
  }
}

TEST_CASE("state_batch: a head that cannot be created writes nothing of the batch") {
  tail_test_util::TempDir d;
  checkpoint_journal::Writer journal;
  OpenJournal(d.fd(), &journal);
  const uint64_t empty = journal.size();
  state_batch::Batch b;
  b.write_head = true;
  b.head.file = {1, 2};
  b.checkpoints.push_back(At("sb-a", 10));
  b.checkpoints.push_back(At("sb-b", 20));
  // The head's staging file is a directory: its open fails.
  d.Mkdir("chain.head.tmp");
  std::string err;
  int error_number = 0;
  CHECK_FALSE(state_batch::Write(&journal, d.fd(), d.path(), &b, &err, &error_number));
  CHECK(err.find("chain head in " + d.path() + ": open chain.head.tmp") == 0);
  CHECK(error_number == EISDIR);  // the failed call's, for the caller to tell EMFILE apart
  chain_head::ChainHead head;
  CHECK(chain_head::Load(d.fd(), &head, &err) == chain_head::LoadResult::kNone);
  CHECK(journal.size() == empty);  // no frame
}

TEST_CASE("state_batch: a head that cannot be written writes no frame") {
  tail_test_util::TempDir d;
  checkpoint_journal::Writer journal;
  OpenJournal(d.fd(), &journal);
  std::string err;
  chain_head::ChainHead first;
  first.file = {1, 2};
  REQUIRE(chain_head::Save(d.fd(), first, &err));
  const uint64_t before = journal.size();
  state_batch::Batch b;
  b.write_head = true;
  b.head.file = {1, 2};
  b.checkpoints.push_back(At("sb-a", 10));
  // The head replaced by a directory: the commit's open of it fails.
  REQUIRE(unlink(d.Join("chain.head").c_str()) == 0);
  d.Mkdir("chain.head");
  int error_number = 0;
  CHECK_FALSE(state_batch::Write(&journal, d.fd(), d.path(), &b, &err, &error_number));
  CHECK(err == "chain head in " + d.path() + ": open chain.head: Is a directory");
  CHECK(error_number == EISDIR);
  CHECK(journal.size() == before);  // no frame
}

TEST_CASE("state_batch: a batch of checkpoints alone leaves the head as it is") {
  tail_test_util::TempDir d;
  checkpoint_journal::Writer journal;
  OpenJournal(d.fd(), &journal);
  state_batch::Batch b;
  b.checkpoints.push_back(At("sb-a", 10));
  std::string err;
  REQUIRE(state_batch::Write(&journal, d.fd(), d.path(), &b, &err));
  chain_head::ChainHead head;
  CHECK(chain_head::Load(d.fd(), &head, &err) == chain_head::LoadResult::kNone);
  CHECK(LoadedOffset(d.fd(), "sb-a") == 10);
}

TEST_CASE("state_batch: an empty batch touches nothing") {
  tail_test_util::TempDir d;
  state_batch::Batch b;
  std::string err;
  CHECK(state_batch::Write(nullptr, -1, d.path(), &b, &err));  // not even the directory's fd
}
