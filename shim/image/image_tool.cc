#include "image_tool.h"

#include <unistd.h>

namespace image_tool {
namespace {

int NotYet() {
  static const char kMsg[] = "agt-deny-shim: error: image subcommands are not implemented yet\n";
  ssize_t n = write(2, kMsg, sizeof kMsg - 1);
  (void)n;
  return 2;
}

}  // namespace

int Install(int, char**) { return NotYet(); }
int Allow(int, char**) { return NotYet(); }
int Harden(int, char**) { return NotYet(); }
int Verify(int, char**) { return NotYet(); }

}  // namespace image_tool
