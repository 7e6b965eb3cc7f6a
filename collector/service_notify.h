// The service manager's side channel (sd_notify(3)): readiness, the
// watchdog and stopping. Without $NOTIFY_SOCKET every call does nothing, so
// a collector started by hand behaves as before.
#ifndef AGT_COLLECTOR_SERVICE_NOTIFY_H_
#define AGT_COLLECTOR_SERVICE_NOTIFY_H_

#include <cstdint>
#include <string>

namespace service_notify {

class Notifier {
 public:
  // Reads $WATCHDOG_USEC (through sd_watchdog_enabled) once.
  Notifier();

  // READY=1 and a STATUS= line: the initial backlog is durable.
  void Ready(const std::string& status);
  // STOPPING=1: the service manager waits for the drain, not a hang.
  void Stopping();
  // WATCHDOG=1 when half the watchdog period has passed since the last one
  // (so a missed pet or two never kills a working daemon).
  void PetIfDue(int64_t now_ms);
  // Milliseconds until PetIfDue is due, or -1 without a watchdog: the main
  // loop's poll must not sleep past it.
  int64_t MsUntilDue(int64_t now_ms) const;

 private:
  int64_t interval_ms_ = 0;  // half of WATCHDOG_USEC; 0: no watchdog
  int64_t last_ms_ = 0;
};

}  // namespace service_notify

#endif  // AGT_COLLECTOR_SERVICE_NOTIFY_H_
