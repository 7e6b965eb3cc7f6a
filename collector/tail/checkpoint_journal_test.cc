#include "tail/checkpoint_journal.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "file_size_limit_test_util.h"
#include "tail/checkpoint_journal_test_util.h"
#include "tail/checkpoint_store.h"
#include "tail/tail_test_util.h"

using checkpoint_journal::Found;
using checkpoint_journal::LoadResult;
using checkpoint_journal::State;
using checkpoint_journal::Writer;
using checkpoint_journal_test_util::AppendFrame;
using checkpoint_journal_test_util::Entries;
using checkpoint_journal_test_util::Frame;
using checkpoint_journal_test_util::Journal;
using checkpoint_journal_test_util::StateFrame;

using tail_test_util::ReadFile;

namespace {

uint64_t SizeOf(const std::string& path) {
  struct stat st;
  REQUIRE(stat(path.c_str(), &st) == 0);
  return static_cast<uint64_t>(st.st_size);
}

// A checkpoint's text as the run mode writes it.
std::string TextAt(uint64_t offset) {
  checkpoint_store::Checkpoint c;
  c.file = {8, 1000 + offset};
  c.position.offset = offset;
  checkpoint_store::HashBytes({}, {}, &c.hash_len, &c.sha256_hex);
  return checkpoint_store::Text(c);
}

LoadResult LoadInto(int dir, State* state, Found* found, std::string* err) {
  return checkpoint_journal::Load(dir, state, found, err);
}

// Opens a writer on the directory as the run mode does: load, then open.
void OpenWriter(int dir, Writer* w, State* state = nullptr) {
  State ignored;
  Found found;
  std::string err;
  REQUIRE(LoadInto(dir, state != nullptr ? state : &ignored, &found, &err) != LoadResult::kError);
  REQUIRE_MESSAGE(w->Open(dir, found, &err), err);
}

}  // namespace

TEST_CASE("checkpoint_journal: frames round trip, a later frame's line wins") {
  tail_test_util::TempDir d;
  State state;
  Found found;
  std::string err;
  CHECK(LoadInto(d.fd(), &state, &found, &err) == LoadResult::kNone);
  Writer w;
  OpenWriter(d.fd(), &w);
  CHECK(SizeOf(d.Join(checkpoint_journal::kFileName)) == strlen(checkpoint_journal::kHeader));
  REQUIRE(AppendFrame(&w, {{"sb-1", TextAt(10)}, {"sb-2", TextAt(20)}}, &err));
  REQUIRE(AppendFrame(&w, {{"sb-2", TextAt(25)}}, &err));
  CHECK(w.size() == SizeOf(d.Join(checkpoint_journal::kFileName)));
  REQUIRE(LoadInto(d.fd(), &state, &found, &err) == LoadResult::kLoaded);
  CHECK(state.size() == 2);
  CHECK(state["sb-1"] == TextAt(10));
  CHECK(state["sb-2"] == TextAt(25));
  CHECK(found.good_end == found.file_size);
  // What the journal holds reads back as the checkpoint written.
  checkpoint_store::Checkpoint c;
  REQUIRE(checkpoint_store::Parse("sb-2", state["sb-2"], &c, &err) ==
          checkpoint_store::LoadResult::kLoaded);
  CHECK(c.position.offset == 25);
  CHECK(c.file == file_id::FileId{8, 1025});
  // Per-source files are neither read back nor written by the journal.
  CHECK(access(d.Join("sb-1.checkpoint").c_str(), F_OK) != 0);
}

TEST_CASE("checkpoint_journal: a last frame cut short anywhere is a crash: ignored, then cut") {
  tail_test_util::TempDir d;
  std::string err;
  {
    Writer w;
    OpenWriter(d.fd(), &w);
    REQUIRE(AppendFrame(&w, {{"sb-1", TextAt(10)}}, &err));
  }
  const std::string path = d.Join(checkpoint_journal::kFileName);
  const std::string first = ReadFile(path);
  const std::string second = Frame({{"sb-1", TextAt(99)}, {"sb-3", TextAt(3)}});
  // Every cut inside the second frame, including just before its last byte.
  for (size_t keep = 0; keep < second.size(); ++keep) {
    d.Write(checkpoint_journal::kFileName, first + second.substr(0, keep));
    State state;
    Found found;
    REQUIRE_MESSAGE(LoadInto(d.fd(), &state, &found, &err) == LoadResult::kLoaded,
                    "cut at " << keep << ": " << err);
    CHECK(state.size() == 1);
    CHECK(state["sb-1"] == TextAt(10));
    CHECK(found.good_end == first.size());
    CHECK(found.file_size == first.size() + keep);
  }
  // The writer cuts the torn frame off before appending, so the new frame
  // is not a good one after a bad one.
  d.Write(checkpoint_journal::kFileName, first + second.substr(0, second.size() / 2));
  Writer w;
  OpenWriter(d.fd(), &w);
  CHECK(SizeOf(path) == first.size());
  REQUIRE(AppendFrame(&w, {{"sb-3", TextAt(33)}}, &err));
  State state;
  Found found;
  REQUIRE(LoadInto(d.fd(), &state, &found, &err) == LoadResult::kLoaded);
  CHECK(state["sb-1"] == TextAt(10));
  CHECK(state["sb-3"] == TextAt(33));
}

