// A deliberate data race, built only in the ThreadSanitizer tree
// (scripts/test-sanitized --tsan runs it first): two threads write one
// plain int with nothing ordering them. TSan must report it; if it does
// not, the TSan build is broken and its clean runs would prove nothing.
#include <stdio.h>

#include <thread>

namespace {

int shared_count = 0;  // unguarded on purpose

void Bump() {
  for (int i = 0; i < 1000; ++i) shared_count = shared_count + 1;
}

}  // namespace

int main() {
  std::thread a(Bump);
  std::thread b(Bump);
  a.join();
  b.join();
  printf("tsan-canary: %d (a report must precede this)\n", shared_count);
  return 0;
}
