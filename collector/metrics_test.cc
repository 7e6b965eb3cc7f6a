#include "metrics.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "file_size_limit_test_util.h"
#include "test_util.h"

namespace {

using metrics::Type;

TEST_CASE("a registry renders HELP and TYPE once per name, then each series") {
  metrics::Registry r;
  double written = 3;
  r.Add(Type::kCounter, "agt_x_written_total", "Entries written.", [&] { return written; });
  r.Add(Type::kCounter, "agt_x_rejected_total", "Lines rejected.", [] { return 1.0; },
        {"reason", "not_json"});
  r.Add(Type::kGauge, "agt_x_age_seconds", "Age.\nSecond \\ line.", [] { return 0.25; });
  r.Add(Type::kCounter, "agt_x_rejected_total", "Lines rejected.", [] { return 0.0; },
        {"reason", "a\"b"});
  CHECK(r.errors().empty());
  CHECK(r.Render() ==
        "# HELP agt_x_written_total Entries written.\n"
        "# TYPE agt_x_written_total counter\n"
        "agt_x_written_total 3\n"
        "# HELP agt_x_rejected_total Lines rejected.\n"
        "# TYPE agt_x_rejected_total counter\n"
        "agt_x_rejected_total{reason=\"not_json\"} 1\n"
        "agt_x_rejected_total{reason=\"a\\\"b\"} 0\n"
        "# HELP agt_x_age_seconds Age.\\nSecond \\\\ line.\n"
        "# TYPE agt_x_age_seconds gauge\n"
        "agt_x_age_seconds 0.25\n");
  written = 12345678901;  // read at each render
  CHECK(r.Render().find("agt_x_written_total 12345678901\n") != std::string::npos);
}

TEST_CASE("names that break Prometheus' conventions are left out and said") {
  metrics::Registry r;
  r.Add(Type::kCounter, "agt_x_written", "no _total", [] { return 0.0; });
  r.Add(Type::kGauge, "9lives", "bad first char", [] { return 0.0; });
  r.Add(Type::kGauge, "agt-x", "dash", [] { return 0.0; });
  r.Add(Type::kGauge, "agt_x", "ok", [] { return 0.0; }, {"bad-label", "v"});
  r.Add(Type::kGauge, "agt_y", "ok", [] { return 0.0; });
  r.Add(Type::kGauge, "agt_y", "ok", [] { return 0.0; });
  r.Add(Type::kCounter, "agt_y", "other type", [] { return 0.0; });
  CHECK(r.errors().size() == 6);
  CHECK(r.Render() == "# HELP agt_y ok\n# TYPE agt_y gauge\nagt_y 0\n");
}

TEST_CASE("the metrics file is replaced whole, readable by others, no temp file left") {
  test_util::TempDir dir;
  const std::string path = dir / "agt.prom";
  std::string err;
  const mode_t old = umask(077);  // as the unit's UMask
  REQUIRE(metrics::WriteAtomically(path, "a 1\n", &err));
  REQUIRE(metrics::WriteAtomically(path, "a 2\n", &err));
  umask(old);
  CHECK(test_util::ReadFile(path) == "a 2\n");
  struct stat st;
  REQUIRE(stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
  CHECK(access((path + ".tmp").c_str(), F_OK) != 0);
  // A directory that is not there: a reason naming the call and the path.
  CHECK_FALSE(metrics::WriteAtomically(dir / "no/such.prom", "a 1\n", &err));
  CHECK(err.find("open " + dir / "no/such.prom.tmp") == 0);
}

}  // namespace

TEST_CASE("a file given in pieces is written whole; a failed write is said and leaves nothing") {
  test_util::TempDir dir;
  const std::string path = dir / "run.status";
  std::string err;
  std::string expected;
  const auto fill = [&](const metrics::Put& put) {
    expected.clear();
    for (int i = 0; i < 3000; ++i) {
      const std::string piece = "piece " + std::to_string(i) + "\n";
      put(piece);
      expected += piece;
    }
  };
  REQUIRE_MESSAGE(metrics::WriteAtomically(path, fill, &err), err);
  CHECK(test_util::ReadFile(path) == expected);
  // Past the file size limit (as on a full disk) from the first pieces on:
  // the old file stays whole, the reason names the write, no temp file.
  const bool written = test_util::UnderFileSizeLimit(
      1000, [&] { return metrics::WriteAtomically(path, fill, &err); });
  CHECK_FALSE(written);
  CHECK(err.find("write " + path + ".tmp") == 0);
  CHECK(test_util::ReadFile(path) == expected);
  CHECK(access((path + ".tmp").c_str(), F_OK) != 0);
}