TEST_CASE("checkpoint_journal: a journal cut inside its header at creation reads as empty") {
  tail_test_util::TempDir d;
  const std::string header = checkpoint_journal::kHeader;
  for (size_t keep = 0; keep < header.size(); ++keep) {
    d.Write(checkpoint_journal::kFileName, header.substr(0, keep));
    State state;
    Found found;
    std::string err;
    REQUIRE(LoadInto(d.fd(), &state, &found, &err) == LoadResult::kLoaded);
    CHECK(state.empty());
    CHECK(found.good_end == 0);
  }
  Writer w;
  OpenWriter(d.fd(), &w);
  CHECK(ReadFile(d.Join(checkpoint_journal::kFileName)) == header);
}

TEST_CASE("checkpoint_journal: a damaged last frame is ignored, a damaged earlier one refused") {
  tail_test_util::TempDir d;
  std::string err;
  {
    Writer w;
    OpenWriter(d.fd(), &w);
    REQUIRE(AppendFrame(&w, {{"sb-1", TextAt(10)}}, &err));
    REQUIRE(AppendFrame(&w, {{"sb-1", TextAt(11)}}, &err));
  }
  const std::string path = d.Join(checkpoint_journal::kFileName);
  const std::string good = ReadFile(path);
  const size_t second_at = good.rfind("frame ");
  State state;
  Found found;

  std::string bad = good;
  bad[bad.size() - 3] ^= 1;  // inside the last frame's payload
  d.Write(checkpoint_journal::kFileName, bad);
  REQUIRE(LoadInto(d.fd(), &state, &found, &err) == LoadResult::kLoaded);
  CHECK(state["sb-1"] == TextAt(10));
  CHECK(found.good_end == second_at);

  bad = good;
  bad[second_at - 3] ^= 1;  // inside the first frame's payload
  d.Write(checkpoint_journal::kFileName, bad);
  CHECK(LoadInto(d.fd(), &state, &found, &err) == LoadResult::kCorrupt);
  CHECK(err.find("checkpoints.journal: offset") != std::string::npos);
  CHECK(err.find("damaged") != std::string::npos);

  bad = good;
  bad[second_at + 1] = 'X';  // the second frame's line
  d.Write(checkpoint_journal::kFileName, bad + good.substr(second_at));
  CHECK(LoadInto(d.fd(), &state, &found, &err) == LoadResult::kCorrupt);
  CHECK(err.find("not a frame") != std::string::npos);

  d.Write(checkpoint_journal::kFileName, "agt-collector checkpoint journal 9\n");
  CHECK(LoadInto(d.fd(), &state, &found, &err) == LoadResult::kCorrupt);
  CHECK(err.find("not a checkpoint journal of this version") != std::string::npos);

  // A frame whose hash holds but whose line is no checkpoint: refused.
  const std::string no_key = Frame({{"../x", TextAt(1)}});
  d.Write(checkpoint_journal::kFileName, good + no_key);
  CHECK(LoadInto(d.fd(), &state, &found, &err) == LoadResult::kCorrupt);
  CHECK(err.find("not a checkpoint") != std::string::npos);
}

