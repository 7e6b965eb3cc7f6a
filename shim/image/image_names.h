// Lists of command names given to the image tool (from --names or a build-arg
// environment variable): split on whitespace, every name validated before
// anything is changed, duplicates merged. Bounded: at most kMaxNames names.
// An allow list may hold aliases, "python=python3": the name python runs what
// the allowed command python3 runs (upstream's image links python that way).
#ifndef AGT_DENY_SHIM_IMAGE_IMAGE_NAMES_H_
#define AGT_DENY_SHIM_IMAGE_IMAGE_NAMES_H_

#include <array>
#include <cstddef>
#include <string_view>

#include "image_text.h"

namespace image_names {

inline constexpr std::size_t kMaxNames = 256;
inline constexpr std::size_t kMaxNameLength = 64;
// The shim's own name: linking it would hand the image tool to the sandbox.
inline constexpr std::string_view kShimName = "agt-deny-shim";

// The names of one list, in first-seen order, as views into the caller's
// text (argv or the environment, which live as long as the process).
class NameList {
 public:
  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  std::string_view operator[](std::size_t i) const { return names_[i]; }
  const std::string_view* begin() const { return names_.data(); }
  const std::string_view* end() const { return names_.data() + count_; }
  bool Contains(std::string_view name) const;
  // The command name i is an alias of ("" when it is not an alias).
  std::string_view AliasOf(std::size_t i) const { return targets_[i]; }
  // The alias target of `name`, "" when it is absent or not an alias.
  std::string_view AliasOf(std::string_view name) const;
  // Adds `name` (an alias of `target` when not empty) unless present; false
  // when the list is full.
  bool Add(std::string_view name, std::string_view target = {});

 private:
  std::array<std::string_view, kMaxNames> names_{};
  std::array<std::string_view, kMaxNames> targets_{};
  std::size_t count_ = 0;
};

// Whether a list may hold NAME=TARGET aliases (only allow lists do).
enum class Aliases { kRefused, kAccepted };

// True when `name` is a plausible command name: 1-64 bytes of
// [A-Za-z0-9._+-], not starting with '.' or '-', no "..", not the shim's own
// name. Otherwise false and *why says which byte or rule failed.
bool ValidateName(std::string_view name, image_text::Text* why);

// Splits `text` on ASCII whitespace into *out. On the first bad name (or too
// many names) returns false with *err naming the name, the rule and `source`
// (e.g. "--names" or "DENIED_LOGGED_BIN_NAMES"); *out is then unusable. With
// kAccepted a word may be NAME=TARGET, where TARGET is another (non-alias)
// name of the same list.
bool ParseNames(std::string_view text, std::string_view source, NameList* out,
                image_text::Text* err, Aliases aliases = Aliases::kRefused);

// True when a file named `file_name` is `name` under another spelling: the
// same name in another case (Curl), or the name with a version after it
// (pip3.11, perl5.36.0, gawk-5.2.1, lua5.4; an optional '.', '-' or '_'
// then digits and dots). How a second copy of a denied tool hides.
bool IsVariantOf(std::string_view file_name, std::string_view name);

// True when `text` holds nothing but ASCII whitespace.
bool IsBlank(std::string_view text);

}  // namespace image_names

#endif  // AGT_DENY_SHIM_IMAGE_IMAGE_NAMES_H_
