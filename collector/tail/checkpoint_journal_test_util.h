// Journal bytes for the tests, made the way the run mode makes them: a
// frame through FrameBuilder, an append through Writer::AppendEntries.
#ifndef AGT_COLLECTOR_TAIL_CHECKPOINT_JOURNAL_TEST_UTIL_H_
#define AGT_COLLECTOR_TAIL_CHECKPOINT_JOURNAL_TEST_UTIL_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tail/checkpoint_journal.h"

namespace checkpoint_journal_test_util {

using Entries = std::vector<std::pair<std::string_view, std::string_view>>;

// One frame holding `entries` (key, text), in their order.
inline std::string Frame(const Entries& entries) {
  checkpoint_journal::FrameBuilder frame;
  for (const auto& [key, text] : entries) frame.Add(key, text);
  return frame.Finish();
}

// The one frame of every checkpoint in `state` (empty for none): what a
// compaction writes after the header.
inline std::string StateFrame(const checkpoint_journal::State& state) {
  return state.empty() ? std::string() : Frame(Entries(state.begin(), state.end()));
}

// The bytes of a journal holding `state` as one frame: a compaction's.
inline std::string Journal(const checkpoint_journal::State& state) {
  return checkpoint_journal::kHeader + StateFrame(state);
}

// Appends one frame holding `entries`, as the run mode does.
inline bool AppendFrame(checkpoint_journal::Writer* w, const Entries& entries, std::string* err,
                        int* error_number = nullptr) {
  const auto each = [&entries](const checkpoint_journal::Writer::EntrySink& add) {
    for (const auto& [key, text] : entries) add(key, text);
  };
  return w->AppendEntries(each, err, error_number);
}

}  // namespace checkpoint_journal_test_util

#endif  // AGT_COLLECTOR_TAIL_CHECKPOINT_JOURNAL_TEST_UTIL_H_
