// verify's look at the whole root: every executable regular file that is a
// denied (or stripped) command under another path or spelling. Drift is a
// file named like one (curl anywhere, /usr/lib/git-core/git, pip3.11, Curl)
// or with the same bytes as a file so named, unless it is the shim or what an
// allowed command runs. Two scans: the first finds the named files (the
// references), the second compares the remaining executables of the same
// size with them, byte for byte. Entries of the command directories with
// exactly a listed name are verify's by-name checks, not repeated here.
#ifndef AGT_DENY_SHIM_IMAGE_IMAGE_COPIES_H_
#define AGT_DENY_SHIM_IMAGE_IMAGE_COPIES_H_

#include "image_names.h"
#include "image_scan.h"
#include "image_session.h"
#include "image_text.h"

namespace image_copies {

using DriftFn = void (*)(void* context, const image_text::Text& what);

// Reports each copy through drift(context, ...). False when the root could
// not be scanned (*err says why). *stats counts the first scan.
bool Find(const image_session::Session& s, const image_names::NameList& names,
          const image_session::AllowedFiles& allowed, DriftFn drift, void* context,
          image_scan::Stats* stats, image_text::Text* unreadable_first, image_text::Text* err);

}  // namespace image_copies

#endif  // AGT_DENY_SHIM_IMAGE_IMAGE_COPIES_H_
