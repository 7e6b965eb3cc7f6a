#include "service_notify.h"

#include <systemd/sd-daemon.h>

namespace service_notify {

Notifier::Notifier() {
  uint64_t usec = 0;
  // unset_environment 0: children (none today) may still see it; the value
  // is only used here.
  if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
    interval_ms_ = static_cast<int64_t>(usec / 2000);
    if (interval_ms_ < 1) interval_ms_ = 1;
  }
}

void Notifier::Ready(const std::string& status) {
  sd_notify(0, ("READY=1\nSTATUS=" + status).c_str());
}

void Notifier::Stopping() { sd_notify(0, "STOPPING=1"); }

void Notifier::PetIfDue(int64_t now_ms) {
  if (interval_ms_ == 0 || now_ms - last_ms_ < interval_ms_) return;
  sd_notify(0, "WATCHDOG=1");
  last_ms_ = now_ms;
}

int64_t Notifier::MsUntilDue(int64_t now_ms) const {
  if (interval_ms_ == 0) return -1;
  const int64_t left = last_ms_ + interval_ms_ - now_ms;
  return left > 0 ? left : 0;
}

}  // namespace service_notify
