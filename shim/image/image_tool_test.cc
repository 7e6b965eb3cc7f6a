#include "image_tool.h"

#include <doctest/doctest.h>

TEST_CASE("image_tool: a subcommand without arguments is a usage error") {
  CHECK(image_tool::Install(0, nullptr) == 2);
}
