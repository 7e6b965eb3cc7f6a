// What every image subcommand starts from: the root open as a directory fd,
// the real-path directories found in it (duplicates such as /bin -> usr/bin
// noted), the shim and the pinned directory; and the one place their report,
// warning and error lines are written.
#ifndef AGT_DENY_SHIM_IMAGE_IMAGE_SESSION_H_
#define AGT_DENY_SHIM_IMAGE_IMAGE_SESSION_H_

#include <string_view>

#include "image_link.h"
#include "image_names.h"
#include "image_options.h"
#include "image_root.h"
#include "image_text.h"

namespace image_session {

struct Session {
  image_options::Subcommand sub;
  image_root::Fd root;
  image_root::RealDirs dirs;
  image_link::Shim shim;
  bool pinned_present = false;
  image_root::Located pinned;  // the pinned directory when present
};

// Opens root, real dirs, shim and (when present) the pinned directory.
bool Open(image_options::Subcommand sub, const image_options::Options& options, Session* s,
          image_text::Text* err);

// Creates the pinned directory when missing, then opens it.
bool EnsurePinned(Session* s, image_text::Text* err);

// The canonical path of dir + "/" + name, for a Walk.
bool Join(std::string_view dir, std::string_view name, image_root::PathBuf* out);

// Looks up `name` in the real dir `i` (or the pinned directory when i < 0)
// without following a final symlink.
bool Lookup(const Session& s, int i, std::string_view name, image_root::Located* out,
            image_text::Text* err);

// Lookup for a command about to be changed: a directory at the name is
// refused as well. Either failure's message ends "; nothing was changed".
bool LookupCommand(const Session& s, int i, std::string_view name, image_root::Located* out,
                   image_text::Text* err);

// The files the allowed commands run: each pinned entry that is not the shim,
// followed inside the root to a regular file. Linking the shim over one or
// stripping it would break an allowed command (busybox applets are links to
// one such file).
struct AllowedFiles {
  static constexpr std::size_t kMax = image_names::kMaxNames;
  struct File {
    dev_t dev;
    ino_t ino;
    char name[image_names::kMaxNameLength + 1];  // the pinned name
  };
  File files[kMax];
  std::size_t count = 0;
  // The pinned name running dev/ino, or nullptr.
  const char* Find(dev_t dev, ino_t ino) const;
};

bool CollectAllowedFiles(const Session& s, AllowedFiles* out, image_text::Text* err);

// True when `path` (canonical) is an entry of a real-path directory or of
// the pinned directory: where install links and verify checks by name.
bool InCommandDir(const Session& s, std::string_view path);

// "regular file", "symlink to \"x\"", "directory", ... for messages.
void Describe(const image_root::Located& entry, image_text::Text* out);

// Lines: "agt-deny-shim: SUB: ..." on stdout; warnings and errors on stderr.
void Report(image_options::Subcommand sub, const image_text::Text& text);
void Warn(image_options::Subcommand sub, const image_text::Text& text);
void Error(image_options::Subcommand sub, const image_text::Text& text);

// Parses argv (usage error: 2) and answers --help (0). Returns -1 when the
// subcommand should go on, else the exit status to return.
int Start(image_options::Subcommand sub, int argc, char** argv, image_options::Options* options);

// Start, then the --names list (option, else env_name, else fallback), then
// Open: the common beginning of install, allow and harden. Any failure is
// reported ("...; nothing was changed") and its exit status returned: 2 for
// usage or a bad name, 1 when the root cannot be opened. -1 to go on.
int Begin(image_options::Subcommand sub, int argc, char** argv, const char* env_name,
          image_options::Default fallback, image_options::Options* options,
          image_names::NameList* names, image_options::Source* source, Session* s,
          image_names::Aliases aliases = image_names::Aliases::kRefused);

}  // namespace image_session

#endif  // AGT_DENY_SHIM_IMAGE_IMAGE_SESSION_H_
