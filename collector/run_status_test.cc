#include "run_status.h"

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "test_util.h"

namespace {

TEST_CASE("run.status lists every source as it is written, and reads back the same") {
  test_util::TempDir dir;
  run_status::Snapshot s;
  s.pid = 4242;
  s.started_unix = 1700000000;
  s.written_unix = 1700000060;
  s.output = "/var/log/agt/audit.jsonl";
  s.forward = {"relp-main", "cloudevents"};
  s.last_problem_unix = 1700000030;
  s.last_problem = "warning: a \"quoted\"\tproblem";
  // More than one 64 KiB piece, with names that need escaping.
  std::vector<std::pair<std::string, std::string>> sources;
  for (int i = 0; i < 3000; ++i) {
    const std::string id = "sb-" + std::to_string(i) + (i % 7 == 0 ? "\"\\\x01" : "");
    sources.emplace_back(id, "/srv/sandboxes/" + id + "/denied.log");
  }
  const run_status::ListSources list = [&](const run_status::SourceVisitor& visit) {
    for (const auto& [id, log] : sources) visit(id, log);
  };
  std::string err;
  REQUIRE_MESSAGE(run_status::Write(dir.path(), s, list, &err), err);
  const std::string text = test_util::ReadFile(dir / run_status::kFileName);
  CHECK(text.size() > 64 * 1024);
  CHECK(text.back() == '\n');
  run_status::Snapshot back;
  REQUIRE_MESSAGE(run_status::Parse(text, &back, &err), err);
  CHECK(back.pid == s.pid);
  CHECK(back.started_unix == s.started_unix);
  CHECK(back.written_unix == s.written_unix);
  CHECK(back.output == s.output);
  CHECK(back.forward == s.forward);
  CHECK(back.last_problem_unix == s.last_problem_unix);
  CHECK(back.last_problem == s.last_problem);
  CHECK(back.sources == sources);
}

}  // namespace
