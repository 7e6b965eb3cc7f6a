#include "listen/ack_queue.h"

#include <doctest/doctest.h>

#include <vector>

TEST_CASE("ack queue: a connection is answered only once its entry is durable, in order") {
  ack_queue::AckQueue q;
  q.Add(10, 1);
  q.Add(11, 2);
  q.Add(12, 3);
  std::vector<int> fds;
  q.TakeDurable(0, &fds);
  CHECK(fds.empty());
  q.TakeDurable(2, &fds);
  CHECK(fds == std::vector<int>{10, 11});
  CHECK(q.size() == 1);
  fds.clear();
  q.TakeDurable(2, &fds);  // nothing new is durable
  CHECK(fds.empty());
  q.TakeDurable(7, &fds);  // a later sync (e.g. the file channel's) covers it too
  CHECK(fds == std::vector<int>{12});
  CHECK(q.size() == 0);
}

TEST_CASE("ack queue: what the sync in flight does not cover waits for the next one") {
  ack_queue::AckQueue q;
  for (int i = 1; i <= 5; ++i) q.Add(100 + i, static_cast<uint64_t>(i));
  CHECK(q.Uncovered(0) == 5);  // no sync started yet
  // A sync covering the first three is in flight; two came in meanwhile.
  CHECK(q.Uncovered(3) == 2);
  CHECK(q.Uncovered(3) == 2);  // asked again: the same
  std::vector<int> fds;
  q.TakeDurable(3, &fds);
  CHECK(fds == std::vector<int>{101, 102, 103});
  CHECK(q.Uncovered(3) == 2);  // still waiting for the next sync to start
  q.Add(106, 6);
  CHECK(q.Uncovered(3) == 3);
  CHECK(q.Uncovered(6) == 0);  // the next sync covers them all
  fds.clear();
  q.TakeDurable(5, &fds);
  CHECK(fds == std::vector<int>{104, 105});
  CHECK(q.Uncovered(6) == 0);
  CHECK(q.size() == 1);
}

TEST_CASE("ack queue: a sync taken before it was asked about (an in-line Sync) keeps the count") {
  ack_queue::AckQueue q;
  q.Add(1, 1);
  q.Add(2, 2);
  CHECK(q.Uncovered(0) == 2);
  std::vector<int> fds;
  q.TakeDurable(2, &fds);  // durable beyond what Uncovered last saw requested
  CHECK(fds == std::vector<int>{1, 2});
  CHECK(q.Uncovered(2) == 0);
  q.Add(3, 3);
  q.Add(4, 4);
  CHECK(q.Uncovered(2) == 2);
  CHECK(q.Uncovered(3) == 1);
}
