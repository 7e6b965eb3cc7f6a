#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <set>

#include "canonical_json.h"
#include "did_you_mean.h"
#include "json_text.h"
#include "logs.h"
#include "unique_fd.h"
#include "watch_pattern.h"

namespace config {
namespace {

// The configuration vocabulary: one row per key (JSON path, "[]" for any
// index), its type and its help text. agt-collector(1) follows this table.
constexpr SchemaRow kConfigSchema[] = {
    {"output", ValueType::kString, "audit JSONL file the signed entries are appended to"},
    {"key_file", ValueType::kString, "file holding the raw HMAC key bytes (mode 0600)"},
    {"state_dir", ValueType::kString, "run mode: directory of the per-file checkpoints"},
    {"metrics_file", ValueType::kString,
     "run mode: Prometheus text file rewritten every metrics_interval (node_exporter's"
     " textfile collector reads *.prom)"},
    {"metrics_interval", ValueType::kCount,
     "run mode: seconds between metrics_file writes, 1-3600 (default 15)"},
    {"watch", ValueType::kStringArray,
     "run mode: log path patterns with one {sandbox_id} component (default labels)"},
    {"listen", ValueType::kString,
     "run mode: path of the attested unix socket to bind (as --listen)"},
    {"shim", ValueType::kString,
     "run mode: the genuine shim executable, hashed at start (as --shim)"},
    {"shim_sha256", ValueType::kString,
     "run mode: the shim's SHA-256, 64 hex digits (as --shim-sha256)"},
    {"cgroup_pattern", ValueType::kString,
     "run mode: regular expression whose first group is the sandbox id in a peer's cgroup path"
     " (default: the Docker, containerd, CRI-O and Kubernetes layouts)"},
    {"sources", ValueType::kObjectArray, "sources with their labels; each has path or pattern"},
    {"sources[].path", ValueType::kString, "one log file (absolute); needs sandbox_id"},
    {"sources[].pattern", ValueType::kString,
     "log path pattern with one {sandbox_id} component; the id comes from the path"},
    {"sources[].sandbox_id", ValueType::kString, "sandbox id of a path source"},
    {"sources[].agent_did", ValueType::kNullableString,
     "agent DID ({sandbox_id} is replaced); default did:agt:sandbox:{sandbox_id}"},
    {"sources[].environment", ValueType::kNullableString, "environment label, e.g. \"prod\""},
    {"sources[].compute_driver", ValueType::kNullableString, "compute driver, e.g. \"docker\""},
    {"sources[].session_id", ValueType::kNullableString, "session id label"},
    {"limits", ValueType::kObject, "input limits"},
    {"limits.max_line_size", ValueType::kSize,
     "longest accepted record line, a size (default \"64KiB\")"},
    {"limits.max_argv_entries", ValueType::kCount, "most argv entries per record (default 4096)"},
    {"limits.max_argv_size", ValueType::kSize,
     "most argument bytes per record, a size (default \"32KiB\")"},
    {"sandbox_quota", ValueType::kObject,
     "run mode: per-sandbox rate and volume limit; lines past it are counted into one "
     "sandbox_quota_exceeded entry per interval"},
    {"sandbox_quota.max_entries", ValueType::kCount,
     "lines a sandbox may add as entries per interval (default 100000)"},
    {"sandbox_quota.max_size", ValueType::kSize,
     "log bytes of those lines per interval, a size (default \"64MiB\")"},
    {"sandbox_quota.interval_seconds", ValueType::kCount, "the interval, in seconds (default 60)"},
    {"forward", ValueType::kObjectArray,
     "destinations every audit entry is forwarded to (agt-collector forward); each has url"},
    {"forward[].url", ValueType::kString,
     "relp://, relp+tls://, syslog+tcp:// or syslog+tls:// HOST:PORT"},
    {"forward[].name", ValueType::kString,
     "name of the destination and its position file (default from the url)"},
    {"forward[].ca_file", ValueType::kString,
     "TLS: CA certificate(s) the receiver's must chain to"},
    {"forward[].cert_file", ValueType::kString, "TLS: client certificate (with key_file)"},
    {"forward[].key_file", ValueType::kString, "TLS: the client certificate's private key"},
    {"forward[].permitted_peer", ValueType::kString,
     "TLS: name the receiver's certificate must carry (default: the url's host)"},
    {"forward[].format", ValueType::kString,
     "message body: \"rfc5424\" (the signed line, default) or \"cloudevents\""},
    {"forward[].max_message_size", ValueType::kSize,
     "longest message sent, a size (default \"128KiB\"); a longer entry is replaced by a notice"},
};

const char* TypeName(ValueType t) {
  switch (t) {
    case ValueType::kObject: return "an object";
    case ValueType::kString: return "a string";
    case ValueType::kNullableString: return "a string or null";
    case ValueType::kStringArray: return "an array of strings";
    case ValueType::kObjectArray: return "an array of objects";
    case ValueType::kSize: return "a size (bytes, or a string like \"64KiB\" or \"1MB\")";
    case ValueType::kCount: return "an integer";
  }
  return "?";
}

// A config key from the file, safe to print in one line.
std::string PrintableKey(std::string_view s) {
  std::string out;
  for (const char c : s.substr(0, 64)) {
    out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  }
  if (s.size() > 64) out += "...";
  return out;
}

class Checker {
 public:
  Checker(const std::string& file, Config* out, std::string* err)
      : file_(file), out_(out), err_(err) {}

