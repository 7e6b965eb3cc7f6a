// The one table of names agt-deny-shim denies by default, each with its
// category and a one-line help text. Header-only and heap-free so the static
// (musl, no libstdc++ runtime) shim and the native tools share it.
#ifndef AGT_DENY_SHIM_DENIED_NAMES_H_
#define AGT_DENY_SHIM_DENIED_NAMES_H_

#include <array>
#include <cstddef>
#include <string_view>

namespace denied_names {

enum class Category {
  kNetwork,
  kRemoteAccess,
  kVcs,
  kPackageManager,
  kCloud,
  kInfra,
};

struct Row {
  std::string_view name;
  Category category;
  std::string_view help;
};

// Kept sorted by name (checked at compile time below) so lookups can
// binary-search and `list` prints in a stable order.
inline constexpr std::array<Row, 35> kRows = {{
    {"ansible", Category::kInfra, "configuration management: runs tasks on remote hosts"},
    {"ansible-playbook", Category::kInfra,
     "configuration management: runs playbooks on remote hosts"},
    {"apt", Category::kPackageManager, "Debian package manager: downloads and installs packages"},
    {"apt-get", Category::kPackageManager,
     "Debian package manager: downloads and installs packages"},
    {"aws", Category::kCloud, "AWS CLI: reaches cloud APIs with ambient credentials"},
    {"az", Category::kCloud, "Azure CLI: reaches cloud APIs with ambient credentials"},
    {"cargo", Category::kPackageManager, "Rust package manager: fetches and builds crates"},
    {"curl", Category::kNetwork, "HTTP/FTP client: transfers data to and from any URL"},
    {"docker", Category::kInfra,
     "container engine client: starts containers, may escape the sandbox"},
    {"dpkg", Category::kPackageManager,
     "Debian package installer: installs packages into the root"},
    {"ftp", Category::kNetwork, "FTP client: transfers files to and from remote hosts"},
    {"gcloud", Category::kCloud, "Google Cloud CLI: reaches cloud APIs with ambient credentials"},
    {"gem", Category::kPackageManager, "Ruby package manager: downloads and installs gems"},
    {"git", Category::kVcs, "version control: clones, fetches and pushes over the network"},
    {"gsutil", Category::kCloud, "Google Cloud Storage CLI: copies data to and from buckets"},
    {"helm", Category::kInfra, "Kubernetes package manager: deploys charts to clusters"},
    {"hg", Category::kVcs, "Mercurial: clones, pulls and pushes over the network"},
    {"kubectl", Category::kInfra, "Kubernetes CLI: controls clusters"},
    {"nc", Category::kNetwork, "netcat: opens raw TCP/UDP connections and listeners"},
    {"ncat", Category::kNetwork, "Nmap netcat: opens raw TCP/UDP connections and listeners"},
    {"netcat", Category::kNetwork, "netcat: opens raw TCP/UDP connections and listeners"},
    {"npm", Category::kPackageManager,
     "Node.js package manager: downloads packages and runs their scripts"},
    {"pip", Category::kPackageManager,
     "Python package installer: downloads packages and runs their build code"},
    {"pip3", Category::kPackageManager,
     "Python package installer: downloads packages and runs their build code"},
    {"podman", Category::kInfra, "container engine: starts containers"},
    {"rsync", Category::kRemoteAccess,
     "file synchronisation: copies files to and from remote hosts"},
    {"scp", Category::kRemoteAccess, "secure copy: copies files to and from remote hosts over SSH"},
    {"sftp", Category::kRemoteAccess, "SSH file transfer: copies files to and from remote hosts"},
    {"socat", Category::kNetwork, "multipurpose relay: connects sockets, files and processes"},
    {"ssh", Category::kRemoteAccess, "secure shell: runs commands on remote hosts"},
    {"svn", Category::kVcs, "Subversion: checks out and commits over the network"},
    {"telnet", Category::kRemoteAccess, "telnet client: opens interactive TCP sessions"},
    {"terraform", Category::kInfra, "infrastructure as code: creates and destroys cloud resources"},
    {"wget", Category::kNetwork, "HTTP/FTP downloader: fetches files from any URL"},
    {"yarn", Category::kPackageManager,
     "Node.js package manager: downloads packages and runs their scripts"},
}};

constexpr bool IsSortedUnique() {
  for (std::size_t i = 1; i < kRows.size(); ++i) {
    if (!(kRows[i - 1].name < kRows[i].name)) return false;
  }
  return true;
}
static_assert(IsSortedUnique(), "denied_names::kRows must be sorted by name, without duplicates");

// The row for `name`, or nullptr when it is not a default denied name.
constexpr const Row* Find(std::string_view name) {
  std::size_t lo = 0;
  std::size_t hi = kRows.size();
  while (lo < hi) {
    std::size_t mid = lo + (hi - lo) / 2;
    if (kRows[mid].name < name) {
      lo = mid + 1;
    } else if (name < kRows[mid].name) {
      hi = mid;
    } else {
      return &kRows[mid];
    }
  }
  return nullptr;
}

// The category as users read and type it ("package manager", "remote access").
constexpr std::string_view CategoryName(Category category) {
  switch (category) {
    case Category::kNetwork: return "network";
    case Category::kRemoteAccess: return "remote access";
    case Category::kVcs: return "VCS";
    case Category::kPackageManager: return "package manager";
    case Category::kCloud: return "cloud";
    case Category::kInfra: return "infra";
  }
  return "unknown";
}

}  // namespace denied_names

#endif  // AGT_DENY_SHIM_DENIED_NAMES_H_
