#include "image_tool.h"

#include <doctest/doctest.h>

TEST_CASE("image_tool: entry points link") {
  int (*install)(int, char**) = &image_tool::Install;
  CHECK(install != nullptr);
}
