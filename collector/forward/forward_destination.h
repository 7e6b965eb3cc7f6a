// Where the audit entries are forwarded: one destination, from a URL
// (`--forward relp+tls://HOST:PORT`) or from a `forward` entry of the
// configuration. Parsed and checked here once, for both; the transports
// (relp_transport, syslog_tcp_transport) take the result as it is.
#ifndef AGT_COLLECTOR_FORWARD_FORWARD_DESTINATION_H_
#define AGT_COLLECTOR_FORWARD_FORWARD_DESTINATION_H_

#include <stddef.h>

#include <string>
#include <string_view>

namespace forward_destination {

enum class Protocol {
  kRelp,       // relp://       librelp, plain TCP
  kRelpTls,    // relp+tls://   librelp with TLS (OpenSSL)
  kSyslogTcp,  // syslog+tcp:// RFC 6587 octet counting
  kSyslogTls,  // syslog+tls:// RFC 5425: the same over TLS
};

enum class Format {
  kRfc5424,      // the signed entry line as the MSG (forward_message.h)
  kCloudEvents,  // a CloudEvents 1.0 JSON envelope as the MSG (cloud_event.h)
};

// The longest message sent by default; a longer entry is not cut but
// replaced by a notice that names it (forward_message.h, agt-collector(1)).
constexpr size_t kDefaultMaxMessageBytes = 128u << 10;

struct Destination {
  std::string name;  // [A-Za-z0-9._-]: names the position file in the state directory
  std::string url;
  Protocol protocol = Protocol::kRelp;
  std::string host;  // a DNS name or an IP address (without brackets)
  std::string port;  // 1-65535, as digits
  std::string ca_file, cert_file, key_file;
  std::string permitted_peer;  // the name the receiver's certificate must carry (default: host)
  Format format = Format::kRfc5424;
  size_t max_message_bytes = kDefaultMaxMessageBytes;

  bool tls() const { return protocol == Protocol::kRelpTls || protocol == Protocol::kSyslogTls; }
  bool relp() const { return protocol == Protocol::kRelp || protocol == Protocol::kRelpTls; }
};

// Fills url, protocol, host, port and a default name from a URL of one of
// the four forms; false with a bare reason.
bool ParseUrl(std::string_view url, Destination* out, std::string* err);

// What must hold once every field is set: TLS needs a CA file, a
// certificate and its key come together, and plain transports take no
// TLS files. False with a bare reason.
bool Check(Destination* d, std::string* err);

// "relp+tls", "syslog+tcp", ... for messages.
const char* SchemeName(Protocol p);

// Whether `name` may name a destination (and its position file).
bool IsValidName(std::string_view name);

}  // namespace forward_destination

#endif  // AGT_COLLECTOR_FORWARD_FORWARD_DESTINATION_H_
