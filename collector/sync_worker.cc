#include "sync_worker.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <system_error>
#include <utility>

namespace sync_worker {

SyncWorker::~SyncWorker() {
  int error = 0;
  if (in_flight_) Collect(true, &error);
  if (thread_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
}

bool SyncWorker::Prepare(std::string* err) {
  if (done_.ok()) return true;
  done_.Reset(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!done_.ok()) {
    *err = std::string("eventfd: ") + strerror(errno);
    return false;
  }
  return true;
}

bool SyncWorker::Run(std::function<int()> job, std::string* err) {
  if (!thread_.joinable()) {
    if (!Prepare(err)) return false;
    try {
      thread_ = std::thread(&SyncWorker::Main, this);
    } catch (const std::system_error& e) {
      *err = std::string("starting the sync thread: ") + e.what();
      done_.Reset();
      return false;
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    ended_.store(false, std::memory_order_relaxed);  // before the thread can see the job
    job_ = std::move(job);
  }
  in_flight_ = true;
  wake_.notify_one();
  return true;
}

bool SyncWorker::Collect(bool block, int* error) {
  if (!in_flight_) return false;
  // Not ended: no read of the eventfd to find that out.
  if (!block && !ended_.load(std::memory_order_acquire)) return false;
  for (;;) {
    uint64_t count = 0;
    if (read(done_.get(), &count, sizeof count) == static_cast<ssize_t>(sizeof count)) break;
    if (errno != EAGAIN && errno != EINTR) {
      // The eventfd cannot fail this way; treat the sync as failed, not done.
      *error = errno;
      in_flight_ = false;
      return true;
    }
    if (!block) return false;
    struct pollfd p = {done_.get(), POLLIN, 0};
    (void)poll(&p, 1, -1);
  }
  std::lock_guard<std::mutex> lock(mu_);
  *error = result_;
  in_flight_ = false;
  return true;
}

void SyncWorker::Main() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || job_; });
    if (!job_) return;  // stopping, nothing asked
    std::function<int()> job = std::move(job_);
    job_ = nullptr;
    lock.unlock();
    const int result = job();
    job = nullptr;  // what it holds is released before the caller hears of the end
    lock.lock();
    result_ = result;
    ended_.store(true, std::memory_order_release);
    const uint64_t one = 1;
    (void)!write(done_.get(), &one, sizeof one);
  }
}

}  // namespace sync_worker
