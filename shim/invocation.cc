#include "invocation.h"

#include "redact.h"

namespace invocation {

std::string_view Basename(std::string_view path) {
  std::size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return path;
  return std::string_view(path.data() + slash + 1, path.size() - slash - 1);
}

bool IsPlausibleName(std::string_view name) {
  if (name.empty() || name.size() > 64 || name == "." || name == "..") return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '+' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool IsSelfMode(std::string_view exec_path, const char* argv0) {
  if (argv0 == nullptr) return false;
  return Basename(exec_path) == kSelfName && Basename(argv0) == kSelfName;
}

std::string_view ViaName(Via via) {
  switch (via) {
    case Via::kPath: return "path";
    case Via::kArgv0: return "argv0";
    case Via::kFd: return "fd";
    case Via::kScript: return "script";
    case Via::kNone: return "none";
  }
  return "none";
}

namespace {

bool IsNumber(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// (No substr(): its range check throws, and the static shim has no
// exception runtime.)
bool ConsumePrefix(std::string_view* text, std::string_view prefix) {
  if (text->size() < prefix.size() || std::string_view(text->data(), prefix.size()) != prefix)
    return false;
  text->remove_prefix(prefix.size());
  return true;
}

// The name to record, or "unknown": printed unredacted (binary and the human
// line), so one the redaction rules find a secret in (a link named like an
// access key) is not shown; argv0 and path show it redacted instead.
std::string_view Recordable(std::string_view name) {
  if (!IsPlausibleName(name)) return kUnknown;
  redact::Spans spans;
  redact::Standalone(name, &spans);
  return spans.count == 0 ? name : kUnknown;
}

}  // namespace

bool IsFdPath(std::string_view exec_path) {
  std::string_view rest = exec_path;
  if (ConsumePrefix(&rest, "/dev/fd/")) return IsNumber(rest);
  if (!ConsumePrefix(&rest, "/proc/")) return false;
  std::size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return false;
  std::string_view process(rest.data(), slash);
  if (process != "self" && process != "thread-self" && !IsNumber(process)) return false;
  rest.remove_prefix(slash);
  return ConsumePrefix(&rest, "/fd/") && IsNumber(rest);
}

namespace {

Attribution Named(std::string_view exec_path, int argc, const char* const* argv) {
  if (argc <= 0 || argv == nullptr || argv[0] == nullptr) return {kUnknown, Via::kNone, "", ""};
  std::string_view argv0 = argv[0];
  if (argc == 1 && argv0.empty()) return {kUnknown, Via::kNone, "", ""};
  if (IsFdPath(exec_path)) return {kUnknown, Via::kFd, "", ""};
  std::string_view name = Basename(exec_path);
  if (!exec_path.empty() && name != kSelfName && !argv0.empty() && argv0[0] == '/') {
    for (int k = 1; k <= 2 && k < argc; ++k) {
      if (argv[k] != nullptr && exec_path == argv[k])
        return {Recordable(Basename(argv0)), Via::kScript, exec_path, ""};
    }
  }
  if (exec_path.empty() || name == kSelfName)
    return {Recordable(Basename(argv0)), Via::kArgv0, "", ""};
  return {Recordable(name), Via::kPath, "", ""};
}

}  // namespace

Attribution Attribute(std::string_view exec_path, int argc, const char* const* argv) {
  Attribution who = Named(exec_path, argc, argv);
  who.tool = who.binary;
  if (who.binary == kUnknown && argc > 0 && argv != nullptr && argv[0] != nullptr)
    who.tool = Basename(argv[0]);
  return who;
}

}  // namespace invocation
