#include "listen/ack_queue.h"

namespace ack_queue {

void AckQueue::Add(int fd, uint64_t appended) { waiting_.push_back({fd, appended}); }

void AckQueue::TakeDurable(uint64_t durable_appended, std::vector<int>* fds) {
  while (!waiting_.empty() && waiting_.front().appended <= durable_appended) {
    fds->push_back(waiting_.front().fd);
    waiting_.pop_front();
    if (covered_ > 0) --covered_;
  }
}

size_t AckQueue::Uncovered(uint64_t requested_appended) {
  while (covered_ < waiting_.size() && waiting_[covered_].appended <= requested_appended) {
    ++covered_;
  }
  return waiting_.size() - covered_;
}

}  // namespace ack_queue
