#include "denied_names.h"

#include <doctest/doctest.h>

#include <string>

TEST_CASE("upstream's denied names are all in the table") {
  for (const char* name : {"curl",      "wget",    "nc",
                           "ncat",      "netcat",  "socat",
                           "telnet",    "ftp",     "ssh",
                           "scp",       "sftp",    "rsync",
                           "git",       "svn",     "hg",
                           "apt",       "apt-get", "dpkg",
                           "pip",       "pip3",    "npm",
                           "yarn",      "gem",     "cargo",
                           "az",        "aws",     "gcloud",
                           "gsutil",    "kubectl", "helm",
                           "terraform", "ansible", "ansible-playbook",
                           "docker",    "podman"}) {
    CAPTURE(name);
    CHECK(denied_names::Find(name) != nullptr);
  }
}

TEST_CASE("lookup finds each row and nothing else") {
  for (const denied_names::Row& row : denied_names::kRows) {
    CHECK(denied_names::Find(row.name) == &row);
    CHECK(!row.help.empty());
  }
  CHECK(denied_names::Find("") == nullptr);
  CHECK(denied_names::Find("curl2") == nullptr);
  CHECK(denied_names::Find("CURL") == nullptr);
  CHECK(denied_names::Find("python3") == nullptr);
}

TEST_CASE("categories have their names") {
  CHECK(denied_names::CategoryName(denied_names::Find("curl")->category) == "network");
  CHECK(denied_names::CategoryName(denied_names::Find("ssh")->category) == "remote access");
  CHECK(denied_names::CategoryName(denied_names::Find("git")->category) == "VCS");
  CHECK(denied_names::CategoryName(denied_names::Find("pip")->category) == "package manager");
  CHECK(denied_names::CategoryName(denied_names::Find("aws")->category) == "cloud");
  CHECK(denied_names::CategoryName(denied_names::Find("kubectl")->category) == "infra");
}
