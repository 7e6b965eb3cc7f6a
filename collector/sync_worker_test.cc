#include "sync_worker.h"

#include <doctest/doctest.h>
#include <poll.h>

#include <condition_variable>
#include <mutex>
#include <string>

TEST_CASE("sync worker: a job still running is not taken; once its eventfd is readable, it is") {
  sync_worker::SyncWorker worker;
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  std::string err;
  REQUIRE(worker.Run(
      [&] {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return release; });
        return 5;
      },
      &err));
  CHECK(worker.in_flight());
  int error = -1;
  CHECK_FALSE(worker.Collect(false, &error));  // still running
  CHECK(worker.in_flight());
  {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
  }
  cv.notify_one();
  // The run loop's way: poll the eventfd, then take the end without blocking.
  struct pollfd p = {worker.done_fd(), POLLIN, 0};
  REQUIRE(poll(&p, 1, 10000) == 1);
  CHECK(worker.Collect(false, &error));
  CHECK(error == 5);
  CHECK_FALSE(worker.in_flight());
  CHECK_FALSE(worker.Collect(false, &error));  // nothing in flight
}

TEST_CASE("sync worker: jobs in turn, each taken once (blocking and not)") {
  sync_worker::SyncWorker worker;
  std::string err;
  for (int i = 0; i < 200; ++i) {
    REQUIRE(worker.Run([i] { return i; }, &err));
    int error = -1;
    if (i % 2 == 0) {
      CHECK(worker.Collect(true, &error));
    } else {
      struct pollfd p = {worker.done_fd(), POLLIN, 0};
      REQUIRE(poll(&p, 1, 10000) == 1);
      CHECK(worker.Collect(false, &error));
    }
    CHECK(error == i);
    // The eventfd's count was taken with the end: not readable again.
    struct pollfd p = {worker.done_fd(), POLLIN, 0};
    CHECK(poll(&p, 1, 0) == 0);
  }
}
