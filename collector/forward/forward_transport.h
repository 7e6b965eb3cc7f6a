// One interface for the forwarder's transports (Falco's outputs: one file
// per channel): RELP (relp_transport.cc, librelp) and syslog over TCP with
// octet counting (syslog_tcp_transport.cc, OpenSSL for TLS). The forwarder
// only ever advances its durable position over messages a transport
// reports acknowledged, so the two differ only in what "acknowledged" means.
#ifndef AGT_COLLECTOR_FORWARD_FORWARD_TRANSPORT_H_
#define AGT_COLLECTOR_FORWARD_FORWARD_TRANSPORT_H_

#include <stdint.h>

#include <memory>
#include <string>
#include <string_view>

#include "forward/forward_destination.h"

namespace forward_transport {

enum class ConnectResult {
  kOk,
  kUnreachable,  // refused, timed out, reset: try again later
  kRefusedPeer,  // TLS: the receiver's certificate was not accepted; nothing was sent
};

class Transport {
 public:
  virtual ~Transport() = default;

  virtual ConnectResult Connect(std::string* err) = 0;
  // Sends one message (blocking, bounded by the transport's timeout);
  // false when the connection broke (the caller Abort()s and re-sends
  // from its last acknowledged position).
  virtual bool Send(std::string_view message, std::string* err) = 0;
  // How many of the messages sent since Connect are known to be
  // acknowledged, counted from the first (acknowledgements come in order).
  virtual uint64_t Acknowledged() const = 0;
  // Ends the connection politely; true when it proved every message sent
  // on it acknowledged.
  virtual bool Close(std::string* err) = 0;
  // Drops the connection without waiting (after an error).
  virtual void Abort() = 0;
  virtual bool connected() const = 0;
};

// The transport for d.protocol; nullptr with *err when it cannot be set up.
std::unique_ptr<Transport> Make(const forward_destination::Destination& d, std::string* err);

}  // namespace forward_transport

#endif  // AGT_COLLECTOR_FORWARD_FORWARD_TRANSPORT_H_
