// Group commit, the socket's side: connections whose entry is appended to
// the audit file but not yet durable, in append order. Each waits for the
// writer's durable_appended() to reach the entries_appended() taken just
// after its entry, and only then gets its ACK (audit_file.h,
// SyncInBackground). Pure bookkeeping, so it is tested without a disk.
#ifndef AGT_COLLECTOR_LISTEN_ACK_QUEUE_H_
#define AGT_COLLECTOR_LISTEN_ACK_QUEUE_H_

#include <stddef.h>
#include <stdint.h>

#include <deque>
#include <vector>

namespace ack_queue {

class AckQueue {
 public:
  // `fd` waits until `appended` (its entry's position in the writer's
  // appends) is durable. Positions never go down.
  void Add(int fd, uint64_t appended);
  // Moves the connections whose entry is durable to *fds, oldest first.
  void TakeDurable(uint64_t durable_appended, std::vector<int>* fds);
  // Connections that no started sync covers yet (beyond `requested_appended`,
  // which never goes down either). Amortized O(1): it is asked on every
  // epoll event while a batch is open.
  size_t Uncovered(uint64_t requested_appended);
  size_t size() const { return waiting_.size(); }

 private:
  struct Waiting {
    int fd;
    uint64_t appended;
  };
  std::deque<Waiting> waiting_;
  size_t covered_ = 0;  // the oldest waiting_ a started sync covers
};

}  // namespace ack_queue

#endif  // AGT_COLLECTOR_LISTEN_ACK_QUEUE_H_
