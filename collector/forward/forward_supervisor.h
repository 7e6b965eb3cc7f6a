// `run` starts one `agt-collector forward` process per destination and
// keeps it running: a child that exits (or is killed) is started again,
// after a pause that grows while it keeps failing. A separate process so a
// forwarder blocked on a slow receiver never holds up tailing and signing,
// and so either can be killed without the other losing anything (each
// keeps its own durable position).
#ifndef AGT_COLLECTOR_FORWARD_FORWARD_SUPERVISOR_H_
#define AGT_COLLECTOR_FORWARD_FORWARD_SUPERVISOR_H_

#include <stdint.h>
#include <sys/types.h>

#include <string>
#include <vector>

namespace forward_supervisor {

class Supervisor {
 public:
  // One child: `agt-collector ARGS...` (args start with "forward").
  void Add(const std::string& name, std::vector<std::string> args);
  bool empty() const { return children_.empty(); }

  // Starts every child not running whose pause is over, and reaps the
  // ones that exited (said as warnings). Called from run's loop.
  void Poll(int64_t now_ms);
  // SIGTERM to every child, then waits (SIGKILL after timeout_ms).
  void StopAll(int timeout_ms);

  // For the metrics: children that stopped on their own (an error they
  // could not get past, or killed), and starts after a child's first.
  uint64_t exits() const { return exits_; }
  uint64_t restarts() const { return restarts_; }

 private:
  struct Child {
    std::string name;
    std::vector<std::string> args;
    pid_t pid = -1;
    int64_t start_after_ms = 0;
    int backoff_ms = 0;
    int64_t started_ms = 0;
    bool started_before = false;
  };
  bool Spawn(Child* c, int64_t now_ms);

  std::vector<Child> children_;
  uint64_t exits_ = 0, restarts_ = 0;
};

}  // namespace forward_supervisor

#endif  // AGT_COLLECTOR_FORWARD_FORWARD_SUPERVISOR_H_
