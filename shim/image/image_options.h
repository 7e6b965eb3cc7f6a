// Command lines of the image subcommands: one table of options (each row its
// name, value, the subcommands taking it and its help text), parsed into
// Options; usage text is generated from the same table. Name lists come from
// an option, else an environment variable (a Docker build-arg reaches an
// exec-form RUN that way), else a default.
#ifndef AGT_DENY_SHIM_IMAGE_IMAGE_OPTIONS_H_
#define AGT_DENY_SHIM_IMAGE_IMAGE_OPTIONS_H_

#include <string_view>

#include "image_names.h"
#include "image_text.h"

namespace image_options {

enum class Subcommand { kInstall, kAllow, kHarden, kVerify };

std::string_view Name(Subcommand sub);

struct Options {
  const char* root = nullptr;
  std::string_view shim;
  // Set when the option was given (an empty value is then an error).
  bool names_set = false, denied_set = false, allowed_set = false, stripped_set = false;
  std::string_view names, denied, allowed, stripped;
  bool help = false;
};

// Parses argv (the arguments after the subcommand name). False on a usage
// error, with *err saying what (and suggesting the option meant).
bool Parse(Subcommand sub, int argc, char** argv, Options* out, image_text::Text* err);

// Usage of one subcommand, from the option table.
void WriteUsage(Subcommand sub, int fd);

// Where a name list came from.
enum class Source { kOption, kEnvironment, kDefault };

// Which default applies when neither the option nor the variable is given.
enum class Default {
  kDeniedSet,  // denied_names::kRows (the shim's default denied names)
  kStripSet,   // image_strip_names::kRows
  kEmpty,      // no names
  kRequired,   // an error: the list must be given
};

// Loads one list: the option's value when given (must not be blank), else
// the environment variable when set and not blank (an unset build-arg
// reaches RUN as an empty string), else the default. Names are validated;
// NAME=TARGET aliases only where `aliases` accepts them (allow lists).
bool LoadList(bool option_set, std::string_view option_value, std::string_view option_name,
              const char* env_name, Default fallback, image_names::NameList* out, Source* source,
              image_text::Text* err, image_names::Aliases aliases = image_names::Aliases::kRefused);

}  // namespace image_options

#endif  // AGT_DENY_SHIM_IMAGE_IMAGE_OPTIONS_H_
