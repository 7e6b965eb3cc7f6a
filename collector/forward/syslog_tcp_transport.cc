#include "forward/syslog_tcp_transport.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "unique_fd.h"

namespace syslog_tcp_transport {
namespace {

std::string OpenSslError() {
  const unsigned long e = ERR_get_error();
  if (e == 0) return "unknown TLS error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  ERR_clear_error();
  return buf;
}

class SyslogTcpTransport final : public forward_transport::Transport {
 public:
  explicit SyslogTcpTransport(const forward_destination::Destination& d) : d_(d) {}
  ~SyslogTcpTransport() override {
    Abort();
    if (ctx_ != nullptr) SSL_CTX_free(ctx_);
  }

  bool Init(std::string* err) {
    if (!d_.tls()) return true;
    ctx_ = SSL_CTX_new(TLS_client_method());
    if (ctx_ == nullptr) {
      *err = "TLS: " + OpenSslError();
      return false;
    }
    SSL_CTX_set_min_proto_version(ctx_, TLS1_2_VERSION);
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
    if (SSL_CTX_load_verify_locations(ctx_, d_.ca_file.c_str(), nullptr) != 1) {
      *err = "TLS CA file " + d_.ca_file + ": " + OpenSslError();
      return false;
    }
    if (!d_.cert_file.empty() &&
        (SSL_CTX_use_certificate_chain_file(ctx_, d_.cert_file.c_str()) != 1 ||
         SSL_CTX_use_PrivateKey_file(ctx_, d_.key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
         SSL_CTX_check_private_key(ctx_) != 1)) {
      *err = "TLS client certificate " + d_.cert_file + " / key " + d_.key_file + ": " +
             OpenSslError();
      return false;
    }
    return true;
  }

  forward_transport::ConnectResult Connect(std::string* err) override {
    Abort();
    sent_ = 0;
    acked_ = 0;
    struct addrinfo hints = {};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    struct addrinfo* res = nullptr;
    const int g = getaddrinfo(d_.host.c_str(), d_.port.c_str(), &hints, &res);
    if (g != 0) {
      *err = "resolve " + d_.host + ": " + gai_strerror(g);
      return forward_transport::ConnectResult::kUnreachable;
    }
    std::string why = "no address";
    for (struct addrinfo* a = res; a != nullptr; a = a->ai_next) {
      unique_fd::UniqueFd fd(socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
      if (!fd.ok()) continue;
      struct timeval tv = {static_cast<time_t>(kTimeoutSeconds), 0};
      setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
      setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      if (connect(fd.get(), a->ai_addr, a->ai_addrlen) == 0) {
        fd_ = std::move(fd);
        break;
      }
      why = strerror(errno);
    }
    freeaddrinfo(res);
    if (!fd_.ok()) {
      *err = Where() + "connect: " + why;
      return forward_transport::ConnectResult::kUnreachable;
    }
    if (ctx_ == nullptr) return forward_transport::ConnectResult::kOk;
    ssl_ = SSL_new(ctx_);
    if (ssl_ == nullptr || SSL_set_fd(ssl_, fd_.get()) != 1 ||
        SSL_set1_host(ssl_, d_.permitted_peer.c_str()) != 1) {
      *err = Where() + "TLS: " + OpenSslError();
      Abort();
      return forward_transport::ConnectResult::kUnreachable;
    }
    SSL_set_tlsext_host_name(ssl_, d_.host.c_str());
    if (SSL_connect(ssl_) != 1) {
      const long v = SSL_get_verify_result(ssl_);
      const bool refused = v != X509_V_OK;
      *err = Where() + "TLS handshake: " +
             (refused ? std::string("receiver certificate refused: ") +
                            X509_verify_cert_error_string(v) + " (permitted peer \"" +
                            d_.permitted_peer + "\")"
                      : OpenSslError());
      Abort();
      return refused ? forward_transport::ConnectResult::kRefusedPeer
                     : forward_transport::ConnectResult::kUnreachable;
    }
    return forward_transport::ConnectResult::kOk;
  }

  bool Send(std::string_view message, std::string* err) override {
    buffer_.append(std::to_string(message.size()));
    buffer_.push_back(' ');
    buffer_.append(message);
    ++sent_;
    if (buffer_.size() >= kSendBufferBytes) return Flush(err);
    return true;
  }

  uint64_t Acknowledged() const override { return acked_; }

  bool Close(std::string* err) override {
    if (!fd_.ok()) return sent_ == 0;
    if (!Flush(err)) {
      Abort();
      return false;
    }
    if (ssl_ != nullptr) SSL_shutdown(ssl_);  // our close_notify
    shutdown(fd_.get(), SHUT_WR);
    // The receiver's end of the stream says it has read everything before it.
    char buf[512];
    for (;;) {
      const ssize_t n = read(fd_.get(), buf, sizeof buf);
      if (n == 0) break;
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        *err = Where() + "waiting for the receiver to close: " + strerror(errno);
        Abort();
        return false;
      }
    }
    acked_ = sent_;
    Abort();
    return true;
  }

  void Abort() override {
    if (ssl_ != nullptr) SSL_free(ssl_);
    ssl_ = nullptr;
    fd_.Reset();
    buffer_.clear();
  }

  bool connected() const override { return fd_.ok(); }

 private:
  std::string Where() const { return "syslog " + d_.host + ":" + d_.port + ": "; }

  bool Flush(std::string* err) {
    size_t done = 0;
    while (done < buffer_.size()) {
      if (ssl_ != nullptr) {
        size_t n = 0;
        if (SSL_write_ex(ssl_, buffer_.data() + done, buffer_.size() - done, &n) != 1) {
          *err = Where() + "TLS write: " + OpenSslError();
          return false;
        }
        done += n;
        continue;
      }
      const ssize_t n = send(fd_.get(), buffer_.data() + done, buffer_.size() - done, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        *err = Where() + "send: " + (n < 0 ? strerror(errno) : "nothing written");
        return false;
      }
      done += static_cast<size_t>(n);
    }
    buffer_.clear();
    return true;
  }

  forward_destination::Destination d_;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  unique_fd::UniqueFd fd_;
  std::string buffer_;
  uint64_t sent_ = 0;
  uint64_t acked_ = 0;
};

}  // namespace

std::unique_ptr<forward_transport::Transport> Make(const forward_destination::Destination& d,
                                                   std::string* err) {
  auto t = std::make_unique<SyslogTcpTransport>(d);
  if (!t->Init(err)) return nullptr;
  return t;
}

}  // namespace syslog_tcp_transport
