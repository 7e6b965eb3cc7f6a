#include "listen/ack_queue.h"

namespace ack_queue {

void AckQueue::Add(int fd, uint64_t appended) { waiting_.push_back({fd, appended}); }

void AckQueue::TakeDurable(uint64_t durable_appended, std::vector<int>* fds) {
  while (!waiting_.empty() && waiting_.front().appended <= durable_appended) {
    fds->push_back(waiting_.front().fd);
    waiting_.pop_front();
  }
}

size_t AckQueue::Uncovered(uint64_t requested_appended) const {
  size_t n = 0;
  for (auto it = waiting_.rbegin(); it != waiting_.rend() && it->appended > requested_appended;
       ++it) {
    ++n;
  }
  return n;
}

}  // namespace ack_queue
