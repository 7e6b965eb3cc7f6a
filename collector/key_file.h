// The operator's HMAC key: a file of raw bytes (no encoding, no trailing
// newline convention). Never echoed anywhere.
#ifndef AGT_COLLECTOR_KEY_FILE_H_
#define AGT_COLLECTOR_KEY_FILE_H_

#include <string>
#include <vector>

namespace key_file {

constexpr size_t kMaxKeyBytes = 4096;
constexpr size_t kRecommendedKeyBytes = 32;

// Reads the key; refuses an empty file, a non-regular file and one larger
// than kMaxKeyBytes.
bool ReadKeyFile(const std::string& path, std::string* key, std::string* err);

// Lint: key file readable or writable by group/others, key shorter than
// kRecommendedKeyBytes. Appends one line per finding.
void LintKeyFile(const std::string& path, const std::string& key,
                 std::vector<std::string>* warnings);

enum class NewKeyResult { kWritten, kExists, kFailed };

// Creates `path` (O_EXCL, mode 0600) holding kRecommendedKeyBytes from
// getrandom(2), synced with its directory entry. Never overwrites: kExists
// when anything is at `path` (a symlink included). On kFailed nothing is
// left behind; *err is a bare reason either way.
NewKeyResult WriteNewKeyFile(const std::string& path, std::string* err);

}  // namespace key_file

#endif  // AGT_COLLECTOR_KEY_FILE_H_
