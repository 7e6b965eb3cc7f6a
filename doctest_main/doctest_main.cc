// The one doctest runner (main() and doctest's implementation), compiled once
// into a static library that every unit test binary links (doctest_dep):
// doctest's implementation is the slowest file of a test binary to compile,
// most of all under the sanitizers.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
