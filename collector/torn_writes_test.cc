#include "torn_writes.h"

#include <doctest/doctest.h>

#include <string>

namespace {

const std::string kOpening(torn_writes::kEntryOpening);

}  // namespace

TEST_CASE(
    "torn writes: a whole entry may start wherever an entry opens, never at the line's start") {
  const std::string first = kOpening + "exec\", \"x\": 1}";
  CHECK(torn_writes::SplitPoints(first + kOpening + "exec\"}") ==
        std::vector<size_t>{first.size()});
  CHECK(torn_writes::SplitPoints("{\"action\":\"exec\"}").empty());  // not the canonical form
  // Inside a string the quotes are escaped: no entry opens there.
  CHECK(torn_writes::SplitPoints("x \"{\\\"action\\\": \\\"exec\\\"}\"").empty());
}

TEST_CASE("torn writes: a hostile line costs a bounded number of tries") {
  std::string line = "x";
  for (int i = 0; i < 1000; ++i) line += kOpening;
  const std::vector<size_t> points = torn_writes::SplitPoints(line);
  REQUIRE(points.size() == torn_writes::kMaxSplitsTried);
  CHECK(points.front() == 1);
  CHECK(points.back() == 1 + (torn_writes::kMaxSplitsTried - 1) * kOpening.size());
}

TEST_CASE("torn writes: a fragment is settled only by an entry that begins with all its bytes") {
  torn_writes::Pending pending;
  CHECK(pending.empty());
  REQUIRE(pending.Add("{\"action\": \"ex", 3, 100));
  REQUIRE(pending.Add("{\"action\": \"exec\", \"b", 7, 900));
  CHECK(pending.first().line_number == 3);
  pending.Settle("{\"action\": \"exec\", \"a\": 1}");  // begins with the first only
  CHECK(pending.settled() == 1);
  REQUIRE_FALSE(pending.empty());
  CHECK(pending.first().line_number == 7);
  CHECK(pending.first().offset == 900);
  pending.Settle("{\"action\": \"exe");  // shorter than the fragment
  pending.Settle("x{\"action\": \"exec\", \"b\": 2}");
  CHECK(pending.settled() == 1);
  pending.Settle("{\"action\": \"exec\", \"b\": 2}");
  CHECK(pending.empty());
  CHECK(pending.settled() == 2);
}

TEST_CASE("torn writes: at most kMaxPending fragments wait at once") {
  torn_writes::Pending pending;
  for (size_t i = 0; i < torn_writes::kMaxPending; ++i) REQUIRE(pending.Add("{", i + 1, i));
  CHECK(pending.full());
  CHECK_FALSE(pending.Add("{", 99, 99));
  pending.Settle("{}");
  CHECK(pending.empty());
  CHECK(pending.settled() == torn_writes::kMaxPending);
}