  bool Root(const rapidjson::Value& root) {
    if (!root.IsObject()) return Fail("", "the configuration must be a JSON object");
    return Object(root, "", "");
  }

 private:
  bool Fail(const std::string& path, const std::string& what) {
    *err_ = file_ + ": " + (path.empty() ? "" : path + ": ") + what;
    return false;
  }

  const SchemaRow* Find(const std::string& key) const {
    for (const SchemaRow& row : kConfigSchema) {
      if (key == row.key) return &row;
    }
    return nullptr;
  }

  std::string Hint(const std::string& schema_prefix, std::string_view name) const {
    std::vector<std::string_view> keys;  // the keys at this level
    for (const SchemaRow& row : kConfigSchema) {
      const std::string_view key(row.key);
      if (key.substr(0, schema_prefix.size()) != schema_prefix) continue;
      const std::string_view rest = key.substr(schema_prefix.size());
      if (rest.find_first_of(".[") == std::string_view::npos) keys.push_back(rest);
    }
    const std::string_view best = did_you_mean::Closest(name, keys);
    return best.empty() ? "" : " (did you mean \"" + std::string(best) + "\"?)";
  }

  bool Object(const rapidjson::Value& obj, const std::string& schema_prefix,
              const std::string& path_prefix) {
    std::set<std::string> seen;
    for (const auto& m : obj.GetObject()) {
      const std::string name(m.name.GetString(), m.name.GetStringLength());
      const std::string path = path_prefix + PrintableKey(name);
      if (!seen.insert(name).second) return Fail(path, "duplicate key");
      // The schema spells nesting with "." and "[]" ("forward[].name"); a key
      // holding them names no row at this level, or {"forward[].name": "x"}
      // would reach a forward destination that was never begun.
      const SchemaRow* row =
          name.find_first_of(".[") == std::string::npos ? Find(schema_prefix + name) : nullptr;
      if (row == nullptr) return Fail(path, "unknown key" + Hint(schema_prefix, name));
      if (!Member(*row, m.value, schema_prefix + name, path)) return false;
    }
    return true;
  }

  bool String(const rapidjson::Value& v, const std::string& path, std::string* out) {
    out->assign(v.GetString(), v.GetStringLength());
    if (out->find('\0') != std::string::npos ||
        canonical_json::FirstInvalidUtf8(*out) != std::string_view::npos) {
      return Fail(path, "not a valid UTF-8 string without NUL");
    }
    return true;
  }

