#include "forward/forward_transport.h"

#include "forward/relp_transport.h"
#include "forward/syslog_tcp_transport.h"

namespace forward_transport {

std::unique_ptr<Transport> Make(const forward_destination::Destination& d, std::string* err) {
  return d.relp() ? relp_transport::Make(d, err) : syslog_tcp_transport::Make(d, err);
}

}  // namespace forward_transport