TEST_CASE("checkpoint_journal: compaction keeps the state, and each of its crash points does") {
  tail_test_util::TempDir d;
  std::string err;
  Writer w;
  OpenWriter(d.fd(), &w);
  State live;
  uint64_t live_bytes = 0;
  for (uint64_t i = 0; i < 50; ++i) {
    const std::string key = "sb-" + std::to_string(i % 5);
    REQUIRE(AppendFrame(&w, {{key, TextAt(i)}}, &err));
    live[key] = TextAt(i);
  }
  for (const auto& [key, text] : live) live_bytes += checkpoint_journal::EntryBytes(key, text);
  const std::string path = d.Join(checkpoint_journal::kFileName);
  const std::string before = ReadFile(path);

  // Killed after writing the temporary file, before its rename: ignored,
  // and the next compaction writes it over.
  d.Write("checkpoints.journal.tmp", Journal(live).substr(0, 77));
  State state;
  Found found;
  REQUIRE(LoadInto(d.fd(), &state, &found, &err) == LoadResult::kLoaded);
  CHECK(state == live);

  CHECK(!w.ShouldCompact(live_bytes));  // far below the minimum size
  REQUIRE_MESSAGE(w.CompactTo(StateFrame(live), &err), err);
  CHECK(access(d.Join("checkpoints.journal.tmp").c_str(), F_OK) != 0);
  const std::string after = ReadFile(path);
  CHECK(after == Journal(live));
  CHECK(after.size() < before.size());
  CHECK(w.size() == after.size());
  REQUIRE(LoadInto(d.fd(), &state, &found, &err) == LoadResult::kLoaded);
  CHECK(state == live);

  // Appends go on in the compacted journal.
  REQUIRE(AppendFrame(&w, {{"sb-9", TextAt(9)}}, &err));
  live["sb-9"] = TextAt(9);
  REQUIRE(LoadInto(d.fd(), &state, &found, &err) == LoadResult::kLoaded);
  CHECK(state == live);
  CHECK(w.size() == SizeOf(path));
}

TEST_CASE("checkpoint_journal: compaction once the journal is large and mostly stale") {
  tail_test_util::TempDir d;
  std::string err;
  Writer w;
  OpenWriter(d.fd(), &w);
  const std::string text = TextAt(1);
  const Entries entry = {{"sb-1", text}};
  const uint64_t state_bytes = checkpoint_journal::EntryBytes("sb-1", TextAt(1));
  while (w.size() <= checkpoint_journal::kCompactAtLeastBytes) {
    CHECK(!w.ShouldCompact(state_bytes));
    REQUIRE(AppendFrame(&w, entry, &err));
  }
  CHECK(w.ShouldCompact(state_bytes));
  // A state as large as the journal is no reason to rewrite it.
  CHECK(!w.ShouldCompact(w.size()));
}

TEST_CASE("checkpoint_journal: an older version's per-source files load under the journal") {
  tail_test_util::TempDir d;
  std::string err;
  checkpoint_store::Checkpoint c;
  REQUIRE(checkpoint_store::Parse("x", TextAt(5), &c, &err) ==
          checkpoint_store::LoadResult::kLoaded);
  REQUIRE(checkpoint_store::Save(d.fd(), "sb-old", c, &err));
  REQUIRE(checkpoint_store::Save(d.fd(), "sb-both", c, &err));
  d.Write("sb-bad.checkpoint", "agt-collector checkpoint 1\ngarbage\n");
  d.Write("sb-fixed.checkpoint", "not a checkpoint at all");
  State state;
  Found found;
  REQUIRE(LoadInto(d.fd(), &state, &found, &err) == LoadResult::kLoaded);
  CHECK(!found.exists);
  CHECK(state["sb-old"] == TextAt(5));
  CHECK(state["sb-both"] == TextAt(5));
  // Text that does not parse is the caller's to refuse (as Load does); a
  // file that is no checkpoint is that source's alone.
  CHECK(state.count("sb-bad") == 1);
  CHECK(found.unusable.count("sb-fixed") == 1);

  Writer w;
  OpenWriter(d.fd(), &w);
  REQUIRE(AppendFrame(&w, {{"sb-both", TextAt(50)}, {"sb-fixed", TextAt(7)}}, &err));
  REQUIRE(LoadInto(d.fd(), &state, &found, &err) == LoadResult::kLoaded);
  CHECK(state["sb-old"] == TextAt(5));
  CHECK(state["sb-both"] == TextAt(50));
  CHECK(state["sb-fixed"] == TextAt(7));
  CHECK(found.unusable.empty());
  // The older files stay as they were: never written again.
  checkpoint_store::Checkpoint old;
  REQUIRE(checkpoint_store::Load(d.fd(), "sb-both", &old, &err) ==
          checkpoint_store::LoadResult::kLoaded);
  CHECK(old.position.offset == 5);
}

