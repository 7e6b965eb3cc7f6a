// Syslog over TCP with octet counting (RFC 6587: "LEN SP MSG"), plain or in
// TLS (RFC 5425) through OpenSSL, for receivers without RELP. The protocol
// has no acknowledgement, so nothing counts as acknowledged until a polite
// close: our TLS close_notify / FIN, then the receiver's own close after it
// has read everything (rsyslog's imtcp closes a session at its end). The
// forwarder closes after a batch (kMessagesPerClose) and when it has caught
// up, so a receiver crash re-sends at most one batch. Weaker than RELP: a
// receiver that read a message has not necessarily written it.
#ifndef AGT_COLLECTOR_FORWARD_SYSLOG_TCP_TRANSPORT_H_
#define AGT_COLLECTOR_FORWARD_SYSLOG_TCP_TRANSPORT_H_

#include <memory>
#include <string>

#include "forward/forward_transport.h"

namespace syslog_tcp_transport {

constexpr unsigned kTimeoutSeconds = 10;
constexpr size_t kSendBufferBytes = 64u << 10;

std::unique_ptr<forward_transport::Transport> Make(const forward_destination::Destination& d,
                                                   std::string* err);

}  // namespace syslog_tcp_transport

#endif  // AGT_COLLECTOR_FORWARD_SYSLOG_TCP_TRANSPORT_H_
