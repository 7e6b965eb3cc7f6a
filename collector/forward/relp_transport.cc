#include "forward/relp_transport.h"

#include <sys/socket.h>

// librelp.h declares its functions without extern "C".
extern "C" {
#include <librelp.h>
}

namespace relp_transport {
namespace {

// librelp's generic error callback carries no user pointer; the forwarder
// has one transport per process, so the last one made takes them.
class RelpTransport;
RelpTransport* g_current = nullptr;

void NoDebug(char*, ...) {}

class RelpTransport final : public forward_transport::Transport {
 public:
  explicit RelpTransport(const forward_destination::Destination& d) : d_(d) {}
  ~RelpTransport() override {
    Abort();
    if (engine_ != nullptr) relpEngineDestruct(&engine_);
    if (g_current == this) g_current = nullptr;
  }

  bool Init(std::string* err) {
    if (relpEngineConstruct(&engine_) != RELP_RET_OK) {
      *err = "librelp: cannot construct the engine";
      return false;
    }
    g_current = this;
    // librelp calls its debug hook unconditionally and has none by default.
    relpEngineSetDbgprint(engine_, NoDebug);
    relpEngineSetEnableCmd(engine_, reinterpret_cast<unsigned char*>(const_cast<char*>("syslog")),
                           eRelpCmdState_Required);
    relpEngineSetOnErr(engine_, OnErr);
    relpEngineSetOnAuthErr(engine_, OnAuthErr);
    relpEngineSetOnGenericErr(engine_, OnGenericErr);
    if (d_.tls() && relpEngineSetTLSLibByName(engine_, "openssl") != RELP_RET_OK) {
      *err = "librelp: built without OpenSSL TLS";
      return false;
    }
    return true;
  }

  forward_transport::ConnectResult Connect(std::string* err) override {
    Abort();
    errors_ = 0;
    auth_failed_ = false;
    last_error_.clear();
    sent_ = 0;
    if (relpEngineCltConstruct(engine_, &clt_) != RELP_RET_OK) {
      *err = "librelp: cannot construct a client";
      return forward_transport::ConnectResult::kUnreachable;
    }
    relpCltSetUsrPtr(clt_, this);
    relpCltSetTimeout(clt_, kTimeoutSeconds);
    relpCltSetConnTimeout(clt_, static_cast<int>(kTimeoutSeconds));
    relpCltSetWindowSize(clt_, kWindow);
    if (d_.tls()) {
      relpCltEnableTLS(clt_);
      relpCltSetCACert(clt_, const_cast<char*>(d_.ca_file.c_str()));
      if (!d_.cert_file.empty()) {
        relpCltSetOwnCert(clt_, const_cast<char*>(d_.cert_file.c_str()));
        relpCltSetPrivKey(clt_, const_cast<char*>(d_.key_file.c_str()));
      }
      // "name": the chain must verify against the CA and the certificate
      // must carry the permitted name (subjectAltName or CN).
      relpCltSetAuthMode(clt_, const_cast<char*>("name"));
      relpCltAddPermittedPeer(clt_, const_cast<char*>(d_.permitted_peer.c_str()));
    }
    const relpRetVal r = relpCltConnect(
        clt_, AF_UNSPEC, reinterpret_cast<unsigned char*>(const_cast<char*>(d_.port.c_str())),
        reinterpret_cast<unsigned char*>(const_cast<char*>(d_.host.c_str())));
    if (r != RELP_RET_OK) {
      const bool refused = auth_failed_ || r == RELP_RET_AUTH_ERR_NAME ||
                           r == RELP_RET_AUTH_ERR_FP || r == RELP_RET_AUTH_CERT_INVL ||
                           r == RELP_RET_AUTH_NO_CERT || r == RELP_RET_ERR_TLS_HANDS ||
                           r == RELP_RET_ERR_TLS_SETUP;
      *err = Describe("connect", r);
      relpEngineCltDestruct(engine_, &clt_);
      clt_ = nullptr;
      return refused ? forward_transport::ConnectResult::kRefusedPeer
                     : forward_transport::ConnectResult::kUnreachable;
    }
    return forward_transport::ConnectResult::kOk;
  }

  bool Send(std::string_view message, std::string* err) override {
    const relpRetVal r = relpCltSendSyslog(
        clt_, reinterpret_cast<unsigned char*>(const_cast<char*>(message.data())), message.size());
    if (r != RELP_RET_OK) {
      *err = Describe("send", r);
      return false;
    }
    ++sent_;
    return true;
  }

  uint64_t Acknowledged() const override {
    return sent_ > static_cast<uint64_t>(kWindow) ? sent_ - kWindow : 0;
  }

  bool Close(std::string* err) override {
    if (clt_ == nullptr) return sent_ == 0;
    errors_ = 0;
    const relpRetVal r = relpEngineCltDestruct(engine_, &clt_);
    clt_ = nullptr;
    if (r != RELP_RET_OK || errors_ != 0) {
      *err = Describe("close", r);
      return false;
    }
    return true;
  }

  void Abort() override {
    if (clt_ != nullptr) relpEngineCltDestruct(engine_, &clt_);
    clt_ = nullptr;
  }

  bool connected() const override { return clt_ != nullptr; }

 private:
  std::string Describe(const char* what, relpRetVal r) const {
    return std::string("RELP ") + what + " " + d_.host + ":" + d_.port + ": " +
           (last_error_.empty() ? "librelp error " + std::to_string(r) : last_error_);
  }

  void Record(const char* info, const char* msg) {
    ++errors_;
    last_error_ = std::string(msg != nullptr ? msg : "") +
                  (info != nullptr && *info ? " (" + std::string(info) + ")" : "");
  }

  static void OnErr(void* usr, char* info, char* msg, relpRetVal) {
    if (usr != nullptr) static_cast<RelpTransport*>(usr)->Record(info, msg);
  }
  static void OnAuthErr(void* usr, char* info, char* msg, relpRetVal) {
    if (usr == nullptr) return;
    auto* self = static_cast<RelpTransport*>(usr);
    self->auth_failed_ = true;
    self->Record(info, msg);
  }
  static void OnGenericErr(char* info, char* msg, relpRetVal) {
    if (g_current != nullptr) g_current->Record(info, msg);
  }

  forward_destination::Destination d_;
  relpEngine_t* engine_ = nullptr;
  relpClt_t* clt_ = nullptr;
  uint64_t sent_ = 0;
  int errors_ = 0;
  bool auth_failed_ = false;
  std::string last_error_;
};

}  // namespace

std::unique_ptr<forward_transport::Transport> Make(const forward_destination::Destination& d,
                                                   std::string* err) {
  auto t = std::make_unique<RelpTransport>(d);
  if (!t->Init(err)) return nullptr;
  return t;
}

}  // namespace relp_transport
