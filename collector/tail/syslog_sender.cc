#include "tail/syslog_sender.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace syslog_sender {

SyslogSender::~SyslogSender() {
  if (fd_ >= 0) close(fd_);
}

void SyslogSender::Open(const std::string& socket_path, const std::string& tag) {
  path_ = socket_path;
  tag_ = tag;
  fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) {
    last_error_ = std::string("socket(AF_UNIX, SOCK_DGRAM): ") + strerror(errno);
    return;
  }
  Connect();
}

bool SyslogSender::Connect() {
  last_connect_try_ = time(nullptr);
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  if (path_.size() >= sizeof addr.sun_path) {
    last_error_ = "socket path too long";
    return false;
  }
  memcpy(addr.sun_path, path_.c_str(), path_.size() + 1);
  if (connect(fd_, reinterpret_cast<struct sockaddr*>(&addr), sizeof addr) != 0) {
    last_error_ = std::string("connect: ") + strerror(errno);
    connected_ = false;
    return false;
  }
  connected_ = true;
  return true;
}

bool SyslogSender::Send(std::string_view message) {
  if (fd_ < 0) {
    ++dropped_;
    return false;
  }
  // Reconnect at most once a second: a restarted syslog daemon makes a new
  // socket, and a datagram socket stays bound to the old one.
  if (!connected_ && time(nullptr) != last_connect_try_ && !Connect()) {
    ++dropped_;
    return false;
  }
  if (!connected_) {
    ++dropped_;
    return false;
  }
  char head[96];
  time_t now = time(nullptr);
  struct tm tm;
  localtime_r(&now, &tm);
  char stamp[32];
  strftime(stamp, sizeof stamp, "%b %e %H:%M:%S", &tm);
  snprintf(head, sizeof head, "<%d>%s %s[%d]: ", kPriority, stamp, tag_.c_str(),
           static_cast<int>(getpid()));
  datagram_.assign(head);
  if (datagram_.size() + message.size() > kMaxMessageBytes) {
    static constexpr std::string_view kCut = "...[cut]";
    datagram_.append(message.substr(0, kMaxMessageBytes - datagram_.size() - kCut.size()));
    datagram_.append(kCut);
  } else {
    datagram_.append(message);
  }
  for (;;) {
    ssize_t n = send(fd_, datagram_.data(), datagram_.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n >= 0) {
      ++sent_;
      return true;
    }
    if (errno == EINTR) continue;
    last_error_ = std::string("send: ") + strerror(errno);
    // EAGAIN: the daemon is behind; drop rather than stall. Anything else:
    // the socket is gone or refused; reconnect later.
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS) connected_ = false;
    ++dropped_;
    return false;
  }
}

bool SyslogSender::TakeReport(std::string* line, time_t now, int interval_s) {
  if (dropped_ == dropped_reported_) return false;
  if (dropped_reported_ != 0 && now - last_report_ < interval_s) return false;
  line->assign("syslog " + path_ + ": " + last_error_ + "; " +
               std::to_string(dropped_ - dropped_reported_) + " message(s) dropped (" +
               std::to_string(dropped_) +
               " in all); the audit file has every entry");
  dropped_reported_ = dropped_;
  last_report_ = now;
  return true;
}

}  // namespace syslog_sender
