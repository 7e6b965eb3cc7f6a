#include "tail/syslog_sender.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace syslog_sender {

void SyslogSender::Open(const std::string& socket_path, const std::string& tag) {
  path_ = socket_path;
  tag_ = tag;
  char name[256] = {};
  host_ = gethostname(name, sizeof name - 1) == 0 && name[0] != '\0' ? name : "-";
  for (char& c : host_) {
    if (c < 33 || c > 126) c = '-';
  }
  fd_.Reset(socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd_.ok()) {
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
  if (connect(fd_.get(), reinterpret_cast<struct sockaddr*>(&addr), sizeof addr) != 0) {
    last_error_ = std::string("connect: ") + strerror(errno);
    connected_ = false;
    return false;
  }
  connected_ = true;
  return true;
}

bool SyslogSender::Send(std::string_view msgid, std::string_view structured_data,
                        std::string_view message) {
  if (!fd_.ok()) {
    ++dropped_;
    return false;
  }
  // Reconnect at most once a second while the daemon is away (a stale
  // socket found by a failed send is retried at once, in SendDatagram).
  if (!connected_ && time(nullptr) != last_connect_try_ && !Connect()) {
    ++dropped_;
    return false;
  }
  if (!connected_) {
    ++dropped_;
    return false;
  }
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  char stamp[40];
  strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
  char head[128];
  snprintf(head, sizeof head, "<%d>1 %s.%06ldZ %s %s %d ", kPriority, stamp, ts.tv_nsec / 1000,
           host_.c_str(), tag_.c_str(), static_cast<int>(getpid()));
  datagram_.assign(head);
  datagram_.append(msgid.empty() ? std::string_view("-") : msgid);
  datagram_.push_back(' ');
  datagram_.append(structured_data.empty() ? std::string_view("-") : structured_data);
  if (!message.empty()) {
    datagram_.push_back(' ');
    if (datagram_.size() + message.size() > kMaxMessageBytes) {
      static constexpr std::string_view kCut = "...[cut]";
      const size_t room = kMaxMessageBytes > datagram_.size() + kCut.size()
                              ? kMaxMessageBytes - datagram_.size() - kCut.size()
                              : 0;
      datagram_.append(message.substr(0, room));
      datagram_.append(kCut);
    } else {
      datagram_.append(message);
    }
  }
  return SendDatagram();
}

bool SyslogSender::SendDatagram() {
  bool retried = false;
  for (;;) {
    ssize_t n = send(fd_.get(), datagram_.data(), datagram_.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n >= 0) {
      ++sent_;
      return true;
    }
    if (errno == EINTR) continue;
    last_error_ = std::string("send: ") + strerror(errno);
    // EAGAIN: the daemon is behind; drop rather than stall.
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) {
      ++dropped_;
      return false;
    }
    // The socket is gone or refused: a restarted daemon made a new one,
    // and this socket is still bound to the old. Connect again at once and
    // send this message once more, so the first one after a restart is
    // not lost.
    connected_ = false;
    if (!retried && Connect()) {
      retried = true;
      continue;
    }
    ++dropped_;
    return false;
  }
}

bool SyslogSender::TakeReport(std::string* line, time_t now, int interval_s) {
  if (dropped_ == dropped_reported_) return false;
  if (dropped_reported_ != 0 && now - last_report_ < interval_s) return false;
  line->assign("syslog " + path_ + ": " + last_error_ + "; " +
               std::to_string(dropped_ - dropped_reported_) + " message(s) dropped (" +
               std::to_string(dropped_) + " in all); the audit file has every entry");
  dropped_reported_ = dropped_;
  last_report_ = now;
  return true;
}

}  // namespace syslog_sender
