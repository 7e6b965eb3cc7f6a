#include "metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <utility>

#include "logs.h"
#include "unique_fd.h"

namespace metrics {
namespace {

bool IsMetricName(const std::string& name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// HELP text escapes \ and newline; a label value also escapes ".
std::string Escape(const std::string& text, bool quote) {
  std::string out;
  for (const char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormatValue(double v) {
  if (isnan(v)) return "NaN";
  if (isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  // Counts print as integers; times and rates with enough digits.
  snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

}  // namespace

void Registry::Add(Type type, const std::string& name, const std::string& help, Reader read,
                   Label label) {
  const std::string series =
      name + (label.name.empty() ? "" : "{" + label.name + "=\"" + label.value + "\"}");
  if (!IsMetricName(name) || (!label.name.empty() && !IsMetricName(label.name))) {
    errors_.push_back("metric " + series + ": not a valid name");
    return;
  }
  if (type == Type::kCounter && !EndsWith(name, "_total")) {
    errors_.push_back("metric " + name + ": a counter's name ends in _total");
    return;
  }
  for (const Series& s : series_) {
    if (s.name != name) continue;
    if (s.type != type || s.help != help) {
      errors_.push_back("metric " + name + ": registered again with another type or help");
      return;
    }
    if (s.label.name == label.name && s.label.value == label.value) {
      errors_.push_back("metric " + series + ": registered twice");
      return;
    }
  }
  series_.push_back({type, name, help, std::move(label), std::move(read)});
}

std::string Registry::Render() const {
  std::string out;
  std::vector<bool> done(series_.size(), false);
  for (size_t i = 0; i < series_.size(); ++i) {
    if (done[i]) continue;
    const Series& head = series_[i];
    out += "# HELP " + head.name + " " + Escape(head.help, false) + "\n";
    out += "# TYPE " + head.name + (head.type == Type::kCounter ? " counter\n" : " gauge\n");
    for (size_t j = i; j < series_.size(); ++j) {
      const Series& s = series_[j];
      if (s.name != head.name) continue;
      done[j] = true;
      out += s.name;
      if (!s.label.name.empty())
        out += "{" + s.label.name + "=\"" + Escape(s.label.value, true) + "\"}";
      out += " " + FormatValue(s.read()) + "\n";
    }
  }
  return out;
}

bool WriteAtomically(const std::string& path, const std::string& text, std::string* err) {
  return WriteAtomically(
      path, [&](const Put& put) { put(text); }, err);
}

bool WriteAtomically(const std::string& path, const std::function<void(const Put& put)>& fill,
                     std::string* err) {
  const std::string tmp = path + ".tmp";
  // 0644: node_exporter runs as another user and only reads it.
  unique_fd::UniqueFd fd(
      open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!fd.ok()) {
    *err = logs::ErrnoReason("open", tmp);
    return false;
  }
  int write_errno = 0;  // the first failed write's
  fill([&](std::string_view piece) {
    size_t done = 0;
    while (write_errno == 0 && done < piece.size()) {
      const ssize_t n = write(fd.get(), piece.data() + done, piece.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) write_errno = n < 0 ? errno : ENOSPC;
      if (n > 0) done += static_cast<size_t>(n);
    }
  });
  if (write_errno != 0) {
    *err = logs::ErrnoReason("write", tmp, write_errno);
    unlink(tmp.c_str());
    return false;
  }
  // Whatever the daemon's umask (the unit's is 0077).
  if (fchmod(fd.get(), 0644) != 0) {
    *err = logs::ErrnoReason("fchmod", tmp);
    unlink(tmp.c_str());
    return false;
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    *err = logs::ErrnoReason("rename", tmp + " to " + path);
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace metrics
