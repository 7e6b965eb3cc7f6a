#include "progress.h"

#include <stdio.h>
#include <unistd.h>

#include <utility>

#include "clock_ms.h"
#include "logs.h"

namespace progress {
namespace {

constexpr double kRedrawSeconds = 0.25;

double Now() { return static_cast<double>(clock_ms::Monotonic()) / 1000; }

// 999 B, 1.5 KB, 12.0 MB, 3.2 GB (powers of 1000, as dd and curl print).
std::string Bytes(double n) {
  const char* const units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (n >= 1000 && u < 4) {
    n /= 1000;
    ++u;
  }
  char buf[32];
  snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", n, units[u]);
  return buf;
}

std::string Duration(double seconds) {
  const uint64_t s = static_cast<uint64_t>(seconds + 0.5);
  char buf[32];
  if (s < 60) {
    snprintf(buf, sizeof buf, "%llu s", static_cast<unsigned long long>(s));
  } else if (s < 3600) {
    snprintf(buf, sizeof buf, "%llum%02llus", static_cast<unsigned long long>(s / 60),
             static_cast<unsigned long long>(s % 60));
  } else {
    snprintf(buf, sizeof buf, "%lluh%02llum", static_cast<unsigned long long>(s / 3600),
             static_cast<unsigned long long>(s / 60 % 60));
  }
  return buf;
}

}  // namespace

Meter::Meter(std::string what, uint64_t total_bytes)
    : what_(std::move(what)),
      total_(total_bytes),
      on_(isatty(STDERR_FILENO) == 1 && total_bytes >= kMinBytes) {
  if (!on_) return;
  start_ = Now();
  Draw();
}

void Meter::Update(uint64_t records, uint64_t bytes) {
  if (!on_) return;
  records_ = records;
  bytes_ = bytes;
  if ((++calls_ & 0xff) != 0) return;
  if (Now() - last_draw_ >= kRedrawSeconds) Draw();
}

void Meter::Finish() {
  if (!on_) return;
  Draw();
  logs::ClearStatus();
  on_ = false;
}

void Meter::Draw() {
  last_draw_ = Now();
  logs::Status(Format(what_, records_, bytes_, total_, last_draw_ - start_));
}

std::string Meter::Format(const std::string& what, uint64_t records, uint64_t bytes,
                          uint64_t total_bytes, double seconds) {
  std::string line = what + ": " + std::to_string(records) + " records, " +
                     Bytes(static_cast<double>(bytes)) + " of " +
                     Bytes(static_cast<double>(total_bytes));
  if (total_bytes > 0) {
    line += " (" + std::to_string(bytes >= total_bytes ? 100 : bytes * 100 / total_bytes) + "%)";
  }
  // Rate and ETA once there is something to measure.
  if (seconds <= 0 || bytes == 0) return line + ", ETA --";
  const double rate = static_cast<double>(bytes) / seconds;
  const double left = total_bytes > bytes ? static_cast<double>(total_bytes - bytes) : 0;
  return line + ", " + Bytes(rate) + "/s, ETA " + Duration(left / rate);
}

}  // namespace progress