  bool Member(const SchemaRow& row, const rapidjson::Value& v, const std::string& key,
              const std::string& path) {
    bool type_ok = false;
    switch (row.type) {
      case ValueType::kObject: type_ok = v.IsObject(); break;
      case ValueType::kString: type_ok = v.IsString(); break;
      case ValueType::kNullableString: type_ok = v.IsString() || v.IsNull(); break;
      case ValueType::kStringArray:
      case ValueType::kObjectArray: type_ok = v.IsArray(); break;
      case ValueType::kSize: type_ok = v.IsUint64() || v.IsString(); break;
      case ValueType::kCount: type_ok = v.IsUint64(); break;
    }
    if (!type_ok) return Fail(path, std::string("expected ") + TypeName(row.type));

    if (key == "output") return String(v, path, &out_->output);
    if (key == "key_file") return String(v, path, &out_->key_file);
    if (key == "state_dir") return String(v, path, &out_->state_dir);
    if (key == "listen") return String(v, path, &out_->listen);
    if (key == "shim") return String(v, path, &out_->shim);
    if (key == "shim_sha256") return String(v, path, &out_->shim_sha256);
    if (key == "cgroup_pattern") return String(v, path, &out_->cgroup_pattern);
    if (key == "metrics_file") {
      if (!String(v, path, &out_->metrics_file)) return false;
      if (out_->metrics_file.empty() || out_->metrics_file[0] != '/') {
        return Fail(path, "must be an absolute path");
      }
      return true;
    }
    if (key == "metrics_interval") {
      const uint64_t n = v.GetUint64();
      if (n < 1 || n > kMetricsIntervalMax) {
        return Fail(path,
                    "must be between 1 and " + std::to_string(kMetricsIntervalMax) + " seconds");
      }
      out_->metrics_interval_s = static_cast<uint32_t>(n);
      return true;
    }
    if (key == "watch") {
      for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
        const std::string item_path = path + "[" + std::to_string(i) + "]";
        if (!v[i].IsString()) return Fail(item_path, "expected a string");
        std::string pattern, why;
        if (!String(v[i], item_path, &pattern)) return false;
        if (!watch_pattern::IsValidWatchPattern(pattern, &why)) return Fail(item_path, why);
        out_->watch.push_back(pattern);
      }
      return true;
    }
    if (key == "sources") {
      for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
        const std::string item_path = path + "[" + std::to_string(i) + "]";
        if (!v[i].IsObject()) return Fail(item_path, "expected an object");
        out_->sources.emplace_back();
        if (!Object(v[i], "sources[].", item_path + ".") || !CheckSource(item_path)) return false;
      }
      return true;
    }
    if (key == "limits") return Object(v, "limits.", path + ".");
    if (key == "forward") {
      for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
        const std::string item_path = path + "[" + std::to_string(i) + "]";
        if (!v[i].IsObject()) return Fail(item_path, "expected an object");
        out_->forward.emplace_back();
        if (!Object(v[i], "forward[].", item_path + ".") || !CheckForward(item_path)) return false;
      }
      return true;
    }
    if (key.rfind("forward[].", 0) == 0) return ForwardMember(v, key, path);
    if (key == "limits.max_line_size") {
      return Size(v, path, 256, 16u << 20, &out_->limits.max_line_bytes);
    }
    if (key == "limits.max_argv_size") {
      return Size(v, path, 1, 16u << 20, &out_->limits.max_argv_bytes);
    }
    if (key == "limits.max_argv_entries") {
      const uint64_t n = v.GetUint64();
      if (n < 1 || n > 1000000) return Fail(path, "must be between 1 and 1000000");
      out_->limits.max_argv_entries = static_cast<size_t>(n);
      return true;
    }
    if (key == "sandbox_quota") return Object(v, "sandbox_quota.", path + ".");
    if (key == "sandbox_quota.max_entries") {
      const uint64_t n = v.GetUint64();
      if (n < 1 || n > 100000000) return Fail(path, "must be between 1 and 100000000");
      out_->quota.max_entries = n;
      return true;
    }
    if (key == "sandbox_quota.max_size") {
      size_t bytes = 0;
      if (!Size(v, path, 1, uint64_t{1} << 40, &bytes)) return false;
      out_->quota.max_bytes = bytes;
      return true;
    }
    if (key == "sandbox_quota.interval_seconds") {
      const uint64_t n = v.GetUint64();
      if (n < 1 || n > 86400) return Fail(path, "must be between 1 and 86400");
      out_->quota.interval_seconds = static_cast<uint32_t>(n);
      return true;
    }
    // sources[].*
    SourceConfig& src = out_->sources.back();
    if (key == "sources[].path") return String(v, path, &src.path);
    if (key == "sources[].pattern") return String(v, path, &src.pattern);
    if (key == "sources[].sandbox_id") return String(v, path, &src.labels.sandbox_id);
    if (key == "sources[].agent_did") {
      if (v.IsNull()) {
        src.agent_did_null = true;
        return true;
      }
      return String(v, path, &src.agent_did_template);
    }
    audit_entry::NullableString* label = key == "sources[].environment" ? &src.labels.environment
                                         : key == "sources[].compute_driver"
                                             ? &src.labels.compute_driver
                                         : key == "sources[].session_id" ? &src.labels.session_id
                                                                         : nullptr;
    if (label == nullptr) return Fail(path, "internal error: schema row without a handler");
    if (v.IsNull()) return true;
    std::string s;
    if (!String(v, path, &s)) return false;
    *label = std::move(s);
    return true;
  }

  bool Size(const rapidjson::Value& v, const std::string& path, uint64_t min, uint64_t max,
            size_t* out) {
    uint64_t bytes = 0;
    std::string why;
    if (v.IsUint64()) {
      bytes = v.GetUint64();
    } else if (!ParseSize(std::string_view(v.GetString(), v.GetStringLength()), &bytes, &why)) {
      return Fail(path, why);
    }
    if (bytes < min || bytes > max) {
      return Fail(path, "must be between " + std::to_string(min) + " and " + std::to_string(max) +
                            " bytes");
    }
    *out = static_cast<size_t>(bytes);
    return true;
  }

  // forward[].*: the url is parsed once every key is read (CheckForward).
  bool ForwardMember(const rapidjson::Value& v, const std::string& key, const std::string& path) {
    forward_destination::Destination& d = out_->forward.back();
    if (key == "forward[].max_message_size") {
      return Size(v, path, 1024, 16u << 20, &d.max_message_bytes);
    }
    std::string s;
    if (!String(v, path, &s)) return false;
    if (key == "forward[].url") {
      d.url = s;
    } else if (key == "forward[].name") {
      if (!forward_destination::IsValidName(s)) {
        return Fail(path, "must be 1-64 bytes of [A-Za-z0-9._-], not \".\" or \"..\"");
      }
      d.name = s;
    } else if (key == "forward[].ca_file") {
      d.ca_file = s;
    } else if (key == "forward[].cert_file") {
      d.cert_file = s;
    } else if (key == "forward[].key_file") {
      d.key_file = s;
    } else if (key == "forward[].permitted_peer") {
      d.permitted_peer = s;
    } else if (key == "forward[].format") {
      if (s == "rfc5424") {
        d.format = forward_destination::Format::kRfc5424;
      } else if (s == "cloudevents") {
        d.format = forward_destination::Format::kCloudEvents;
      } else {
        return Fail(path, "must be \"rfc5424\" or \"cloudevents\"");
      }
    } else {
      return Fail(path, "internal error: schema row without a handler");
    }
    return true;
  }

  bool CheckForward(const std::string& path) {
    forward_destination::Destination& d = out_->forward.back();
    if (d.url.empty()) return Fail(path, "needs \"url\"");
    std::string why;
    if (!forward_destination::ParseUrl(d.url, &d, &why)) return Fail(path + ".url", why);
    if (!forward_destination::Check(&d, &why)) return Fail(path, why);
    for (size_t i = 0; i + 1 < out_->forward.size(); ++i) {
      if (out_->forward[i].name == d.name) {
        return Fail(path, "a second destination named \"" + d.name + "\" (set \"name\")");
      }
    }
    return true;
  }

  bool CheckSource(const std::string& path) {
    const SourceConfig& src = out_->sources.back();
    if (src.path.empty() == src.pattern.empty()) {
      return Fail(path, "needs exactly one of \"path\" and \"pattern\"");
    }
    std::string why;
    if (!src.path.empty()) {
      if (src.path[0] != '/') return Fail(path + ".path", "must be an absolute path");
      if (src.labels.sandbox_id.empty())
        return Fail(path, "a \"path\" source needs \"sandbox_id\"");
    } else {
      if (!watch_pattern::IsValidWatchPattern(src.pattern, &why))
        return Fail(path + ".pattern", why);
      if (!src.labels.sandbox_id.empty()) {
        return Fail(path + ".sandbox_id",
                    "not allowed with \"pattern\" (the id comes from the path)");
      }
    }
    if (!src.labels.sandbox_id.empty() &&
        !watch_pattern::IsPlausibleSandboxId(src.labels.sandbox_id)) {
      return Fail(path + ".sandbox_id",
                  "must be 1-128 bytes of [A-Za-z0-9._-], not \".\" or \"..\"");
    }
    return true;
  }

  const std::string& file_;
  Config* out_;
  std::string* err_;
};

