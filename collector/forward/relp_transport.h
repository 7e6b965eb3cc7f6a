// RELP through librelp (what rsyslog's imrelp speaks), with TLS through
// OpenSSL. librelp tells its caller nothing per acknowledgement, but it
// keeps at most `window` messages unacknowledged: a send returns only once
// there is room, so when message k has been sent, every message up to
// k - window is acknowledged. A polite close waits for the "close"
// response, which the receiver sends after every earlier response: a close
// without error proves everything sent acknowledged. Receiver timeouts
// (no acknowledgement for kTimeoutSeconds) break the connection; memory
// stays bounded by the window whatever the receiver does.
#ifndef AGT_COLLECTOR_FORWARD_RELP_TRANSPORT_H_
#define AGT_COLLECTOR_FORWARD_RELP_TRANSPORT_H_

#include <memory>
#include <string>

#include "forward/forward_transport.h"

namespace relp_transport {

constexpr int kWindow = 128;  // as rsyslog's omrelp
constexpr unsigned kTimeoutSeconds = 10;

std::unique_ptr<forward_transport::Transport> Make(const forward_destination::Destination& d,
                                                   std::string* err);

}  // namespace relp_transport

#endif  // AGT_COLLECTOR_FORWARD_RELP_TRANSPORT_H_
