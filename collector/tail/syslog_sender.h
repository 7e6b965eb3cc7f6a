// The syslog output channel: one datagram per audit entry to a local syslog
// socket (default /dev/log), in RFC 5424 ("<PRI>1 TIMESTAMP HOST TAG PID
// MSGID [SD] MSG"), so the receiver gets the MSGID and the structured data
// the forwarded messages carry (forward_message.h). rsyslog parses it with
// imuxsock's UseSpecialParser="off" (its special parser knows only the
// classic local format); agt-collector(1) says so. Best effort by design: the signed audit file is
// the record that loses nothing; syslog never blocks or stalls the pipeline. But a failure is never
// silent: dropped messages are counted and reported.
#ifndef AGT_COLLECTOR_TAIL_SYSLOG_SENDER_H_
#define AGT_COLLECTOR_TAIL_SYSLOG_SENDER_H_

#include <stdint.h>
#include <time.h>

#include <string>
#include <string_view>

#include "unique_fd.h"

namespace syslog_sender {

constexpr const char* kDefaultSocket = "/dev/log";
// LOG_AUTH (4) * 8 + LOG_NOTICE (5): denials are security notices.
constexpr int kPriority = 4 * 8 + 5;
// Datagrams above this are cut by many syslog daemons; messages are built
// well below it, and a longer one is cut here with a visible marker.
constexpr size_t kMaxMessageBytes = 2048;

class SyslogSender {
 public:
  SyslogSender() = default;
  SyslogSender(const SyslogSender&) = delete;
  SyslogSender& operator=(const SyslogSender&) = delete;

  // Creates the socket and tries to connect; a missing syslog daemon is not
  // an error here (it is counted and reported as messages are dropped).
  void Open(const std::string& socket_path, const std::string& tag);

  // Sends one message without blocking: false when it was dropped.
  // `structured_data` is one or more SD-ELEMENTs, or "-".
  bool Send(std::string_view msgid, std::string_view structured_data, std::string_view message);

  // A warning to print (a bare reason: the caller adds the prefix) when
  // something new went wrong since the last call (the first failure at
  // once, then at most one summary per `interval_s`); false when there is
  // nothing to say.
  bool TakeReport(std::string* line, time_t now, int interval_s = 10);

  uint64_t sent() const { return sent_; }
  uint64_t dropped() const { return dropped_; }

 private:
  bool Connect();
  bool SendDatagram();

  unique_fd::UniqueFd fd_;
  bool connected_ = false;
  std::string path_;
  std::string tag_;
  std::string host_;  // RFC 5424 HOSTNAME
  uint64_t sent_ = 0;
  uint64_t dropped_ = 0;
  uint64_t dropped_reported_ = 0;
  std::string last_error_;
  time_t last_connect_try_ = 0;
  time_t last_report_ = 0;
  std::string datagram_;  // reused
};

}  // namespace syslog_sender

#endif  // AGT_COLLECTOR_TAIL_SYSLOG_SENDER_H_
