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
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '_' || c == '+' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool IsSelfMode(std::string_view exec_path, const char* argv0) {
  if (argv0 == nullptr) return false;
  return Basename(exec_path) == kSelfName && Basename(argv0) == kSelfName;
}

std::string_view DeniedName(std::string_view exec_path, const char* argv0) {
  if (argv0 == nullptr || argv0[0] == '\0') return kUnknown;
  std::string_view name = Basename(exec_path);
  if (exec_path.empty() || name == kSelfName) name = Basename(argv0);
  if (!IsPlausibleName(name)) return kUnknown;
  // The name is printed unredacted (binary and the human line), so one the
  // redaction rules find a secret in (a link named like an access key) is
  // not shown: argv0 and path show it redacted instead.
  redact::Spans spans;
  redact::Standalone(name, &spans);
  return spans.count == 0 ? name : kUnknown;
}

}  // namespace invocation