TEST_CASE("checkpoint_journal: a failed append is cut back off the journal") {
  tail_test_util::TempDir d;
  std::string err;
  Writer w;
  OpenWriter(d.fd(), &w);
  REQUIRE(AppendFrame(&w, {{"sb-1", TextAt(1)}}, &err));
  const uint64_t before = w.size();
  // A file size limit just past the journal: the next frame is written in
  // part, then refused (EFBIG), as a full disk would.
  int error_number = 0;
  const bool appended = test_util::UnderFileSizeLimit(before + 40, [&] {
    return AppendFrame(&w, {{"sb-1", TextAt(2)}, {"sb-2", TextAt(2)}}, &err, &error_number);
  });
  CHECK(!appended);
  CHECK(error_number == EFBIG);
  CHECK(err.find("write checkpoints.journal") != std::string::npos);
  CHECK(SizeOf(d.Join(checkpoint_journal::kFileName)) == before);
  // The next append follows the last whole frame.
  REQUIRE(AppendFrame(&w, {{"sb-2", TextAt(3)}}, &err));
  State state;
  Found found;
  REQUIRE(LoadInto(d.fd(), &state, &found, &err) == LoadResult::kLoaded);
  CHECK(state["sb-1"] == TextAt(1));
  CHECK(state["sb-2"] == TextAt(3));
}

TEST_CASE("checkpoint_journal: a frame streamed in pieces is the frame built whole, and loads") {
  tail_test_util::TempDir d;
  Writer w;
  OpenWriter(d.fd(), &w);
  // Past one 64 KiB piece, so it takes several writes; then a small one.
  std::vector<std::string> keys, texts;
  for (int i = 0; i < 2000; ++i) {
    keys.push_back("sb-" + std::to_string(i));
    texts.push_back(TextAt(static_cast<uint64_t>(i) * 7));
  }
  std::vector<std::pair<std::string_view, std::string_view>> entries;
  for (size_t i = 0; i < keys.size(); ++i) entries.emplace_back(keys[i], texts[i]);
  const std::string whole = Frame(entries);
  REQUIRE(whole.size() > 3 * 64 * 1024);
  const auto each = [&](const Writer::EntrySink& add) {
    for (const auto& [key, text] : entries) add(key, text);
  };
  std::string err;
  const uint64_t before = w.size();
  REQUIRE_MESSAGE(w.AppendEntries(each, &err), err);
  const auto one = [](const Writer::EntrySink& add) { add("sb-1", TextAt(99)); };
  REQUIRE_MESSAGE(w.AppendEntries(one, &err), err);
  const std::string file = ReadFile(d.Join(checkpoint_journal::kFileName));
  CHECK(w.size() == file.size());
  CHECK(file.substr(before, whole.size()) == whole);
  CHECK(file.substr(before + whole.size()) == Frame({{"sb-1", TextAt(99)}}));
  State state;
  Found found;
  REQUIRE(LoadInto(d.fd(), &state, &found, &err) == LoadResult::kLoaded);
  CHECK(state.size() == keys.size());
  CHECK(state["sb-1"] == TextAt(99));
  CHECK(state["sb-1999"] == TextAt(1999 * 7));
  CHECK(found.good_end == file.size());
  // The big frame cut short in its middle (a crash between its writes):
  // left out, the state before it loads.
  REQUIRE(truncate(d.Join(checkpoint_journal::kFileName).c_str(),
                   static_cast<off_t>(before + whole.size() / 2)) == 0);
  REQUIRE(LoadInto(d.fd(), &state, &found, &err) == LoadResult::kLoaded);
  CHECK(state.empty());
  CHECK(found.good_end == before);
}

TEST_CASE("checkpoint_journal: a streamed frame refused after its first piece is cut back") {
  tail_test_util::TempDir d;
  std::string err;
  Writer w;
  OpenWriter(d.fd(), &w);
  REQUIRE(AppendFrame(&w, {{"sb-1", TextAt(1)}}, &err));
  const uint64_t before = w.size();
  const auto many = [](const Writer::EntrySink& add) {
    for (int i = 0; i < 2000; ++i) add("sb-" + std::to_string(i), TextAt(2));
  };
  // Room for the first 64 KiB piece and part of the second: the frame is
  // on disk in part when a write is refused (EFBIG), as a full disk would.
  int error_number = 0;
  const bool appended = test_util::UnderFileSizeLimit(
      before + 100 * 1024, [&] { return w.AppendEntries(many, &err, &error_number); });
  CHECK(!appended);
  CHECK(error_number == EFBIG);
  CHECK(err.find("write checkpoints.journal") != std::string::npos);
  CHECK(SizeOf(d.Join(checkpoint_journal::kFileName)) == before);
  REQUIRE(AppendFrame(&w, {{"sb-2", TextAt(3)}}, &err));
  State state;
  Found found;
  REQUIRE(LoadInto(d.fd(), &state, &found, &err) == LoadResult::kLoaded);
  CHECK(state.size() == 2);
  CHECK(state["sb-1"] == TextAt(1));
  CHECK(state["sb-2"] == TextAt(3));
}
