#include "tail/sandbox_quota.h"

#include <doctest/doctest.h>

using sandbox_quota::Held;
using sandbox_quota::Limits;
using sandbox_quota::Quota;

namespace {

Limits Of(uint64_t entries, uint64_t bytes, uint32_t seconds) {
  Limits limits;
  limits.max_entries = entries;
  limits.max_bytes = bytes;
  limits.interval_seconds = seconds;
  return limits;
}

}  // namespace

TEST_CASE("sandbox_quota: past the entry limit lines are held back and counted exactly") {
  const Limits limits = Of(3, 1000, 10);
  Quota q;
  int admitted = 0;
  for (int i = 0; i < 10; ++i) admitted += q.Admit(limits, 105, 7) ? 1 : 0;
  CHECK(admitted == 3);
  CHECK(q.held() == Held{7, 49, 100});
  CHECK(!q.SummaryDue(limits, 109));
  CHECK(q.SummaryDue(limits, 110));
  q.Summarised();
  CHECK(q.held().lines == 0);
  // A new window admits again.
  CHECK(q.Admit(limits, 110, 7));
}

TEST_CASE("sandbox_quota: the volume limit holds back a line that would pass it") {
  const Limits limits = Of(100, 100, 60);
  Quota q;
  CHECK(q.Admit(limits, 0, 60));
  CHECK(!q.Admit(limits, 1, 60));  // 120 > 100
  CHECK(q.Admit(limits, 2, 40));   // exactly 100
  CHECK(!q.Admit(limits, 3, 1));
  CHECK(q.held() == Held{2, 61, 0});
}

TEST_CASE(
    "sandbox_quota: a restored count (from a checkpoint) is summarised when its window ends") {
  Limits limits;
  limits.interval_seconds = 60;
  Quota q;
  q.Restore(Held{5, 500, 120});
  CHECK(!q.SummaryDue(limits, 179));
  CHECK(q.SummaryDue(limits, 180));
}
