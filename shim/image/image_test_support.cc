#include "image_test_support.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace image_test {
namespace {

void Check(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what);
}

std::string ReadAll(int fd) {
  std::string s;
  lseek(fd, 0, SEEK_SET);
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) s.append(buf, static_cast<size_t>(n));
  return s;
}

void RemoveTree(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return;
  if (S_ISDIR(st.st_mode)) {
    chmod(path.c_str(), 0700);
    if (DIR* d = opendir(path.c_str())) {
      while (struct dirent* e = readdir(d)) {
        std::string n = e->d_name;
        if (n != "." && n != "..") RemoveTree(path + "/" + n);
      }
      closedir(d);
    }
    rmdir(path.c_str());
  } else {
    unlink(path.c_str());
  }
}

void Walk(const std::string& base, const std::string& rel, std::vector<std::string>* out) {
  std::string full = rel.empty() ? base : base + "/" + rel;
  DIR* d = opendir(full.c_str());
  if (d == nullptr) return;
  while (struct dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    std::string r = rel.empty() ? n : rel + "/" + n;
    std::string p = base + "/" + r;
    struct stat st;
    if (lstat(p.c_str(), &st) != 0) continue;
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    std::string line = r + " " +
                       (S_ISDIR(st.st_mode)   ? "d"
                        : S_ISLNK(st.st_mode) ? "l"
                                              : "f") +
                       " " + mode;
    if (S_ISLNK(st.st_mode)) {
      char t[4096];
      ssize_t k = readlink(p.c_str(), t, sizeof t);
      line += " -> " + std::string(t, k > 0 ? static_cast<size_t>(k) : 0);
    }
    out->push_back(line);
    if (S_ISDIR(st.st_mode)) Walk(base, r, out);
  }
  closedir(d);
}

}  // namespace

TempRoot::TempRoot() {
  char tmpl[] = "/tmp/agt-image-test.XXXXXX";
  Check(mkdtemp(tmpl) != nullptr, "mkdtemp");
  path_ = tmpl;
}

TempRoot::~TempRoot() { RemoveTree(path_); }

void TempRoot::Dir(const std::string& rel, unsigned mode) {
  std::string p = path_;
  std::stringstream ss(rel);
  std::string part;
  while (std::getline(ss, part, '/')) {
    if (part.empty()) continue;
    p += "/" + part;
    mkdir(p.c_str(), mode);
  }
  chmod(p.c_str(), mode);
}

void TempRoot::File(const std::string& rel, unsigned mode, const std::string& content) {
  std::string p = At(rel);
  std::ofstream(p, std::ios::binary | std::ios::trunc) << content;
  Check(chmod(p.c_str(), mode) == 0, "chmod " + p);
}

void TempRoot::Link(const std::string& rel, const std::string& target) {
  std::string p = At(rel);
  unlink(p.c_str());
  Check(symlink(target.c_str(), p.c_str()) == 0, "symlink " + p);
}

bool TempRoot::Exists(const std::string& rel) const {
  struct stat st;
  return lstat(At(rel).c_str(), &st) == 0;
}

bool TempRoot::IsLink(const std::string& rel) const {
  struct stat st;
  return lstat(At(rel).c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

std::string TempRoot::ReadLink(const std::string& rel) const {
  char t[4096];
  ssize_t k = readlink(At(rel).c_str(), t, sizeof t);
  return k > 0 ? std::string(t, static_cast<size_t>(k)) : std::string();
}

unsigned TempRoot::Mode(const std::string& rel) const {
  struct stat st;
  Check(stat(At(rel).c_str(), &st) == 0, "stat " + rel);
  return st.st_mode & 07777;
}

std::string TempRoot::Snapshot() const {
  std::vector<std::string> lines;
  Walk(path_, "", &lines);
  std::sort(lines.begin(), lines.end());
  std::string s;
  for (const std::string& l : lines) s += l + "\n";
  return s;
}

void TempRoot::MergedUsr() {
  Dir("usr/bin");
  Dir("usr/sbin");
  Dir("usr/local/bin");
  Dir("usr/local/sbin");
  Dir("usr/local/lib/agt");
  Link("bin", "usr/bin");
  Link("sbin", "usr/sbin");
  File("usr/local/lib/agt/agt-deny-shim", 0755, "shim");
}

Result Run(Subcommand fn, const std::vector<std::string>& args) {
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (std::string& a : copy) argv.push_back(&a[0]);
  argv.push_back(nullptr);
  char out_name[] = "/tmp/agt-image-out.XXXXXX";
  char err_name[] = "/tmp/agt-image-err.XXXXXX";
  int out_fd = mkstemp(out_name);
  int err_fd = mkstemp(err_name);
  unlink(out_name);
  unlink(err_name);
  std::fflush(stdout);
  std::fflush(stderr);
  int saved_out = dup(1);
  int saved_err = dup(2);
  dup2(out_fd, 1);
  dup2(err_fd, 2);
  Result r;
  r.status = fn(static_cast<int>(copy.size()), argv.data());
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  r.out = ReadAll(out_fd);
  r.err = ReadAll(err_fd);
  close(out_fd);
  close(err_fd);
  return r;
}

ScopedEnv::ScopedEnv(const char* name, const char* value) : name_(name) {
  if (const char* old = getenv(name)) {
    had_ = true;
    old_ = old;
  }
  if (value == nullptr) {
    unsetenv(name);
  } else {
    setenv(name, value, 1);
  }
}

ScopedEnv::~ScopedEnv() {
  if (had_) {
    setenv(name_.c_str(), old_.c_str(), 1);
  } else {
    unsetenv(name_.c_str());
  }
}

}  // namespace image_test
