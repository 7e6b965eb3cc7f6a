#include "forward/forward_destination.h"

#include <doctest/doctest.h>

using forward_destination::Destination;
using forward_destination::Protocol;

TEST_CASE("forward destination: the four URL forms") {
  Destination d;
  std::string err;
  REQUIRE(forward_destination::ParseUrl("relp+tls://logs.example.org:2514", &d, &err));
  CHECK(d.protocol == Protocol::kRelpTls);
  CHECK(d.host == "logs.example.org");
  CHECK(d.port == "2514");
  CHECK(d.name == "relp_tls-logs.example.org-2514");
  d = Destination();
  REQUIRE(forward_destination::ParseUrl("syslog+tcp://[::1]:514", &d, &err));
  CHECK(d.protocol == Protocol::kSyslogTcp);
  CHECK(d.host == "::1");
  CHECK(d.name == "syslog_tcp-__1-514");
  d = Destination();
  REQUIRE(forward_destination::ParseUrl("relp://10.0.0.1:20514", &d, &err));
  CHECK(d.protocol == Protocol::kRelp);
  d = Destination();
  REQUIRE(forward_destination::ParseUrl("syslog+tls://h:6514", &d, &err));
  CHECK(d.tls());
  CHECK_FALSE(d.relp());
}

TEST_CASE("forward destination: what is refused, and why") {
  const struct {
    const char* url;
    const char* why;
  } cases[] = {
      {"http://h:1", "a destination is relp://"}, {"relp://h", "needs a port"},
      {"relp://h:0", "from 1 to 65535"},          {"relp://h:65536", "from 1 to 65535"},
      {"relp://h:514/x", "from 1 to 65535"},      {"relp://user@h:514", "without user"},
      {"relp://:514", "names no host"},           {"relp://[::1:514", "lacks its ']'"},
      {"RELP://h:1", "a destination is relp://"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.url);
    Destination d;
    std::string err;
    CHECK_FALSE(forward_destination::ParseUrl(c.url, &d, &err));
    CHECK(err.find(c.why) != std::string::npos);
  }
}

TEST_CASE("forward destination: TLS needs a CA; a certificate comes with its key") {
  Destination d;
  std::string err;
  REQUIRE(forward_destination::ParseUrl("relp+tls://h:1", &d, &err));
  CHECK_FALSE(forward_destination::Check(&d, &err));
  CHECK(err.find("needs a CA file") != std::string::npos);
  d.ca_file = "/ca.pem";
  d.cert_file = "/c.pem";
  CHECK_FALSE(forward_destination::Check(&d, &err));
  CHECK(err.find("come together") != std::string::npos);
  d.key_file = "/c.key";
  REQUIRE(forward_destination::Check(&d, &err));
  CHECK(d.permitted_peer == "h");  // the default: the URL's host
  Destination plain;
  REQUIRE(forward_destination::ParseUrl("relp://h:1", &plain, &err));
  plain.ca_file = "/ca.pem";
  CHECK_FALSE(forward_destination::Check(&plain, &err));
  CHECK(err.find("is not TLS") != std::string::npos);
}
