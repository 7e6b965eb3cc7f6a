#include "forward/forward_destination.h"

namespace forward_destination {
namespace {

constexpr struct {
  const char* scheme;
  Protocol protocol;
} kSchemes[] = {
    {"relp", Protocol::kRelp},
    {"relp+tls", Protocol::kRelpTls},
    {"syslog+tcp", Protocol::kSyslogTcp},
    {"syslog+tls", Protocol::kSyslogTls},
};

bool IsHostChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '-' || c == '_';
}

bool IsNameChar(char c) { return IsHostChar(c); }

}  // namespace

const char* SchemeName(Protocol p) {
  for (const auto& s : kSchemes) {
    if (s.protocol == p) return s.scheme;
  }
  return "?";
}

bool IsValidName(std::string_view name) {
  if (name.empty() || name.size() > 64 || name == "." || name == "..") return false;
  for (const char c : name) {
    if (!IsNameChar(c)) return false;
  }
  return true;
}

bool ParseUrl(std::string_view url_in, Destination* out, std::string* err) {
  const std::string copy(url_in);  // url_in may be out->url itself
  const std::string_view url = copy;
  const size_t sep = url.find("://");
  const std::string_view scheme = sep == std::string_view::npos ? "" : url.substr(0, sep);
  bool known = false;
  for (const auto& s : kSchemes) {
    if (scheme == s.scheme) {
      out->protocol = s.protocol;
      known = true;
    }
  }
  if (!known) {
    *err =
        "a destination is relp://HOST:PORT, relp+tls://HOST:PORT, syslog+tcp://HOST:PORT or "
        "syslog+tls://HOST:PORT";
    return false;
  }
  std::string_view rest = url.substr(sep + 3);
  std::string_view host;
  if (!rest.empty() && rest.front() == '[') {  // [IPv6]:PORT
    const size_t close = rest.find(']');
    if (close == std::string_view::npos) {
      *err = "an IPv6 address in brackets lacks its ']'";
      return false;
    }
    host = rest.substr(1, close - 1);
    for (const char c : host) {
      const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
      if (!hex && c != ':' && c != '.') {
        *err = "not an IPv6 address in brackets";
        return false;
      }
    }
    rest = rest.substr(close + 1);
  } else {
    const size_t colon = rest.find(':');
    host = rest.substr(0, colon);
    for (const char c : host) {
      if (!IsHostChar(c)) {
        *err = "the host is a DNS name or an IP address, without user, path or query";
        return false;
      }
    }
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon);
  }
  if (host.empty() || host.size() > 253) {
    *err = "the destination names no host";
    return false;
  }
  if (rest.size() < 2 || rest.front() != ':') {
    *err = "the destination needs a port (HOST:PORT)";
    return false;
  }
  const std::string_view port = rest.substr(1);
  unsigned long n = 0;
  for (const char c : port) {
    if (c < '0' || c > '9' || port.size() > 5) {
      *err = "the port is a number from 1 to 65535, and nothing follows it";
      return false;
    }
    n = n * 10 + static_cast<unsigned long>(c - '0');
  }
  if (n < 1 || n > 65535) {
    *err = "the port is a number from 1 to 65535, and nothing follows it";
    return false;
  }
  out->url = std::string(url);
  out->host = std::string(host);
  out->port = std::to_string(n);
  if (out->name.empty()) {
    std::string name = std::string(SchemeName(out->protocol)) + "-" + out->host + "-" + out->port;
    for (char& c : name) {
      if (!IsNameChar(c)) c = '_';
    }
    out->name = name.substr(0, 64);
  }
  return true;
}

bool Check(Destination* d, std::string* err) {
  if (!IsValidName(d->name)) {
    *err = "a destination name is 1-64 bytes of [A-Za-z0-9._-], not \".\" or \"..\"";
    return false;
  }
  if (d->tls()) {
    if (d->ca_file.empty()) {
      *err = std::string(SchemeName(d->protocol)) +
             " needs a CA file to check the receiver's certificate (--forward-ca, ca_file)";
      return false;
    }
  } else if (!d->ca_file.empty() || !d->cert_file.empty() || !d->key_file.empty() ||
             !d->permitted_peer.empty()) {
    *err = std::string(SchemeName(d->protocol)) +
           " is not TLS: use relp+tls:// or syslog+tls:// with certificate files";
    return false;
  }
  if (d->cert_file.empty() != d->key_file.empty()) {
    *err = "a client certificate and its key come together (--forward-cert and --forward-key)";
    return false;
  }
  if (d->permitted_peer.empty() && d->tls()) d->permitted_peer = d->host;
  if (d->max_message_bytes < 1024 || d->max_message_bytes > (16u << 20)) {
    *err = "max_message_size must be between 1KiB and 16MiB";
    return false;
  }
  return true;
}

}  // namespace forward_destination