// "LINE:COLUMN" of a byte offset, for parse errors.
std::string LineColumn(std::string_view text, size_t offset) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

std::string ReplaceSandboxId(std::string text, std::string_view id) {
  const std::string_view ph = watch_pattern::kPlaceholder;
  for (size_t at = text.find(ph); at != std::string::npos; at = text.find(ph, at + id.size())) {
    text.replace(at, ph.size(), id);
  }
  return text;
}

entry_mapper::SourceLabels SourceLabelsFor(const SourceConfig& src, std::string_view sandbox_id) {
  entry_mapper::SourceLabels labels = src.labels;
  labels.sandbox_id = std::string(sandbox_id);
  if (src.agent_did_null) {
    labels.agent_did.reset();
  } else if (!src.agent_did_template.empty()) {
    labels.agent_did = ReplaceSandboxId(src.agent_did_template, sandbox_id);
  } else {
    labels.agent_did = entry_mapper::DefaultAgentDid(sandbox_id);
  }
  return labels;
}

}  // namespace

const SchemaRow* Schema(size_t* count) {
  *count = sizeof kConfigSchema / sizeof kConfigSchema[0];
  return kConfigSchema;
}

bool ParseSize(std::string_view text, uint64_t* bytes, std::string* err) {
  size_t i = 0;
  uint64_t n = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    if (n > (UINT64_MAX - 9) / 10) {
      *err = "size is too large";
      return false;
    }
    n = n * 10 + static_cast<uint64_t>(text[i] - '0');
    ++i;
  }
  if (i == 0) {
    *err = "a size starts with digits, e.g. \"64KiB\", \"1MB\" or 4096 (bytes)";
    return false;
  }
  const std::string_view unit = text.substr(i);
  static constexpr struct {
    const char* unit;
    uint64_t factor;
  } kUnits[] = {{"", 1},           {"B", 1},           {"KB", 1000},
                {"MB", 1000000},   {"GB", 1000000000}, {"KiB", 1u << 10},
                {"MiB", 1u << 20}, {"GiB", 1u << 30}};
  for (const auto& u : kUnits) {
    if (unit == u.unit) {
      if (n > UINT64_MAX / u.factor) {
        *err = "size is too large";
        return false;
      }
      *bytes = n * u.factor;
      return true;
    }
  }
  *err = "unknown size unit \"" + PrintableKey(unit) +
         "\": use B, KB/MB/GB (powers of 1000) or KiB/MiB/GiB (powers of 1024)";
  return false;
}

