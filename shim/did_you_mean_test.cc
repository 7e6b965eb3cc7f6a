#include "did_you_mean.h"

#include <doctest/doctest.h>

#include <array>

TEST_CASE("edit distance") {
  CHECK(did_you_mean::Distance("", "") == 0);
  CHECK(did_you_mean::Distance("list", "list") == 0);
  CHECK(did_you_mean::Distance("lsit", "list") == 2);
  CHECK(did_you_mean::Distance("lis", "list") == 1);
  CHECK(did_you_mean::Distance("kitten", "sitting") == 3);
}

TEST_CASE("closest candidate only when plausibly a typo") {
  std::array<std::string_view, 3> names = {"list", "explain", "verify"};
  auto name_of = [&](std::size_t i) { return names[i]; };
  CHECK(did_you_mean::Closest("lst", names.size(), name_of) == "list");
  CHECK(did_you_mean::Closest("explian", names.size(), name_of) == "explain");
  CHECK(did_you_mean::Closest("zzzzzz", names.size(), name_of).empty());
  CHECK(did_you_mean::Closest("x", names.size(), name_of).empty());
}
