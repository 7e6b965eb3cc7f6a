#include "key_file.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

TEST_CASE("keygen: a new 32-byte key, mode 0600, that reads back") {
  test_util::TempDir dir;
  const std::string path = dir / "audit.key";
  const mode_t old_umask = umask(0);  // a lax umask must not widen the mode
  std::string err;
  const key_file::NewKeyResult result = key_file::WriteNewKeyFile(path, &err);
  umask(old_umask);
  REQUIRE(result == key_file::NewKeyResult::kWritten);
  struct stat st;
  REQUIRE(stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  CHECK(st.st_size == 32);
  std::string key;
  REQUIRE(key_file::ReadKeyFile(path, &key, &err));
  std::vector<std::string> warnings;
  key_file::LintKeyFile(path, key, &warnings);
  CHECK(warnings.empty());

  // Two keys differ (64 random bytes colliding would mean no randomness).
  REQUIRE(key_file::WriteNewKeyFile(dir / "second.key", &err) == key_file::NewKeyResult::kWritten);
  CHECK(test_util::ReadFile(dir / "second.key") != key);
}

TEST_CASE("keygen: never overwrites, not even through a symlink") {
  test_util::TempDir dir;
  const std::string path = dir / "audit.key";
  test_util::WriteFile(path, "old key bytes");
  std::string err;
  CHECK(key_file::WriteNewKeyFile(path, &err) == key_file::NewKeyResult::kExists);
  CHECK(err.find(path) != std::string::npos);
  CHECK(test_util::ReadFile(path) == "old key bytes");

  const std::string link = dir / "link.key";
  REQUIRE(symlink((dir / "elsewhere.key").c_str(), link.c_str()) == 0);
  CHECK(key_file::WriteNewKeyFile(link, &err) == key_file::NewKeyResult::kExists);
  CHECK(access((dir / "elsewhere.key").c_str(), F_OK) != 0);
}

TEST_CASE("keygen: a directory that does not exist fails and leaves nothing") {
  test_util::TempDir dir;
  std::string err;
  CHECK(key_file::WriteNewKeyFile(dir / "missing/audit.key", &err) ==
        key_file::NewKeyResult::kFailed);
  CHECK(err.find("No such file or directory") != std::string::npos);
}