bool ParseConfig(std::string_view text, const std::string& file, Config* out,
                 std::vector<std::string>* /*warnings*/, std::string* err) {
  *out = Config();
  out->file = file;
  // RapidJSON would take a NUL byte for the end of the text and ignore
  // whatever follows it: strict parsing refuses it instead.
  const size_t nul = text.find('\0');
  if (nul != std::string_view::npos) {
    *err = file + ":" + LineColumn(text, nul) + ": invalid JSON: a NUL byte";
    return false;
  }
  rapidjson::Document doc;
  // Comments (// and /* */) are allowed: the packaged default explains itself.
  constexpr unsigned kFlags = rapidjson::kParseValidateEncodingFlag |
                              rapidjson::kParseIterativeFlag | rapidjson::kParseCommentsFlag;
  if (!json_text::Parse<kFlags>(text, &doc)) {  // no NUL here: refused above
    *err = file + ":" + LineColumn(text, doc.GetErrorOffset()) +
           ": invalid JSON: " + rapidjson::GetParseError_En(doc.GetParseError());
    return false;
  }
  Checker checker(file, out, err);
  return checker.Root(doc);
}

bool LoadConfig(const std::string& path, Config* out, std::vector<std::string>* warnings,
                std::string* err) {
  const unique_fd::UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd.ok()) {
    *err = logs::ErrnoReason("open", path);
    return false;
  }
  struct stat st;
  if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 20)) {
    *err = path + ": not a regular file of at most 1 MiB";
    return false;
  }
  std::string text(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = read(fd.get(), text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  text.resize(got);
  if ((st.st_mode & 022) != 0) {
    char mode[8];
    snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    warnings->push_back("config " + path + " has mode " + mode + ": writable by group/others");
  }
  return ParseConfig(text, path, out, warnings, err);
}

bool LabelsForPath(const Config& config, std::string_view path, entry_mapper::SourceLabels* labels,
                   std::string* err) {
  for (const SourceConfig& src : config.sources) {
    if (!src.path.empty() && src.path == path) {
      *labels = SourceLabelsFor(src, src.labels.sandbox_id);
      return true;
    }
  }
  std::string id;
  for (const SourceConfig& src : config.sources) {
    if (!src.pattern.empty() && watch_pattern::MatchWatchPattern(src.pattern, path, &id)) {
      *labels = SourceLabelsFor(src, id);
      return true;
    }
  }
  for (const std::string& pattern : config.watch) {
    if (watch_pattern::MatchWatchPattern(pattern, path, &id)) {
      *labels = LabelsForSandboxId(id);
      return true;
    }
  }
  *err = std::string(path) + ": matches no source or watch pattern in " + config.file;
  return false;
}

entry_mapper::SourceLabels LabelsForSandboxId(std::string_view sandbox_id) {
  entry_mapper::SourceLabels labels;
  labels.sandbox_id = std::string(sandbox_id);
  labels.agent_did = entry_mapper::DefaultAgentDid(sandbox_id);
  return labels;
}

}  // namespace config
